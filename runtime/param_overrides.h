// Parameter values set by name when a Simulator is created (SimulatorOptions::param_overrides,
// `talon simulate --param NAME=VALUE`): θ is an input of the generated step, so a new value
// needs no recompilation, and every world the Simulator makes starts from it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/expected.h"
#include "ir/lower/program.h"

namespace talon::runtime {

using ParamOverride = std::pair<std::string, double>;

// `params` (one value per entry of `info`) with the overrides applied, after checking each
// one: a name the model has, a finite value, positive masses and diagonal inertias, and
// compliances, frictions, stiffnesses, dampings and armatures of at least zero; and, after
// all of them, every body's inertia positive definite. An error names the parameter ("parameter
// 'mass:box': the value must be positive").
Expected<std::vector<double>> apply_param_overrides(const std::vector<ir::ParamInfo>& info,
                                                    std::vector<double> params,
                                                    const std::vector<ParamOverride>& overrides);

// "NAME=VALUE" (split at the last '=') as an override; for anything else, an error saying why
// (for the caller to prefix with the text).
Expected<ParamOverride> parse_param_override(const std::string& text);

}  // namespace talon::runtime
