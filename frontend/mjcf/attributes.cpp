#include "frontend/mjcf/attributes.h"

#include <charconv>
#include <cmath>

namespace talon::mjcf {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::vector<std::string_view> split_tokens(std::string_view text) {
  std::vector<std::string_view> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    const std::size_t start = i;
    while (i < text.size() && !is_space(text[i])) ++i;
    if (i > start) tokens.push_back(text.substr(start, i - start));
  }
  return tokens;
}

// One decimal number, the whole token. std::from_chars has no leading '+' and no hex in
// general format, which is what a C++ stream accepts for MuJoCo too.
bool parse_one(std::string_view token, double& value) {
  if (token.starts_with('+')) token.remove_prefix(1);
  if (token.empty() || token.starts_with('+')) return false;
  const char* end = token.data() + token.size();
  const auto result = std::from_chars(token.data(), end, value, std::chars_format::general);
  return result.ec == std::errc() && result.ptr == end;
}

std::string count_text(int min_count, int max_count) {
  if (min_count == max_count) return std::to_string(min_count);
  if (max_count < 0) return "at least " + std::to_string(min_count);
  return std::to_string(min_count) + " to " + std::to_string(max_count);
}

}  // namespace

void report(Diagnostics& diag, const XmlNode& node, const std::string& message) {
  diag.error(node.loc, node.label(), message);
}

bool parse_numbers(std::string_view text, std::vector<double>& out, std::string& why) {
  out.clear();
  for (std::string_view token : split_tokens(text)) {
    double value = 0;
    if (!parse_one(token, value)) {
      why = "cannot read '" + std::string(token) + "' as a number";
      return false;
    }
    if (!std::isfinite(value)) {
      why = "non-finite number '" + std::string(token) + "'";
      return false;
    }
    out.push_back(value);
  }
  return true;
}

bool read_numbers(const XmlNode& node, std::string_view attr, int min_count, int max_count,
                  std::vector<double>& out, Diagnostics& diag) {
  const std::string* text = node.attribute(attr);
  if (!text) return false;
  std::string why;
  std::vector<double> values;
  if (!parse_numbers(*text, values, why)) {
    report(diag, node, "attribute '" + std::string(attr) + "': " + why);
    return false;
  }
  const int n = static_cast<int>(values.size());
  if (n < min_count || (max_count >= 0 && n > max_count)) {
    report(diag, node,
           "attribute '" + std::string(attr) + "' needs " + count_text(min_count, max_count) +
               " number" + (max_count == 1 ? "" : "s") + ", found " + std::to_string(n));
    return false;
  }
  out = std::move(values);
  return true;
}

bool read_exact(const XmlNode& node, std::string_view attr, double* target, int n,
                Diagnostics& diag) {
  std::vector<double> values;
  if (!read_numbers(node, attr, n, n, values, diag)) return false;
  std::copy(values.begin(), values.end(), target);
  return true;
}

bool read_prefix(const XmlNode& node, std::string_view attr, double* target, int n,
                 Diagnostics& diag) {
  std::vector<double> values;
  if (!read_numbers(node, attr, 1, n, values, diag)) return false;
  std::copy(values.begin(), values.end(), target);
  return true;
}

bool read_double(const XmlNode& node, std::string_view attr, double& target, Diagnostics& diag) {
  return read_exact(node, attr, &target, 1, diag);
}

bool read_ints(const XmlNode& node, std::string_view attr, int* target, int n, Diagnostics& diag) {
  const std::string* text = node.attribute(attr);
  if (!text) return false;
  const std::vector<std::string_view> tokens = split_tokens(*text);
  if (static_cast<int>(tokens.size()) != n) {
    report(diag, node,
           "attribute '" + std::string(attr) + "' needs " + std::to_string(n) + " integer" +
               (n == 1 ? "" : "s") + ", found " + std::to_string(tokens.size()) + " values");
    return false;
  }
  std::vector<int> values;
  for (std::string_view token : tokens) {
    std::string_view digits = token.starts_with('+') ? token.substr(1) : token;
    int value = 0;
    const char* end = digits.data() + digits.size();
    const auto result = std::from_chars(digits.data(), end, value);
    if (digits.empty() || result.ec != std::errc() || result.ptr != end) {
      report(
          diag, node,
          "attribute '" + std::string(attr) + "': '" + std::string(token) + "' is not an integer");
      return false;
    }
    values.push_back(value);
  }
  std::copy(values.begin(), values.end(), target);
  return true;
}

bool read_int(const XmlNode& node, std::string_view attr, int& target, Diagnostics& diag) {
  return read_ints(node, attr, &target, 1, diag);
}

bool read_string(const XmlNode& node, std::string_view attr, std::string& target) {
  const std::string* text = node.attribute(attr);
  if (!text) return false;
  target = *text;
  return true;
}

bool read_keyword(const XmlNode& node, std::string_view attr, Keywords keywords, int& target,
                  Diagnostics& diag) {
  const std::string* text = node.attribute(attr);
  if (!text) return false;
  std::string expected;
  for (const auto& [word, value] : keywords) {
    if (*text == word) {
      target = value;
      return true;
    }
    expected += (expected.empty() ? "'" : ", '") + std::string(word) + "'";
  }
  report(diag, node,
         "attribute '" + std::string(attr) + "': invalid value '" + *text + "' (expected one of " +
             expected + ")");
  return false;
}

bool read_bool(const XmlNode& node, std::string_view attr, bool& target, Diagnostics& diag) {
  int value = 0;
  if (!read_keyword(node, attr, {{"false", 0}, {"true", 1}}, value, diag)) return false;
  target = value == 1;
  return true;
}

bool read_tristate(const XmlNode& node, std::string_view attr, TriState& target,
                   Diagnostics& diag) {
  int value = 0;
  if (!read_keyword(node, attr, {{"false", 0}, {"true", 1}, {"auto", 2}}, value, diag))
    return false;
  target = static_cast<TriState>(value);
  return true;
}

}  // namespace talon::mjcf
