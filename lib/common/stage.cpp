#include "lib/common/stage.h"

namespace nav {

void ParamCheck::threads(std::string_view field, int value) {
    require(value >= 0 && value <= kMaxThreads, field, std::to_string(value),
            fmt::format("0 for all cores, or 1..{}", kMaxThreads));
}

std::string plainFieldName(std::string_view field) {
    std::string name(field);
    for (char& c : name)
        if (c == '_') c = ' ';
    return name;
}

std::string optionFieldName(std::string_view field) {
    std::string name = "--" + std::string(field);
    for (char& c : name)
        if (c == '_') c = '-';
    return name;
}

Status paramError(std::string_view what, const ParamIssues& issues, const FieldNamer& name) {
    if (issues.empty()) return {};
    std::string message = fmt::format("invalid {}: ", what);
    for (size_t i = 0; i < issues.size(); ++i)
        message += fmt::format("{}{} = {} (must be {})", i ? "; " : "", name(issues[i].field),
                               issues[i].value, issues[i].rule);
    return Error{ErrorKind::usage, message};
}

StageKey& StageKey::add(std::string_view name, std::string_view value) {
    text_ += fmt::format("{}={}\n", name, value);
    return *this;
}
StageKey& StageKey::add(std::string_view name, double value) {
    text_ += fmt::format("{}={}\n", name, value);
    return *this;
}
StageKey& StageKey::add(std::string_view name, int64_t value) {
    text_ += fmt::format("{}={}\n", name, value);
    return *this;
}

}  // namespace nav
