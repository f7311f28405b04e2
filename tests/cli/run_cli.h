// Runs the `talon` executable and captures its exit status, stdout and stderr.
#pragma once

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

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

inline CliResult run_talon(const std::string& args) {
  static int counter = 0;
  const std::string base = "/tmp/talon_cli_test_" + std::to_string(::getpid()) + "_" +
                           std::to_string(counter++);
  const std::string command = std::string(TALON_CLI_PATH) + " " + args + " >" + base +
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

// The number after "key": in a flat JSON text (enough for the CLI's top-level fields).
inline double json_number(const std::string& json, const std::string& key) {
  const std::string needle = "\"" + key + "\":";
  const auto at = json.find(needle);
  if (at == std::string::npos) return -1e300;
  return std::stod(json.substr(at + needle.size()));
}
