// `talon simulate` on a URDF robot in a scene: --floating-base --ground --base-pos --actuate,
// a control CSV whose header is the joint names, end to end against the same run in process.
#include <catch2/catch.hpp>

#include <fstream>

#include "cli/run_cli.h"
#include "runtime/runtime_fixtures.h"
#include "scratch_directory.h"

namespace talon {
namespace {

// The first number after `key` in a JSON text, and the next two ("com":[x,y,z]).
Vec3 json_vec3_after(const std::string& json, const std::string& key) {
  const std::size_t at = json.find("\"" + key + "\":[");
  REQUIRE(at != std::string::npos);
  Vec3 v;
  std::size_t pos = at + key.size() + 4;
  for (int i = 0; i < 3; ++i) {
    std::size_t used = 0;
    v[i] = std::stod(json.substr(pos), &used);
    pos += used + 1;  // the number and its ',' or ']'
  }
  return v;
}

}  // namespace

TEST_CASE(
    "talon simulate drives the URDF three-wheeler on the ground with --actuate and a "
    "joint-named CSV",
    "[runtime][cli][urdf]") {
  ::setenv("TALON_CACHE_DIR", testing::test_cache_directory().c_str(), 1);
  const codegen::TemporaryDirectory dir = testing::scratch_directory("talon-cli-urdf-scene-");
  const std::string ctrl = (dir.path() / "wheels.csv").string();
  {
    std::ofstream csv(ctrl);
    csv << "left_wheel_joint,right_wheel_joint\n";
    for (int k = 0; k < 20; ++k) csv << (k < 10 ? "1,3\n" : "3,1\n");  // left, then right
  }
  const std::string model = std::string(TALON_MODELS_DIR) + "/three_wheeler.urdf";
  const CliResult r = run_talon(
      "simulate " + model +
      " --floating-base --ground --base-pos 0,0,0.08 --actuate left_wheel_joint=velocity:10 "
      "--actuate right_wheel_joint=velocity:10 --ctrl " +
      ctrl + " --steps 20 --dt 0.1 --json");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(json_number(r.out, "diverged_worlds") == 0);
  CHECK(json_number(r.out, "unconverged_steps") == 0);

  // The same run in process, on the LoadOptions the flags stand for.
  LoadOptions options;
  options.floating_base = true;
  options.ground = true;
  options.base_pos = Vec3(0, 0, 0.08);
  options.servos = {{"left_wheel_joint", ActuatorType::Velocity, 10},
                    {"right_wheel_joint", ActuatorType::Velocity, 10}};
  const Simulator sim =
      testing::make_simulator(testing::shipped_model("three_wheeler.urdf", options));
  REQUIRE(sim.model().act_name ==
          std::vector<std::string>{"left_wheel_joint", "right_wheel_joint"});
  runtime::WorldBatch w = sim.make_worlds(1);
  for (int k = 0; k < 20; ++k) {
    w.ctrl_of(0)[0] = k < 10 ? 1 : 3;
    w.ctrl_of(0)[1] = k < 10 ? 3 : 1;
    sim.step(w, 0.1);
  }
  const Vec3 expected = testing::com(w, 0, 0);
  const Vec3 printed = json_vec3_after(r.out, "com");  // the first body's: base_link
  INFO("printed " << printed.transpose() << ", in process " << expected.transpose());
  CHECK((printed - expected).norm() < 1e-12);
  // The controls reached the wheels: it drove off the origin (0.16 m/s for 2 s at most), and
  // it stayed on the ground.
  CHECK(printed.x() > 0.1);
  CHECK(std::abs(printed.z() - sim.program().reference_q[2]) < 1e-3);
}

}  // namespace talon
