// Skipping a test so that ctest reports it as skipped, never as passed.
//
// Catch2 v2 has no skip: a test that returns early passes. TALON_SKIP prints a fixed marker
// line that tests/CMakeLists.txt gives ctest as SKIP_REGULAR_EXPRESSION, so the test shows as
// "Skipped" in ctest's summary whatever Catch2's exit status says. Skip a whole test case, at
// its top, before any assertion: ctest's verdict is the marker's alone, so a skip after
// assertions (or in one SECTION or GENERATE branch) would hide their failures.
#pragma once

#include <filesystem>
#include <iostream>

// Exactly this text is matched in tests/CMakeLists.txt.
#define TALON_SKIP_MARKER "TALON-SKIPPED"

// Ends the current test case as skipped, with `reason` (anything << can print) in the output.
#define TALON_SKIP(reason)                                      \
  do {                                                          \
    std::cout << TALON_SKIP_MARKER ": " << reason << std::endl; \
    return;                                                     \
  } while (false)

// Skips the current test case when the file it needs (an optional package's) is absent.
#define TALON_SKIP_IF_MISSING(path, package)                       \
  do {                                                             \
    if (!std::filesystem::exists(path))                            \
      TALON_SKIP((package) << " is not installed: no " << (path)); \
  } while (false)
