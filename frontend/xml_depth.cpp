#include "frontend/xml_depth.h"

#include <algorithm>
#include <cstddef>

namespace talon {
namespace {

// A cursor over the text that keeps the line number of its position.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  bool done() const { return pos_ >= text_.size(); }
  int line() const { return line_; }
  bool starts_with(std::string_view prefix) const {
    return text_.substr(pos_, prefix.size()) == prefix;
  }
  char peek(std::size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void advance(std::size_t count) {
    const std::size_t end = std::min(text_.size(), pos_ + count);
    line_ += static_cast<int>(std::count(text_.begin() + pos_, text_.begin() + end, '\n'));
    pos_ = end;
  }
  // Moves to the next `c` (or the end).
  void skip_to(char c) {
    const std::size_t found = text_.find(c, pos_);
    advance((found == std::string_view::npos ? text_.size() : found) - pos_);
  }
  // Moves just past the next `terminator`; false (at the end) when there is none.
  bool skip_past(std::string_view terminator) {
    const std::size_t found = text_.find(terminator, pos_);
    if (found == std::string_view::npos) {
      advance(text_.size());
      return false;
    }
    advance(found + terminator.size() - pos_);
    return true;
  }
  // Moves past the '>' that ends a tag, stepping over quoted attribute values. Returns
  // whether the tag was self-closing ("/>"); `closed` is false at the end of the text.
  bool skip_tag(bool& closed) {
    closed = false;
    while (!done()) {
      const std::size_t stop = text_.find_first_of("\"'>", pos_);
      if (stop == std::string_view::npos) break;
      const char c = text_[stop];
      advance(stop + 1 - pos_);
      if (c == '>') {
        closed = true;
        return text_[stop - 1] == '/';  // stop > 0: a tag starts with '<'
      }
      if (!skip_past(std::string_view(&c, 1))) return false;
    }
    advance(text_.size() - pos_);
    return false;
  }
  // Moves past a <!DOCTYPE ...> whose internal subset may hold '>' inside [ ].
  bool skip_declaration() {
    int brackets = 0;
    while (!done()) {
      const char c = peek();
      advance(1);
      if (c == '[') ++brackets;
      if (c == ']') --brackets;
      if (c == '>' && brackets <= 0) return true;
    }
    return false;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace

int first_line_nested_deeper_than(std::string_view xml, int max_depth) {
  Scanner scan(xml);
  int depth = 0;
  while (!scan.done()) {
    if (scan.peek() != '<') {
      scan.skip_to('<');
      continue;
    }
    bool ok = true;
    if (scan.starts_with("<!--")) {
      ok = scan.skip_past("-->");
    } else if (scan.starts_with("<![CDATA[")) {
      ok = scan.skip_past("]]>");
    } else if (scan.starts_with("<?")) {
      ok = scan.skip_past("?>");
    } else if (scan.starts_with("<!")) {
      ok = scan.skip_declaration();
    } else if (scan.peek(1) == '/') {
      ok = scan.skip_past(">");
      depth = std::max(0, depth - 1);
    } else {
      const int line = scan.line();
      bool closed = false;
      const bool self_closing = scan.skip_tag(closed);
      if (depth + 1 > max_depth) return line;
      if (!self_closing) ++depth;
      ok = closed;
    }
    if (!ok) break;
  }
  return 0;
}

}  // namespace talon
