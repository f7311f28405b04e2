#include "runtime/param_overrides.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <string_view>

#include "frontend/model.h"

namespace talon::runtime {
namespace {

// The part of a parameter's name before ':' ("mass" of "mass:torso"), or the whole name.
std::string_view kind_of(std::string_view name) {
  return name.substr(0, name.find(':'));
}

// Why `value` is not a valid value of parameter `name`, or "".
std::string value_error(std::string_view name, double value) {
  if (!std::isfinite(value)) return "is not a finite number";
  const std::string_view kind = kind_of(name);
  const bool positive =
      kind == "mass" || kind == "inertia_xx" || kind == "inertia_yy" || kind == "inertia_zz";
  if (positive && !(value > 0)) return "must be positive";
  const bool non_negative = kind.ends_with("compliance") || kind == "friction" ||
                            kind == "stiffness" || kind == "damping" || kind == "armature";
  if (non_negative && value < 0) return "must not be negative";
  return "";
}

// What the model has instead of `name`: its parameters of the same kind ("mass:…"), or, when
// it has none of that kind, the kinds it has.
std::string alternatives(const std::vector<ir::ParamInfo>& info, std::string_view name) {
  constexpr std::size_t kShown = 20;
  std::vector<std::string> same, kinds;
  for (const ir::ParamInfo& p : info) {
    const std::string kind(kind_of(p.name));
    if (kind == kind_of(name)) same.push_back(p.name);
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
  }
  const bool by_kind = !same.empty();
  const std::vector<std::string>& list = by_kind ? same : kinds;
  std::string out =
      by_kind ? "its " + std::string(kind_of(name)) + " parameters: " : "its kinds of parameter: ";
  for (std::size_t i = 0; i < list.size() && i < kShown; ++i) out += (i ? ", " : "") + list[i];
  if (list.size() > kShown) out += ", … (" + std::to_string(list.size()) + " in all)";
  return out;
}

// An error naming the first body whose inertia (the six inertia_* parameters about its centre
// of mass) is not positive definite by the loader's rule (frontend/model.h), or no error.
Diagnostics check_inertias(const std::vector<ir::ParamInfo>& info,
                           const std::vector<double>& params) {
  static const char* const kEntries[] = {"inertia_xx", "inertia_yy", "inertia_zz",
                                         "inertia_xy", "inertia_xz", "inertia_yz"};
  std::map<std::string, std::array<double, 6>> bodies;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string& name = info[i].name;
    const std::size_t colon = name.find(':');
    if (colon == std::string::npos) continue;
    for (int e = 0; e < 6; ++e)
      if (name.compare(0, colon, kEntries[e]) == 0) bodies[name.substr(colon + 1)][e] = params[i];
  }
  for (const auto& [body, in] : bodies) {
    Mat3 inertia;
    inertia << in[0], in[3], in[4], in[3], in[1], in[5], in[4], in[5], in[2];
    if (!positive_definite_moments(principal_moments(inertia)))
      return Diagnostics::single_error("parameters: the inertia of body '" + body +
                                       "' is not positive definite with these values");
  }
  return {};
}

}  // namespace

Expected<std::vector<double>> apply_param_overrides(const std::vector<ir::ParamInfo>& info,
                                                    std::vector<double> params,
                                                    const std::vector<ParamOverride>& overrides) {
  if (overrides.empty()) return params;
  if (params.empty())
    return Diagnostics::single_error(
        "parameters: this unit folds its parameters into the code (LowerOptions::fold_params), "
        "so none can be set when it runs");
  for (const auto& [name, value] : overrides) {
    std::size_t i = 0;
    while (i < params.size() && info[i].name != name) ++i;
    if (i == params.size())
      return Diagnostics::single_error("parameter '" + name +
                                       "': the model has no such parameter (" +
                                       alternatives(info, name) + ")");
    const std::string why = value_error(name, value);
    if (!why.empty())
      return Diagnostics::single_error("parameter '" + name + "': the value " + why);
    params[i] = value;
  }
  const Diagnostics inertia = check_inertias(info, params);
  if (inertia.has_errors()) return inertia;
  return params;
}

Expected<ParamOverride> parse_param_override(const std::string& text) {
  const std::size_t equals = text.rfind('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size())
    return Diagnostics::single_error("expected NAME=VALUE");
  const std::string value_text = text.substr(equals + 1);
  double value = 0;
  const char* end = value_text.data() + value_text.size();
  const auto [stop, error] = std::from_chars(value_text.data(), end, value);
  if (error != std::errc() || stop != end)
    return Diagnostics::single_error("'" + value_text + "' is not a number");
  return ParamOverride{text.substr(0, equals), value};
}

}  // namespace talon::runtime
