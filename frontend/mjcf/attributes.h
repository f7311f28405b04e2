// Reading MJCF attribute values: numbers, integers, keywords, with file:line diagnostics.
//
// Every reader returns true when the attribute is present and valid (and then writes the
// target), false when it is absent or invalid (an invalid value is reported in `diag`, the
// target is left untouched so reading can go on and report further problems).
//
// Number syntax follows MuJoCo 2.2.2 (C++ stream extraction of doubles): decimal or
// scientific notation, optional sign, ".5" and "-.5" allowed; anything else, and any
// non-finite value, is an error.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/diagnostics.h"
#include "frontend/mjcf/xml_tree.h"

namespace talon::mjcf {

// Reports an error about `node` at its file:line.
void report(Diagnostics& diag, const XmlNode& node, const std::string& message);

// Splits `text` into numbers; on failure returns false and describes the problem in `why`.
bool parse_numbers(std::string_view text, std::vector<double>& out, std::string& why);

// The numbers of `attr`, `min_count` to `max_count` of them (max_count < 0: no limit).
bool read_numbers(const XmlNode& node, std::string_view attr, int min_count, int max_count,
                  std::vector<double>& out, Diagnostics& diag);

// Exactly n numbers into target[0..n).
bool read_exact(const XmlNode& node, std::string_view attr, double* target, int n,
                Diagnostics& diag);
// 1 to n numbers written into the first entries of target (MuJoCo's rule for `size`,
// `friction`, `gear`...: unspecified trailing entries keep their default).
bool read_prefix(const XmlNode& node, std::string_view attr, double* target, int n,
                 Diagnostics& diag);
bool read_double(const XmlNode& node, std::string_view attr, double& target, Diagnostics& diag);
bool read_int(const XmlNode& node, std::string_view attr, int& target, Diagnostics& diag);
bool read_ints(const XmlNode& node, std::string_view attr, int* target, int n, Diagnostics& diag);
bool read_string(const XmlNode& node, std::string_view attr, std::string& target);

using Keywords = std::initializer_list<std::pair<const char*, int>>;
// One of the keywords (case-sensitive, as MuJoCo); writes the keyword's value.
bool read_keyword(const XmlNode& node, std::string_view attr, Keywords keywords, int& target,
                  Diagnostics& diag);
bool read_bool(const XmlNode& node, std::string_view attr, bool& target, Diagnostics& diag);

// MuJoCo's three-valued "limited"/"ctrllimited"/... attributes.
enum class TriState { False = 0, True = 1, Auto = 2 };
bool read_tristate(const XmlNode& node, std::string_view attr, TriState& target, Diagnostics& diag);

}  // namespace talon::mjcf
