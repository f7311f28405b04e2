// Runs a program without a shell (no quoting pitfalls with user paths) and captures its
// combined stdout and stderr.
#pragma once

#include <filesystem>
#include <span>
#include <string>

#include "common/expected.h"

namespace talon::codegen {

struct ProcessResult {
  int exit_code = 0;   // the exit status; 128 + N when killed by signal N (as a shell reports)
  std::string output;  // stdout and stderr, interleaved as written
};

// Runs argv[0] (looked up on PATH) with the arguments argv[1..], stdin from /dev/null, the
// output written to `log_file` and read back. Failing to start the program is a diagnostic;
// a non-zero exit is not (the caller judges it).
Expected<ProcessResult> run_process(std::span<const std::string> argv,
                                    const std::filesystem::path& log_file);

// The arguments joined with spaces, for messages.
std::string command_line(std::span<const std::string> argv);

}  // namespace talon::codegen
