// Helpers shared by the runtime and physics tests: models from MJCF text, simulators that
// use a test-private kernel cache, and small state accessors.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "frontend/compile.h"
#include "frontend/load.h"
#include "frontend/scene_options.h"
#include "runtime/simulator.h"

namespace talon::testing {

// The model of an MJCF text, with the scene options `scene` added when given.
inline Model model_from_mjcf(const std::string& xml, const std::string& name = "test.xml",
                             const LoadOptions* scene = nullptr) {
  Expected<ModelSpec> spec = read_mjcf_string(xml, name, {});
  INFO(spec.diagnostics().format());
  REQUIRE(spec.ok());
  if (scene) {
    spec = with_scene_options(std::move(*spec), *scene);
    INFO(spec.diagnostics().format());
    REQUIRE(spec.ok());
  }
  Expected<Model> model = compile_model(*spec);
  INFO(model.diagnostics().format());
  REQUIRE(model.ok());
  return std::move(*model);
}

// A disc (I = m r²/2 = 0.005 kg m²) on a vertical hinge driven by a velocity servo (kv = 2);
// no gravity torque about the axis.
inline const char* const kSpinner = R"(
<mujoco model="spinner">
  <option timestep="0.01"/>
  <worldbody>
    <body name="disc" pos="0 0 1">
      <joint name="spin" type="hinge" axis="0 0 1"/>
      <geom type="cylinder" size="0.1 0.01" mass="1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <actuator><velocity name="motor" joint="spin" kv="2"/></actuator>
</mujoco>)";

// The index of the simulator's parameter `name` (e.g. "mass:box"); fails the test if none.
inline int param_index(const Simulator& sim, const std::string& name) {
  for (int i = 0; i < sim.nparam(); ++i)
    if (sim.program().param_info[i].name == name) return i;
  FAIL("no parameter " << name);
  return -1;
}

// The model at `path`, which must load.
inline Model loaded_model(const std::string& path, const LoadOptions& options = {}) {
  Expected<Model> model = load_model(path, options);
  INFO(model.diagnostics().format());
  REQUIRE(model.ok());
  return std::move(*model);
}

inline Model shipped_model(const std::string& file, const LoadOptions& options = {}) {
  return loaded_model(std::string(TALON_MODELS_DIR) + "/" + file, options);
}

// A scene of tests/data/scenes.
inline Model test_scene(const std::string& file) {
  return loaded_model(std::string(TALON_TEST_DATA_DIR) + "/scenes/" + file);
}

// The kernel cache of the test suites: shared by test runs (so a second run compiles
// nothing), apart from the user's own cache.
inline std::filesystem::path test_cache_directory() {
  return std::filesystem::temp_directory_path() / "talon-test-kernel-cache";
}

inline SimulatorOptions test_options() {
  SimulatorOptions options;
  options.cache.directory = test_cache_directory();
  options.threads = 2;
  return options;
}

inline Simulator make_simulator(Model model, const SimulatorOptions& options = test_options()) {
  Expected<Simulator> sim = Simulator::create(std::move(model), options);
  INFO(sim.diagnostics().format());
  REQUIRE(sim.ok());
  return std::move(*sim);
}

// Body b of world w: COM position, velocity (v), angular velocity (w).
inline Vec3 com(runtime::WorldBatch& worlds, int w, int b) {
  const auto q = worlds.q_of(w);
  return {q[7 * b], q[7 * b + 1], q[7 * b + 2]};
}
inline Vec3 velocity(runtime::WorldBatch& worlds, int w, int b) {
  const auto u = worlds.u_of(w);
  return {u[6 * b], u[6 * b + 1], u[6 * b + 2]};
}
inline Vec3 angular_velocity(runtime::WorldBatch& worlds, int w, int b) {
  const auto u = worlds.u_of(w);
  return {u[6 * b + 3], u[6 * b + 4], u[6 * b + 5]};
}

inline double smallest(const std::vector<double>& values) {
  double m = INFINITY;
  for (double v : values) m = std::min(m, v);
  return m;
}

}  // namespace talon::testing
