// Scene options (frontend/scene_options.h): a ground, the floating base's start and joint
// servos added to a spec after reading. The reference for each is what an MJCF file says
// itself: the shipped three-wheeler's URDF plus options must give the fields the MJCF scene of
// the same robot has (floor, start position, velocity servos), and a servo must compile to
// what MJCF's <position>/<velocity> element compiles to.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "frontend/compile.h"
#include "frontend/load.h"
#include "frontend/scene_options.h"

using namespace talon;

namespace {

const std::string kModelsDir = TALON_MODELS_DIR;
const std::string kUrdf = kModelsDir + "/three_wheeler.urdf";
const std::string kScene = kModelsDir + "/three_wheeler_scene.xml";

Model load_ok(const std::string& path, const LoadOptions& options = {}) {
  const Expected<Model> model = load_model(path, options);
  INFO(model.diagnostics().format());
  REQUIRE(model.ok());
  return *model;
}

JointServo servo(const std::string& text) {
  const Expected<JointServo> parsed = parse_joint_servo(text);
  INFO(parsed.diagnostics().format());
  REQUIRE(parsed.ok());
  return *parsed;
}

// The three-wheeler URDF as the MJCF scene has it: floating, on the ground, its centre 0.08 m
// up, velocity servos kv = 10 on both wheels.
LoadOptions three_wheeler_scene_options() {
  LoadOptions options;
  options.floating_base = true;
  options.ground = true;
  options.base_pos = Vec3(0, 0, 0.08);
  options.servos = {servo("left_wheel_joint=velocity:10"), servo("right_wheel_joint=velocity:10")};
  return options;
}

int geom_named(const Model& m, const std::string& name) {
  const auto at = std::find(m.geom_name.begin(), m.geom_name.end(), name);
  return at == m.geom_name.end() ? -1 : static_cast<int>(at - m.geom_name.begin());
}

// The one error of a failed load, formatted: it must be one line.
std::string only_error(const Diagnostics& diagnostics) {
  REQUIRE(diagnostics.error_count() == 1);
  for (const Diagnostic& d : diagnostics.items())
    if (d.severity == Severity::Error) return d.format();
  return {};
}

}  // namespace

TEST_CASE("a servo is read from JOINT=velocity:KV and JOINT=position:KP") {
  const JointServo velocity = servo("left_wheel_joint=velocity:10");
  CHECK(velocity.joint == "left_wheel_joint");
  CHECK(velocity.type == ActuatorType::Velocity);
  CHECK(velocity.gain == 10);
  const JointServo position = servo("arm:elbow=position:2.5e3");  // ':' in a joint name
  CHECK(position.joint == "arm:elbow");
  CHECK(position.type == ActuatorType::Position);
  CHECK(position.gain == 2500);
  CHECK(joint_servo_text(position) == "arm:elbow=position:2500");
}

