// A fresh temporary directory for one test, removed when the returned object goes away.
#pragma once

#include <catch2/catch.hpp>

#include <filesystem>

#include "codegen/temp_dir.h"

namespace talon::testing {

// `prefix` names the test in the directory's name, so a leftover one says whose it is.
inline codegen::TemporaryDirectory scratch_directory(const char* prefix) {
  Expected<codegen::TemporaryDirectory> dir =
      codegen::TemporaryDirectory::create(std::filesystem::temp_directory_path(), prefix);
  REQUIRE(dir.ok());
  return std::move(*dir);
}

}  // namespace talon::testing
