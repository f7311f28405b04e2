// Runs the `talon` executable and captures its exit status, stdout and stderr.
#pragma once

#include <sys/wait.h>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

struct CliResult {
  int status = -1;
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// Runs `ENVIRONMENT talon ARGS`: `environment` is shell variable assignments, each followed
// by a space ("PATH='' ").
inline CliResult run_talon_with_environment(const std::string& environment,
                                            const std::string& args) {
  static int counter = 0;
  const std::string base =
      "/tmp/talon_cli_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
  const std::string command = environment + std::string(TALON_CLI_PATH) + " " + args + " >" + base +
                              ".out 2>" + base + ".err";
  const int raw = std::system(command.c_str());
  CliResult result;
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  result.out = slurp(base + ".out");
  result.err = slurp(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return result;
}

// Runs `talon ARGS`, with PATH set to `path` when one is given.
inline CliResult run_talon_with_path(const std::optional<std::string>& path,
                                     const std::string& args) {
  return run_talon_with_environment(path ? "PATH='" + *path + "' " : std::string(), args);
}

inline CliResult run_talon(const std::string& args) {
  return run_talon_with_path(std::nullopt, args);
}

// The number after "key": in a flat JSON text (enough for the CLI's top-level fields).
inline double json_number(const std::string& json, const std::string& key) {
  const std::string needle = "\"" + key + "\":";
  const auto at = json.find(needle);
  if (at == std::string::npos) return -1e300;
  return std::stod(json.substr(at + needle.size()));
}
