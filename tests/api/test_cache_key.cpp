// The same model and options give the same kernel cache entry from the API and from the `talon`
// command, however the model's path is spelled: a host never recompiles what the command built.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <talon/talon.h>

#include "cli/run_cli.h"

namespace api = talon::api;

namespace {

// An empty kernel cache of this test's own (TALON_CACHE_DIR for the `talon` runs meanwhile),
// removed afterwards.
class FreshCache {
 public:
  explicit FreshCache(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("talon-api-" + name + "-" + std::to_string(::getpid()))) {
    if (const char* previous = std::getenv("TALON_CACHE_DIR")) previous_ = previous;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
    ::setenv("TALON_CACHE_DIR", path_.c_str(), 1);
  }
  ~FreshCache() {
    std::filesystem::remove_all(path_);
    if (previous_)
      ::setenv("TALON_CACHE_DIR", previous_->c_str(), 1);
    else
      ::unsetenv("TALON_CACHE_DIR");
  }
  const std::filesystem::path& path() const { return path_; }
  int libraries() const {
    int count = 0;
    for (const auto& entry : std::filesystem::directory_iterator(path_))
      count += entry.path().extension() == ".a";
    return count;
  }

 private:
  std::filesystem::path path_;
  std::optional<std::string> previous_;
};

}  // namespace

TEST_CASE("the API with default options and talon simulate share a cache entry", "[api][cache]") {
  const FreshCache cache("cache-key");
  api::Options options;
  options.cache_directory = cache.path().string();
  api::Result<api::Simulator> sim =
      api::Simulator::load(std::string(TALON_MODELS_DIR) + "/sphere_drop.xml", options);
  INFO(sim.error().message);
  REQUIRE(sim.ok());
  CHECK_FALSE(sim->from_cache());
  CHECK(std::filesystem::exists(cache.path() / ("talon-" + sim->cache_key() + ".a")));

  // The same file by another path: the command finds the API's library.
  const CliResult run = run_talon("simulate " + std::string(TALON_MODELS_DIR) +
                                  "/../models/./sphere_drop.xml --steps 1 --json");
  INFO(run.err);
  REQUIRE(run.status == 0);
  CHECK(run.out.find("\"kernel_cache_hit\":true") != std::string::npos);
  CHECK(cache.libraries() == 1);
}

TEST_CASE("the API with gradients and talon gradient share a cache entry", "[api][cache]") {
  const FreshCache cache("gradient-cache-key");
  // A pushed cart: the smallest model with a control, which `talon gradient` needs.
  const std::string cart = TALON_TEST_DATA_DIR "/scenes/pushed_cart.xml";
  const std::string push = TALON_TEST_DATA_DIR "/scenes/pushed_cart.csv";
  api::Options options;
  options.cache_directory = cache.path().string();
  options.gradients = true;
  api::Result<api::Simulator> sim = api::Simulator::load(cart, options);
  INFO(sim.error().message);
  REQUIRE(sim.ok());
  REQUIRE(cache.libraries() == 1);

  const CliResult run = run_talon("gradient " + cart + " --ctrl " + push +
                                  " --steps 2 --loss final-pos:cart:x --json");
  INFO(run.err);
  REQUIRE(run.status == 0);
  CHECK(cache.libraries() == 1);  // the command compiled nothing new
}

TEST_CASE("the API's scene options and talon simulate's scene flags share a cache entry",
          "[api][cache]") {
  const FreshCache cache("scene-cache-key");
  api::Options options;
  options.cache_directory = cache.path().string();
  options.floating_base = true;
  options.ground = true;
  options.base_pos = std::array<double, 3>{0, 0, 0.08};
  options.actuate = {"left_wheel_joint=velocity:10", "right_wheel_joint=velocity:10"};
  const std::string urdf = std::string(TALON_MODELS_DIR) + "/three_wheeler.urdf";
  api::Result<api::Simulator> sim = api::Simulator::load(urdf, options);
  INFO(sim.error().message);
  REQUIRE(sim.ok());
  CHECK(sim->control_names() == std::vector<std::string>{"left_wheel_joint", "right_wheel_joint"});
  REQUIRE(cache.libraries() == 1);

  const CliResult run = run_talon("simulate " + urdf +
                                  " --floating-base --ground --base-pos 0,0,0.08 --actuate "
                                  "left_wheel_joint=velocity:10 --actuate "
                                  "right_wheel_joint=velocity:10 --steps 1 --json");
  INFO(run.err);
  REQUIRE(run.status == 0);
  CHECK(run.out.find("\"kernel_cache_hit\":true") != std::string::npos);
  CHECK(cache.libraries() == 1);

  // Another servo gain is another model: its own entry.
  const CliResult other = run_talon("simulate " + urdf +
                                    " --floating-base --ground --base-pos 0,0,0.08 --actuate "
                                    "left_wheel_joint=velocity:11 --actuate "
                                    "right_wheel_joint=velocity:10 --steps 1 --json");
  REQUIRE(other.status == 0);
  CHECK(other.out.find("\"kernel_cache_hit\":false") != std::string::npos);
  CHECK(cache.libraries() == 2);
}

TEST_CASE("a malformed API actuate text is an error naming it", "[api]") {
  api::Options options;
  options.floating_base = true;
  options.actuate = {"left_wheel_joint=velocity:0"};
  const api::Result<api::Simulator> sim =
      api::Simulator::load(std::string(TALON_MODELS_DIR) + "/three_wheeler.urdf", options);
  REQUIRE_FALSE(sim.ok());
  CHECK(sim.error().message ==
        "error: --actuate left_wheel_joint=velocity:0: the gain must be a positive number, not "
        "'0'\n");
  options.actuate = {"left_wheel_joint=velocity:10", "caster_joint=velocity:10"};
  const api::Result<api::Simulator> fixed =
      api::Simulator::load(std::string(TALON_MODELS_DIR) + "/three_wheeler.urdf", options);
  REQUIRE_FALSE(fixed.ok());
  CHECK(fixed.error().message.find("joint 'caster_joint' is fixed") != std::string::npos);
}
