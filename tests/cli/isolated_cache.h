// A kernel cache directory of its own for the talon runs of one test (TALON_CACHE_DIR), so
// a test can tell whether anything was compiled and never touches a shared cache.
#pragma once

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <string>

struct IsolatedCache {
  std::filesystem::path dir;
  IsolatedCache() {
    dir =
        std::filesystem::temp_directory_path() / ("talon_cli_cache_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    ::setenv("TALON_CACHE_DIR", dir.c_str(), 1);
  }
  ~IsolatedCache() {
    ::unsetenv("TALON_CACHE_DIR");
    std::filesystem::remove_all(dir);
  }
  // Compiled units in the cache (archives of object files, or libraries of the system
  // compiler).
  int libraries() const {
    int count = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      count += entry.path().extension() == ".a" || entry.path().extension() == ".so";
    return count;
  }
};
