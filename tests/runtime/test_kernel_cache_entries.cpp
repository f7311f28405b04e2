// The kernel cache's entries: listing, least-recently-used eviction under a size cap,
// clearing, and eviction after a build (each test in its own temporary cache directory,
// never the shared test cache).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

#include "runtime/kernel_cache.h"
#include "runtime/kernel_cache_entries.h"
#include "runtime/verified_entry.h"
#include "scratch_directory.h"

namespace talon {
namespace {

using std::chrono::hours;
using FileClock = std::filesystem::file_time_type::clock;

codegen::TemporaryDirectory scratch() {
  return testing::scratch_directory("talon-cache-entries-test-");
}

// A fake entry of `bytes` bytes last used `age` ago.
std::filesystem::path make_entry(const std::filesystem::path& dir, const std::string& name,
                                 std::size_t bytes, FileClock::duration age) {
  const std::filesystem::path path = dir / name;
  std::ofstream(path, std::ios::binary) << std::string(bytes, 'x');
  std::filesystem::last_write_time(path, FileClock::now() - age);
  return path;
}

bool present(const std::filesystem::path& path) {
  return std::filesystem::exists(path);
}

}  // namespace

TEST_CASE("cache entries are listed least recently used first", "[runtime][cache]") {
  const codegen::TemporaryDirectory dir = scratch();
  make_entry(dir.path(), "talon-b.so", 200, hours(1));
  make_entry(dir.path(), "talon-a.so", 100, hours(3));
  make_entry(dir.path(), "notes.txt", 50, hours(5));  // not an entry
  const std::vector<runtime::CacheEntry> entries = runtime::list_cache_entries(dir.path());
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].path.filename() == "talon-a.so");
  CHECK(entries[1].path.filename() == "talon-b.so");
  CHECK(runtime::total_bytes(entries) == 300);
  CHECK(runtime::list_cache_entries(dir.path() / "missing").empty());
}

TEST_CASE("eviction removes the least recently used entries down to the cap", "[runtime][cache]") {
  const codegen::TemporaryDirectory dir = scratch();
  std::vector<std::filesystem::path> entries;  // oldest first
  for (int i = 0; i < 5; ++i)
    entries.push_back(
        make_entry(dir.path(), "talon-" + std::to_string(i) + ".so", 1000, hours(5 - i)));
  const runtime::RemovedEntries removed = runtime::evict_least_recently_used(dir.path(), 2500);
  CHECK(removed.count == 3);
  CHECK(removed.bytes == 3000);
  CHECK_FALSE(present(entries[0]));
  CHECK_FALSE(present(entries[1]));
  CHECK_FALSE(present(entries[2]));
  CHECK(present(entries[3]));
  CHECK(present(entries[4]));

  SECTION("a use makes an entry the newest") {
    runtime::mark_used(entries[3]);
    make_entry(dir.path(), "talon-5.so", 1000, std::chrono::minutes(30));
    runtime::evict_least_recently_used(dir.path(), 2000);
    CHECK(present(entries[3]));
    CHECK_FALSE(present(entries[4]));
  }
}

TEST_CASE("eviction spares the entry just built and entries in use", "[runtime][cache]") {
  const codegen::TemporaryDirectory dir = scratch();
  const auto oldest = make_entry(dir.path(), "talon-old.so", 1000, hours(9));
  const auto older = make_entry(dir.path(), "talon-older.so", 1000, hours(8));
  const auto fresh = make_entry(dir.path(), "talon-fresh.so", 1000, std::chrono::seconds(5));
  runtime::evict_least_recently_used(dir.path(), 0, oldest);
  CHECK(present(oldest));  // `keep`
  CHECK_FALSE(present(older));
  CHECK(present(fresh));  // used within the grace period: another process may open it now
}

TEST_CASE("clearing the cache removes entries and abandoned builds", "[runtime][cache]") {
  const codegen::TemporaryDirectory dir = scratch();
  make_entry(dir.path(), "talon-a.so", 100, hours(1));
  make_entry(dir.path(), "talon-b.so", 300, hours(0));
  const auto notes = make_entry(dir.path(), "notes.txt", 10, hours(0));
  const auto abandoned = dir.path() / ".talon-build-abc123";
  const auto running = dir.path() / ".talon-build-def456";
  std::filesystem::create_directories(abandoned);
  std::filesystem::create_directories(running);
  std::filesystem::last_write_time(abandoned, FileClock::now() - hours(2));
  const runtime::RemovedEntries removed = runtime::clear_cache(dir.path());
  CHECK(removed.count == 2);
  CHECK(removed.bytes == 400);
  CHECK(runtime::list_cache_entries(dir.path()).empty());
  CHECK_FALSE(present(abandoned));
  CHECK(present(running));  // may belong to a compile in progress
  CHECK(present(notes));
}

