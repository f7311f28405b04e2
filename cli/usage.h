// Usage errors: number checks whose messages fit on one line (CLI11's ranges print their
// bounds with std::to_string, 309 digits for DBL_MAX) and the one-line report of any
// command-line error.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace talon::cli {

// A finite number > 0 (a time step, a tolerance, a count).
CLI::Validator positive_number();
// A finite number >= 0 (a duration, a number of steps).
CLI::Validator non_negative_number();

// --dt H: a positive step; left at `dt` (0: the model's timestep) when not given.
CLI::Option* add_time_step_option(CLI::App& command, double& dt);

// "talon simulate: error: --time: must be >= 0, not -1 (talon simulate --help)": installed
// as every command's failure message, so a usage error is one line on stderr.
std::string one_line_usage_error(const CLI::App* app, const CLI::Error& error);

}  // namespace talon::cli
