// `talon cache`: the kernel cache's directory, entries, size and cap; --list and --clear.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "isolated_cache.h"
#include "run_cli.h"

TEST_CASE("talon cache shows, lists and clears the kernel cache") {
  const IsolatedCache cache;
  ::unsetenv("TALON_CACHE_MAX_MB");
  std::ofstream(cache.dir / "talon-0123.so") << std::string(2048, 'x');
  std::ofstream(cache.dir / "talon-4567.so") << std::string(1024, 'x');
  std::ofstream(cache.dir / "readme.txt") << "not an entry";

  const CliResult summary = run_talon("cache");
  INFO(summary.err);
  REQUIRE(summary.status == 0);
  CHECK(summary.out.find("kernel cache " + cache.dir.string()) != std::string::npos);
  CHECK(summary.out.find("2 entries, 3.0 KiB; cap 1024.0 MiB") != std::string::npos);

  const CliResult list = run_talon("cache --list");
  REQUIRE(list.status == 0);
  CHECK(list.out.find("2.0 KiB  talon-0123.so") != std::string::npos);
  CHECK(list.out.find("1.0 KiB  talon-4567.so") != std::string::npos);
  CHECK(list.out.find("readme.txt") == std::string::npos);

  CHECK(run_talon("cache --list --clear").status == 2);

  const CliResult clear = run_talon("cache --clear");
  REQUIRE(clear.status == 0);
  CHECK(clear.out.find("removed 2 entries (3.0 KiB) from " + cache.dir.string()) !=
        std::string::npos);
  CHECK(cache.libraries() == 0);
  CHECK(std::filesystem::exists(cache.dir / "readme.txt"));
  CHECK(run_talon("cache").out.find("0 entries, 0.0 KiB") != std::string::npos);
}

TEST_CASE("talon cache reports a malformed TALON_CACHE_MAX_MB") {
  const IsolatedCache cache;
  ::setenv("TALON_CACHE_MAX_MB", "lots", 1);
  const CliResult r = run_talon("cache");
  ::unsetenv("TALON_CACHE_MAX_MB");
  CHECK(r.status == 0);
  CHECK(r.out.find("TALON_CACHE_MAX_MB='lots' is not a whole number of MiB; the default 1024 "
                   "MiB applies") != std::string::npos);
}

TEST_CASE("talon cache shows a checksum file as part of its library's entry") {
  const IsolatedCache cache;
  ::unsetenv("TALON_CACHE_MAX_MB");
  std::ofstream(cache.dir / "talon-0123.so") << std::string(1024, 'x');
  std::ofstream(cache.dir / "talon-0123.so.sum") << std::string(1024, 'x');

  const CliResult list = run_talon("cache --list");
  INFO(list.err);
  REQUIRE(list.status == 0);
  CHECK(list.out.find("2.0 KiB  talon-0123.so\n") != std::string::npos);
  CHECK(list.out.find(".sum") == std::string::npos);
  CHECK(list.out.find("1 entry, 2.0 KiB") != std::string::npos);

  const CliResult clear = run_talon("cache --clear");
  REQUIRE(clear.status == 0);
  CHECK(clear.out.find("removed 1 entry (2.0 KiB)") != std::string::npos);
  CHECK(std::filesystem::is_empty(cache.dir));
}
