// Describes any navbake artifact: container facts (kind, versions, sections with codec, sizes and
// checksum status) and kind-specific statistics, as JSON (the CLI also renders it as text).
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>

#include "lib/common/result.h"

namespace nav::inspect {

struct Inspection {
    nlohmann::ordered_json report;
    bool all_checksums_ok = true;  // false: some section is corrupt (report says which)
};

// Fails only when the container itself cannot be parsed (bad magic, truncated, ...). Section
// corruption and kind-specific decoding errors are recorded in the report ("errors").
Result<Inspection> inspectArtifact(const std::filesystem::path& path);

// Human-readable rendering of a report.
std::string renderText(const nlohmann::ordered_json& report);

}  // namespace nav::inspect