TEST_CASE("an entry's checksum file is counted, evicted and cleared with its library",
          "[runtime][cache]") {
  const codegen::TemporaryDirectory dir = scratch();
  const auto old = make_entry(dir.path(), "talon-old.so", 1000, hours(3));
  const auto old_sum = make_entry(dir.path(), "talon-old.so.sum", 80, hours(3));
  const auto fresh = make_entry(dir.path(), "talon-new.so", 1000, hours(2));
  const auto fresh_sum = make_entry(dir.path(), "talon-new.so.sum", 80, hours(2));
  // Checksums whose library is gone: an old one is litter, a young one may belong to a
  // library being renamed into place right now.
  const auto orphan = make_entry(dir.path(), "talon-gone.so.sum", 80, hours(2));
  const auto young_orphan = make_entry(dir.path(), "talon-coming.so.sum", 80, hours(0));
  const std::vector<runtime::CacheEntry> entries = runtime::list_cache_entries(dir.path());
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].bytes == 1080);
  CHECK(runtime::total_bytes(entries) == 2160);

  const runtime::RemovedEntries evicted = runtime::evict_least_recently_used(dir.path(), 1500);
  CHECK(evicted.count == 1);
  CHECK(evicted.bytes == 1080);
  CHECK_FALSE(present(old));
  CHECK_FALSE(present(old_sum));
  CHECK(present(fresh));
  CHECK(present(fresh_sum));
  CHECK_FALSE(present(orphan));
  CHECK(present(young_orphan));

  make_entry(dir.path(), "talon-gone.so.sum", 80, hours(2));
  const runtime::RemovedEntries cleared = runtime::clear_cache(dir.path());
  CHECK(cleared.count == 1);
  CHECK(cleared.bytes == 1080);
  CHECK_FALSE(present(fresh));
  CHECK_FALSE(present(fresh_sum));
  CHECK_FALSE(present(orphan));
  CHECK(present(young_orphan));
}

TEST_CASE("TALON_CACHE_MAX_MB sets the cap", "[runtime][cache]") {
  ::unsetenv("TALON_CACHE_MAX_MB");
  CHECK(*runtime::cache_size_limit() == runtime::kDefaultCacheMaxMegabytes << 20);
  ::setenv("TALON_CACHE_MAX_MB", "12", 1);
  CHECK(*runtime::cache_size_limit() == 12u << 20);
  ::setenv("TALON_CACHE_MAX_MB", "1.5GB", 1);
  const Expected<std::uintmax_t> bad = runtime::cache_size_limit();
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.diagnostics().format().find("TALON_CACHE_MAX_MB='1.5GB' is not a whole number") !=
        std::string::npos);
  ::unsetenv("TALON_CACHE_MAX_MB");
}

TEST_CASE("a build evicts old entries but keeps itself", "[runtime][cache]") {
  const codegen::TemporaryDirectory dir = scratch();
  const auto old = make_entry(dir.path(), "talon-old.so", 4096, hours(2));
  runtime::KernelCacheOptions options;
  options.directory = dir.path();
  options.max_bytes = 0;
  const std::string source = "int talon_cache_test_answer(void) { return 42; }\n";
  Expected<runtime::CompiledLibrary> built = runtime::load_or_compile(source, options);
  INFO(built.diagnostics().format());
  REQUIRE(built.ok());
  CHECK_FALSE(built->from_cache);
  CHECK(present(built->path));
  CHECK(present(runtime::checksum_path(built->path)));
  CHECK_FALSE(present(old));
  // A hit marks the entry used.
  std::filesystem::last_write_time(built->path, FileClock::now() - hours(3));
  Expected<runtime::CompiledLibrary> hit = runtime::load_or_compile(source, options);
  REQUIRE(hit.ok());
  CHECK(hit->from_cache);
  CHECK(std::filesystem::last_write_time(hit->path) > FileClock::now() - std::chrono::minutes(1));
}

// Kernels built from the IR are keyed by their IR (ir/fingerprint.h): another kernel, another
// entry, with the same text. Only the in-process compiler builds them.
TEST_CASE("a unit's kernels from the IR are part of its cache key", "[runtime][cache]") {
  ir::Graph graph;
  const ir::Expr x = graph.variable("x");
  const std::vector<ir::Function> twice{{"f", {x}, {x * 2.0}}}, thrice{{"f", {x}, {x * 3.0}}};
  const std::string source = "void talon_kernel_f(const double* in, double* out);\n";
  const runtime::KernelCacheOptions options;
  const std::string text_only = runtime::cache_key(source, options);
  const std::string with_twice = runtime::cache_key(source, options, {twice, "talon_kernel_"});
  CHECK(with_twice != text_only);
  CHECK(runtime::cache_key(source, options, {thrice, "talon_kernel_"}) != with_twice);
  CHECK(runtime::cache_key(source, options, {twice, "talon_kernel_"}) == with_twice);

  runtime::KernelCacheOptions system = options;
  system.unit_compiler = runtime::UnitCompiler::System;
  Expected<runtime::CompiledLibrary> refused =
      runtime::load_or_compile(source, system, {twice, "talon_kernel_"});
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.diagnostics().format(), Catch::Contains("in-process unit compiler"));
}

}  // namespace talon
