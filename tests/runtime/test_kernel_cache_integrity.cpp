// A damaged kernel cache entry is never loaded: a library truncated, overwritten, emptied,
// changed by one byte, or without its checksum file is rebuilt (with a note) and the run goes
// on with the right physics; two processes filling the same entry at once both succeed and
// leave an entry that verifies. Each test has a cache directory of its own.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "cli/isolated_cache.h"
#include "cli/run_cli.h"
#include "runtime/runtime_fixtures.h"
#include "runtime/verified_entry.h"
#include "scratch_directory.h"

namespace talon {
namespace {

// The cheapest shipped model to compile: one sphere, one plane.
constexpr const char* kModel = "sphere_drop.xml";

codegen::TemporaryDirectory scratch() {
  return testing::scratch_directory("talon-cache-integrity-test-");
}

struct Run {
  bool from_cache = false;
  std::string notes;  // every note of Simulator::create, one per line
  std::vector<double> final_q;
};

// Builds the model through the cache in `directory` and drops the ball for 0.6 s, through
// its landing at 0.43 s. The simulator is gone on return, so its library is closed.
Run drop_ball(const std::filesystem::path& directory,
              runtime::UnitCompiler compiler = runtime::UnitCompiler::InProcess) {
  SimulatorOptions options = testing::test_options();
  options.cache.directory = directory;
  options.cache.unit_compiler = compiler;
  Expected<Simulator> sim = Simulator::create(testing::shipped_model(kModel), options);
  INFO(sim.diagnostics().format());
  REQUIRE(sim.ok());
  runtime::WorldBatch worlds = sim->make_worlds(1);
  sim->rollout(worlds, 0.05, 12);
  Run run{sim->library().from_cache(), "", worlds.q};
  for (const std::string& note : sim.diagnostics().notes()) run.notes += note + "\n";
  return run;
}

// The cache's one compiled unit, object file or library (the test fails unless there is
// exactly one).
std::filesystem::path only_library(const std::filesystem::path& directory) {
  std::vector<std::filesystem::path> libraries;
  for (const auto& file : std::filesystem::directory_iterator(directory))
    if (runtime::is_entry_file_name(file.path().filename().string()))
      libraries.push_back(file.path());
  REQUIRE(libraries.size() == 1);
  return libraries.front();
}

std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Rewrites the file in place, as damage outside the cache's rename protocol would.
void overwrite(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

bool verifies(const std::filesystem::path& library) {
  const std::optional<std::string> damage = runtime::entry_damage(library);
  INFO(damage.value_or(""));
  return !damage;
}

// The bodies' and joints' final state in `talon simulate --json` output (what precedes it
// includes timings).
std::string final_state(const std::string& json) {
  const std::size_t at = json.find("\"bodies\":");
  return at == std::string::npos ? "" : json.substr(at);
}

// The final positions in `talon simulate`'s text output.
std::string final_positions(const std::string& text) {
  const std::size_t at = text.find("final frame positions:");
  return at == std::string::npos ? "" : text.substr(at);
}

int count_files(const std::filesystem::path& directory) {
  return static_cast<int>(std::distance(std::filesystem::directory_iterator(directory),
                                        std::filesystem::directory_iterator()));
}

}  // namespace

TEST_CASE("a damaged cache entry is rebuilt and never loaded", "[runtime][cache]") {
  // Both kinds of entry: the in-process compiler's object file, the system compiler's library.
  const runtime::UnitCompiler compiler =
      GENERATE(runtime::UnitCompiler::InProcess, runtime::UnitCompiler::System);
  INFO((compiler == runtime::UnitCompiler::InProcess ? "object file" : "shared library"));
  const codegen::TemporaryDirectory cache = scratch();
  const Run fresh = drop_ball(cache.path(), compiler);
  REQUIRE_FALSE(fresh.from_cache);
  CHECK(fresh.notes.find("damaged") == std::string::npos);
  const std::filesystem::path library = only_library(cache.path());
  CHECK(std::filesystem::exists(runtime::checksum_path(library)));
  CHECK(verifies(library));
  const Run hit = drop_ball(cache.path(), compiler);
  CHECK(hit.from_cache);
  CHECK(hit.final_q == fresh.final_q);
  // The ball rests on the floor: its centre one radius up.
  CHECK(fresh.final_q[2] == Approx(0.1).margin(1e-3));

  const std::string good = read_bytes(library);
  std::string expected_reason;
  SECTION("truncated to 1 kB") {
    std::filesystem::resize_file(library, 1024);
    expected_reason = "it is 1024 bytes long, not " + std::to_string(good.size());
  }
  SECTION("overwritten with garbage of the same length") {
    overwrite(library, std::string(good.size(), '\x5a'));
    expected_reason = "its SHA-256 is ";
  }
  SECTION("emptied") {
    std::filesystem::resize_file(library, 0);
    expected_reason = "it is 0 bytes long";
  }
  SECTION("changed in one byte (neither dlopen nor the linker would notice)") {
    std::string changed = good;
    changed[changed.size() / 2] ^= 1;
    overwrite(library, changed);
    expected_reason = "its SHA-256 is ";
  }
  SECTION("without its checksum file") {
    std::filesystem::remove(runtime::checksum_path(library));
    expected_reason = "it has no checksum file";
  }
  SECTION("with a malformed checksum file") {
    overwrite(runtime::checksum_path(library), "12 not-a-checksum\n");
    expected_reason = "its checksum file is malformed";
  }
  REQUIRE_FALSE(verifies(library));

  const Run rebuilt = drop_ball(cache.path(), compiler);
  INFO(rebuilt.notes);
  CHECK_FALSE(rebuilt.from_cache);
  CHECK(rebuilt.notes.find(library.string() + ": note: the cached library was damaged (" +
                           expected_reason) != std::string::npos);
  CHECK(rebuilt.final_q == fresh.final_q);
  // Replaced whole: the entry verifies again, holds the same build, and nothing else is left.
  CHECK(verifies(library));
  CHECK(read_bytes(library) == good);
  CHECK(count_files(cache.path()) == 2);
  const Run after = drop_ball(cache.path(), compiler);
  CHECK(after.from_cache);
  CHECK(after.notes.find("damaged") == std::string::npos);
}

TEST_CASE("two processes filling the same cache entry at once both succeed", "[runtime][cache]") {
  const IsolatedCache cache;  // TALON_CACHE_DIR for both processes
  const codegen::TemporaryDirectory out = scratch();
  const std::string simulate = std::string(TALON_CLI_PATH) + " simulate " + TALON_MODELS_DIR + "/" +
                               kModel + " --time 0.6 --dt 0.05 --json";
  std::string command;
  for (const char* name : {"a", "b"}) {
    const std::string base = (out.path() / name).string();
    command +=
        "(" + simulate + " >" + base + ".out 2>" + base + ".err; echo $? >" + base + ".status) & ";
  }
  REQUIRE(std::system((command + "wait").c_str()) == 0);
  for (const char* name : {"a", "b"}) {
    INFO(name << ": " << slurp((out.path() / (std::string(name) + ".err")).string()));
    CHECK(slurp((out.path() / (std::string(name) + ".status")).string()) == "0\n");
  }
  // Both compiled (neither found the other's entry): the race this test is about happened.
  for (const char* name : {"a", "b"})
    CHECK(slurp((out.path() / (std::string(name) + ".out")).string())
              .find("\"kernel_cache_hit\":false") != std::string::npos);
  const std::string a = final_state(slurp((out.path() / "a.out").string()));
  CHECK_FALSE(a.empty());
  CHECK(a == final_state(slurp((out.path() / "b.out").string())));
  const std::filesystem::path library = only_library(cache.dir);
  CHECK(verifies(library));
  CHECK(count_files(cache.dir) == 2);  // the library and its checksum; no build left behind
}

TEST_CASE("talon simulate rebuilds a truncated cached library", "[runtime][cache][cli]") {
  const IsolatedCache cache;
  // Text output: --json keeps notes off stderr.
  const std::string args =
      std::string("simulate ") + TALON_MODELS_DIR + "/" + kModel + " --time 0.6 --dt 0.05";
  const CliResult first = run_talon(args);
  INFO(first.err);
  REQUIRE(first.status == 0);
  const std::filesystem::path library = only_library(cache.dir);
  std::filesystem::resize_file(library, 1024);
  const CliResult second = run_talon(args);
  INFO(second.err);
  CHECK(second.status == 0);  // before: killed by SIGBUS inside dlopen
  CHECK(second.err.find("the cached library was damaged (it is 1024 bytes long") !=
        std::string::npos);
  CHECK_FALSE(final_positions(first.out).empty());
  CHECK(final_positions(second.out) == final_positions(first.out));
  CHECK(verifies(library));
}

}  // namespace talon
