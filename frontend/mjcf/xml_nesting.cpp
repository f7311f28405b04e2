#include "frontend/mjcf/xml_nesting.h"

#include <algorithm>
#include <cstddef>

namespace talon::mjcf {
namespace {

// Walks the text once, tracking the current line.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  bool done() const { return pos_ >= text_.size(); }
  int line() const { return line_; }
  bool starts_with(std::string_view s) const { return text_.substr(pos_).starts_with(s); }
  char peek() const { return text_[pos_]; }

  void advance(std::size_t n) {
    const std::size_t end = std::min(text_.size(), pos_ + n);
    line_ += static_cast<int>(std::count(text_.begin() + pos_, text_.begin() + end, '\n'));
    pos_ = end;
  }
  // Moves past the next occurrence of `terminator` (or to the end of the text).
  void skip_past(std::string_view terminator) {
    const std::size_t found = text_.find(terminator, pos_);
    advance(found == std::string_view::npos ? text_.size() - pos_
                                            : found - pos_ + terminator.size());
  }
  // Moves past the '>' that closes a tag, ignoring any '>' inside quoted attribute values.
  // Returns whether the tag was self-closing ("/>").
  bool skip_tag() {
    char quote = 0;
    char previous = 0;
    while (!done()) {
      const char c = peek();
      advance(1);
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '>') {
        return previous == '/';
      }
      previous = c;
    }
    return false;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace

int first_line_nested_deeper_than(std::string_view text, int limit) {
  Scanner scan(text);
  int depth = 0;
  while (!scan.done()) {
    if (scan.peek() != '<') {
      scan.advance(1);
    } else if (scan.starts_with("<!--")) {
      scan.skip_past("-->");
    } else if (scan.starts_with("<![CDATA[")) {
      scan.skip_past("]]>");
    } else if (scan.starts_with("<?")) {
      scan.skip_past("?>");
    } else if (scan.starts_with("<!")) {
      scan.skip_past(">");
    } else if (scan.starts_with("</")) {
      depth = std::max(0, depth - 1);
      scan.skip_past(">");
    } else {
      // A self-closing element also occupies a level (tinyxml2 descends into it too).
      const int line = scan.line();
      const bool self_closing = scan.skip_tag();
      if (depth + 1 > limit) return line;
      if (!self_closing) ++depth;
    }
  }
  return 0;
}

}  // namespace talon::mjcf
