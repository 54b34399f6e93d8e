# The libFuzzer targets, named once: tests/fuzz/CMakeLists.txt builds fuzz_<name> from
# fuzz_<name>.cpp (clang build), tests/CMakeLists.txt compiles the same sources into fuzz_replay
# (g++ build) and writes the X-macro list replay_main.cpp includes; run_fuzz.sh runs what was built.
set(NAVBAKE_FUZZ_TARGETS container asset world artifact map scen 3dmap 3dscen level_config tags
    definitions obj_import scene)
# Targets that read containers: tests/data's golden artifacts are seeds and replay inputs too.
set(NAVBAKE_FUZZ_ARTIFACT_TARGETS container asset artifact)
# Targets that build Assimp scenes themselves (they link Assimp; the product opens it with dlopen).
set(NAVBAKE_FUZZ_ASSIMP_TARGETS scene)