TEST_CASE("a malformed servo text is one error that quotes it") {
  struct Case {
    std::string text, message;
  };
  const Case cases[] = {
      {"left_wheel_joint", "expected JOINT=velocity:KV or JOINT=position:KP"},
      {"=velocity:10", "expected JOINT=velocity:KV or JOINT=position:KP"},
      {"left_wheel_joint=velocity", "expected JOINT=velocity:KV or JOINT=position:KP"},
      {"left_wheel_joint=torque:10", "unknown servo 'torque' (velocity or position)"},
      {"left_wheel_joint=velocity:0", "the gain must be a positive number, not '0'"},
      {"left_wheel_joint=position:-5", "the gain must be a positive number, not '-5'"},
      {"left_wheel_joint=velocity:nan", "the gain must be a positive number, not 'nan'"},
      {"left_wheel_joint=velocity:inf", "the gain must be a positive number, not 'inf'"},
      {"left_wheel_joint=velocity:10x", "the gain must be a positive number, not '10x'"},
      {"left_wheel_joint=velocity:", "the gain must be a positive number, not ''"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const Expected<JointServo> parsed = parse_joint_servo(c.text);
    REQUIRE_FALSE(parsed.ok());
    const std::string error = only_error(parsed.diagnostics());
    CHECK(error == "error: --actuate " + c.text + ": " + c.message);
  }
}

TEST_CASE(
    "the URDF three-wheeler with scene options has the MJCF scene's floor, start and "
    "servos") {
  const Model urdf = load_ok(kUrdf, three_wheeler_scene_options());
  const Model mjcf = load_ok(kScene);

  // The ground: the MJCF floor (plane, friction="1", size 0 0 1), static.
  const int ground = geom_named(urdf, "ground");
  const int floor = geom_named(mjcf, "floor");
  REQUIRE(ground >= 0);
  REQUIRE(floor >= 0);
  CHECK(urdf.geom_type[ground] == GeomType::Plane);
  CHECK(urdf.geom_sim[ground] == -1);
  CHECK(urdf.geom_size[ground] == mjcf.geom_size[floor]);
  CHECK(urdf.geom_friction[ground] == mjcf.geom_friction[floor]);
  CHECK(urdf.geom_pose[ground].pos == mjcf.geom_pose[floor].pos);
  CHECK(urdf.geom_pose[ground].quat.coeffs() == mjcf.geom_pose[floor].quat.coeffs());
  CHECK(urdf.geom_condim[ground] == mjcf.geom_condim[floor]);
  CHECK(urdf.geom_contype[ground] == mjcf.geom_contype[floor]);
  CHECK(urdf.geom_conaffinity[ground] == mjcf.geom_conaffinity[floor]);

  // The start: the free joint's reference pose, then the wheels at 0.
  CHECK(urdf.qpos0 == mjcf.qpos0);

  // The servos: <velocity kv="10"> on the same joints, named after them.
  REQUIRE(urdf.nu == 2);
  REQUIRE(mjcf.nu == 2);
  CHECK(urdf.act_name == std::vector<std::string>{"left_wheel_joint", "right_wheel_joint"});
  for (int a = 0; a < 2; ++a) {
    CHECK(urdf.jnt_name[urdf.act_joint[a]] == mjcf.jnt_name[mjcf.act_joint[a]]);
    CHECK(urdf.act_type[a] == mjcf.act_type[a]);
    CHECK(urdf.act_gear[a] == mjcf.act_gear[a]);
    CHECK(urdf.act_gain[a] == mjcf.act_gain[a]);
    for (int k = 0; k < 3; ++k) CHECK(urdf.act_bias[3 * a + k] == mjcf.act_bias[3 * a + k]);
    CHECK_FALSE(urdf.act_ctrl_limited[a]);  // the MJCF's [-20, 20] is its own choice
    CHECK_FALSE(urdf.act_force_limited[a]);
  }
}

TEST_CASE("a position servo compiles as MJCF's <position kp>") {
  const std::string body = R"(<mujoco model="arm">
  <worldbody>
    <body name="link">
      <joint name="elbow" type="hinge" axis="0 1 0"/>
      <geom type="capsule" size="0.05 0.2" mass="1"/>
    </body>
  </worldbody>
)";
  const std::string with_actuator =
      body + R"(<actuator><position name="elbow" joint="elbow" kp="25"/></actuator></mujoco>)";
  const Expected<ModelSpec> written = read_mjcf_string(with_actuator, "arm.xml", {});
  const Expected<ModelSpec> bare = read_mjcf_string(body + "</mujoco>", "arm.xml", {});
  REQUIRE(written.ok());
  REQUIRE(bare.ok());
  LoadOptions options;
  options.servos = {servo("elbow=position:25")};
  const Expected<ModelSpec> served = with_scene_options(*bare, options);
  INFO(served.diagnostics().format());
  REQUIRE(served.ok());
  const Expected<Model> expected = compile_model(*written);
  const Expected<Model> actual = compile_model(*served);
  REQUIRE(expected.ok());
  REQUIRE(actual.ok());
  CHECK(actual->act_name == expected->act_name);
  CHECK(actual->act_type == expected->act_type);
  CHECK(actual->act_joint == expected->act_joint);
  CHECK(actual->act_gain == expected->act_gain);
  CHECK(actual->act_bias == expected->act_bias);
  CHECK(actual->act_gear == expected->act_gear);
}

