#include "cli/usage.h"

#include <cmath>

namespace talon::cli {
namespace {

CLI::Validator number_check(const std::string& name, const std::string& requirement,
                            bool (*accepts)(double)) {
  return CLI::Validator(
      [requirement, accepts](std::string& input) -> std::string {
        double value = 0;
        if (CLI::detail::lexical_cast(input, value) && std::isfinite(value) && accepts(value))
          return {};
        return "must be " + requirement + ", not " + input;
      },
      name);
}

// The deepest subcommand the parser entered: the command the user was typing.
const CLI::App* innermost_command(const CLI::App* app) {
  const std::vector<CLI::App*> entered = app->get_subcommands();
  return entered.empty() ? app : innermost_command(entered.back());
}

std::string command_path(const CLI::App* app) {
  const CLI::App* parent = app->get_parent();
  return parent == nullptr ? app->get_name() : command_path(parent) + " " + app->get_name();
}

}  // namespace

CLI::Validator positive_number() {
  return number_check("POSITIVE", "a positive number", [](double v) { return v > 0; });
}

CLI::Validator non_negative_number() {
  return number_check("NONNEGATIVE", "a number >= 0", [](double v) { return v >= 0; });
}

CLI::Option* add_time_step_option(CLI::App& command, double& dt) {
  return command.add_option("--dt", dt, "Time step h (s); default: the model's timestep")
      ->check(positive_number());
}

std::string one_line_usage_error(const CLI::App* app, const CLI::Error& error) {
  const std::string command = command_path(innermost_command(app));
  std::string message = error.what();
  for (char& c : message)
    if (c == '\n') c = ' ';
  return command + ": error: " + message + " (" + command + " --help)\n";
}

}  // namespace talon::cli
