// Line-oriented text parsing shared by the readers of text formats (.map, .scen, .3dmap, .3dscen,
// point-pair files), so every one reports 1-based line numbers the same way.
#pragma once

#include <cstddef>
#include <string_view>

namespace nav {

// Walks a text line by line; '\r' before '\n' (Windows files) is dropped. Line numbers are 1-based.
class LineReader {
public:
    explicit LineReader(std::string_view text) : text_(text) {}

    bool next(std::string_view& line) {
        if (pos_ >= text_.size()) return false;
        size_t end = text_.find('\n', pos_);
        if (end == std::string_view::npos) end = text_.size();
        line = text_.substr(pos_, end - pos_);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        pos_ = end + 1;
        ++number_;
        return true;
    }
    // Number of the line last returned by next().
    size_t number() const { return number_; }

private:
    std::string_view text_;
    size_t pos_ = 0;
    size_t number_ = 0;
};

}  // namespace nav
