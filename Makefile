# navbake: the two commands a newcomer types are `make run` and `make test`.
# Each installs missing Debian packages (make setup), builds (Release), then bakes or tests.

BUILD_DIR  ?= build
ASAN_DIR   ?= build-asan
FUZZ_DIR   ?= build-fuzz
# make fuzz: seconds per target (the short pass of make test: FUZZ_SMOKE_SECONDS).
FUZZ_SECONDS       ?= 600
FUZZ_SMOKE_SECONDS ?= 20
OUT_DIR    ?= out
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
NAVBAKE    := $(BUILD_DIR)/navbake
SHARED     := $(abspath ..)/shared/data

PACKAGES := g++ cmake make libcli11-dev libassimp-dev nlohmann-json3-dev libzstd-dev \
            libspdlog-dev doctest-dev libpng-dev clang-format pkg-config \
            python3-distributed clang
# Only for the peer benchmark bench_recast (Recast/Detour); the product never links it.
BENCH_PACKAGES := librecast-dev

.PHONY: all setup configure build test run asan bench bench-setup levels format clean help \
        fuzz fuzz-build fuzz-smoke

all: build

help:
	@echo "make run    install missing packages, build, bake the sample levels, print a summary"
	@echo "make test   install missing packages, build, run every test (unit + CLI end-to-end)"
	@echo "make asan   build with AddressSanitizer + UBSan in $(ASAN_DIR)/ and run the tests"
	@echo "make fuzz   build the libFuzzer targets (clang, ASan + UBSan) in $(FUZZ_DIR)/ and run each"
	@echo "            for FUZZ_SECONDS (default $(FUZZ_SECONDS)); make test runs them $(FUZZ_SMOKE_SECONDS) s each"
	@echo "make bench  build and run the benchmarks (tests/bench/), printing figures;"
	@echo "            installs librecast-dev for the Recast/Detour peer benchmark"
	@echo "make levels regenerate sample_levels/ with tools/levelgen"
	@echo "make format apply .clang-format (clang-format 14) to every C++ file; CTest format_check checks it"
	@echo "make setup  only install missing Debian packages (apt-get, via sudo when not root)"

setup:
	@missing=""; \
	for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make setup: installing$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends $$missing; \
	else \
	  echo "make setup: all packages present"; \
	fi

$(BUILD_DIR)/CMakeCache.txt:
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

configure: setup $(BUILD_DIR)/CMakeCache.txt

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory fuzz-smoke

run: build
	@bash tools/run_sample.sh $(NAVBAKE) $(OUT_DIR) "$(SHARED)"

asan: setup
	cmake -S . -B $(ASAN_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNAVBAKE_SANITIZE=ON $(CMAKE_ARGS)
	cmake --build $(ASAN_DIR) -j $(JOBS)
	cd $(ASAN_DIR) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j $(JOBS)

# Fuzzing (tests/fuzz): clang's libFuzzer needs its runtime, libclang-rt-N-dev for clang N.
fuzz-build: setup
	@major=$$(clang++ --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1); \
	if ! dpkg-query -W -f='$${Status}' libclang-rt-$$major-dev 2>/dev/null | grep -q "ok installed"; then \
	  echo "make fuzz-build: installing libclang-rt-$$major-dev"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends libclang-rt-$$major-dev; \
	fi
	@[ -f $(FUZZ_DIR)/CMakeCache.txt ] || cmake -S . -B $(FUZZ_DIR) -DCMAKE_CXX_COMPILER=clang++ \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -DNAVBAKE_FUZZ=ON \
	  -DNAVBAKE_BUILD_TESTS=OFF $(CMAKE_ARGS)
	cmake --build $(FUZZ_DIR) --target fuzz_targets -j $(JOBS)

# Replays every committed regression input, then fuzzes each target briefly from the committed
# corpus: the part of make test that catches a parser regression.
fuzz-smoke: fuzz-build
	@bash tests/fuzz/replay_regressions.sh $(FUZZ_DIR)
	@FUZZ_LOG_DIR=$(FUZZ_DIR)/fuzz-logs/smoke bash tests/fuzz/run_fuzz.sh $(FUZZ_DIR) $(FUZZ_SMOKE_SECONDS)

fuzz: fuzz-build
	@bash tests/fuzz/run_fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS)

# bench_recast needs librecast-dev: install it when missing (a failure only skips that bench),
# then reconfigure so CMake finds it and adds the optional target.
bench-setup: setup
	@missing=""; \
	for p in $(BENCH_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make bench-setup: installing$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi; \
	  { $$SUDO apt-get update -q && \
	    DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends $$missing; } || \
	  echo "make bench-setup: could not install$$missing; bench_recast will be skipped"; \
	else \
	  echo "make bench-setup: all packages present"; \
	fi

bench: bench-setup
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)
	cmake --build $(BUILD_DIR) -j $(JOBS)
	@bash tests/bench/run_benchmarks.sh $(BUILD_DIR) "$(SHARED)"

levels: build
	$(BUILD_DIR)/levelgen sample_levels

format: setup
	@bash tools/format.sh

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(FUZZ_DIR) $(OUT_DIR)