TEST_CASE("scene options that cannot apply are one error each, naming the option") {
  struct Case {
    std::string name;
    LoadOptions options;
    std::string element, message;
  };
  LoadOptions floating;
  floating.floating_base = true;
  const auto with = [](LoadOptions options, auto edit) {
    edit(options);
    return options;
  };
  const Case cases[] = {
      {"unknown joint",
       with(floating, [](LoadOptions& o) { o.servos = {servo("front_wheel=velocity:10")}; }),
       "--actuate front_wheel=velocity:10",
       "no joint 'front_wheel' in the model (joints a servo can drive: left_wheel_joint, "
       "right_wheel_joint)"},
      {"fixed joint",
       with(floating, [](LoadOptions& o) { o.servos = {servo("caster_joint=position:5")}; }),
       "--actuate caster_joint=position:5",
       "joint 'caster_joint' is fixed (it does not move); a servo drives a revolute, continuous "
       "or prismatic joint"},
      {"free joint",
       with(floating, [](LoadOptions& o) { o.servos = {servo("floating_base=velocity:1")}; }),
       "--actuate floating_base=velocity:1",
       "joint 'floating_base' is free; a servo drives a revolute, continuous or prismatic joint"},
      {"the same joint twice",
       with(floating,
            [](LoadOptions& o) {
              o.servos = {servo("left_wheel_joint=velocity:10"),
                          servo("left_wheel_joint=position:3")};
            }),
       "--actuate left_wheel_joint=position:3",
       "joint 'left_wheel_joint' is given a servo more than once"},
      {"base position without a floating base",
       with({}, [](LoadOptions& o) { o.base_pos = Vec3(0, 0, 0.08); }), "--base-pos 0,0,0.08",
       "needs --floating-base (it places the free joint that flag adds)"},
      {"a base position that is not finite (the API passes it unchecked)",
       with(floating, [](LoadOptions& o) { o.base_pos = Vec3(0, NAN, 0.08); }),
       "--base-pos 0,nan,0.08", "the position must be three finite numbers"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const Expected<Model> model = load_model(kUrdf, c.options);
    REQUIRE_FALSE(model.ok());
    CHECK(only_error(model.diagnostics()) == kUrdf + ": error: " + c.element + ": " + c.message);
  }
}

TEST_CASE("a base position needs a floating root link: not a URDF pinned to 'world', not MJCF") {
  LoadOptions options;
  options.floating_base = true;
  options.base_pos = Vec3(0, 0, 1);
  const std::string pinned = R"(<robot name="pinned">
  <link name="world"/>
  <link name="arm"><inertial><mass value="1"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="world"/><child link="arm"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>)";
  const Expected<ModelSpec> spec = read_urdf_string(pinned, "pinned.urdf", options);
  REQUIRE(spec.ok());
  const Expected<ModelSpec> placed = with_scene_options(*spec, options);
  REQUIRE_FALSE(placed.ok());
  CHECK(only_error(placed.diagnostics())
            .find("--base-pos 0,0,1: the model has no floating base "
                  "to place") != std::string::npos);

  const Expected<Model> mjcf = load_model(kScene, options);
  REQUIRE_FALSE(mjcf.ok());
  CHECK(only_error(mjcf.diagnostics()).find("--base-pos is for URDF files") != std::string::npos);
}

TEST_CASE("an MJCF file takes --ground and --actuate too") {
  LoadOptions options;
  options.ground = true;
  options.servos = {servo("left_wheel_joint=position:7")};
  const Model scene = load_ok(kScene, options);
  CHECK(scene.nu == 3);
  CHECK(scene.act_name.back() == "left_wheel_joint");
  // The file's own geom is called "floor"; the added plane takes the name "ground".
  REQUIRE(geom_named(scene, "ground") >= 0);
  CHECK(scene.geom_type[geom_named(scene, "ground")] == GeomType::Plane);

  // An actuator of the file already has the servo's name.
  const std::string renamed = R"(<mujoco model="cart">
  <worldbody><body name="cart"><joint name="slide" type="slide" axis="1 0 0"/>
    <geom type="box" size="0.1 0.1 0.1" mass="1"/></body></worldbody>
  <actuator><motor name="slide" joint="slide"/></actuator>
</mujoco>)";
  LoadOptions slide;
  slide.servos = {servo("slide=velocity:1")};
  const Expected<ModelSpec> spec = read_mjcf_string(renamed, "cart.xml", {});
  REQUIRE(spec.ok());
  const Expected<ModelSpec> served = with_scene_options(*spec, slide);
  REQUIRE_FALSE(served.ok());
  CHECK(only_error(served.diagnostics()) ==
        "cart.xml: error: --actuate slide=velocity:1: the file already has an actuator named "
        "'slide'");
}

TEST_CASE("without scene options a model is as its file says") {
  const Model plain = load_ok(kUrdf, [] {
    LoadOptions o;
    o.floating_base = true;
    return o;
  }());
  CHECK(plain.nu == 0);
  CHECK(geom_named(plain, "ground") == -1);
  CHECK(plain.qpos0[2] == 0);  // the root link starts at the world origin
}

TEST_CASE("a terrain that cannot be stood on is one error naming the file") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "talon-test-scene-terrain";
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  LoadOptions options;
  options.floating_base = true;
  SECTION("a missing file") {
    options.terrain = (dir / "no_such_terrain.obj").string();
    const Expected<Model> model = load_model(kUrdf, options);
    CHECK(only_error(model.diagnostics()).find("no_such_terrain.obj") != std::string::npos);
  }
  SECTION("faces wound clockwise seen from above: none faces up") {
    options.terrain =
        write("upside_down.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 3 2\nf 1 4 3\n");
    const Expected<Model> model = load_model(kUrdf, options);
    const std::string error = only_error(model.diagnostics());
    CHECK(error.find("upside_down.obj") != std::string::npos);
    CHECK(error.find("no triangle of the terrain faces up") != std::string::npos);
  }
  SECTION("the same faces wound counter-clockwise load") {
    options.terrain =
        write("right_way_up.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 4\n");
    const Model model = load_ok(kUrdf, options);
    CHECK(std::count(model.geom_type.begin(), model.geom_type.end(), GeomType::Terrain) == 1);
  }
}
