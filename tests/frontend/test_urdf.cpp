// The URDF reader (frontend/urdf/): URDF semantics mapped onto ModelSpec, checked against
// values worked out by hand (rotations written out element by element, solid-body
// inertia formulas), and the URDF models Talon ships.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>

#include "frontend/compile.h"
#include "frontend/load.h"

using namespace talon;

namespace {

const std::string kUrdfDir = std::string(TALON_TEST_DATA_DIR) + "/urdf";
const std::string kModelsDir = TALON_MODELS_DIR;
constexpr double kPi = 3.141592653589793;

// A link with 1 kg and a unit-ish inertia, for links that must be able to move.
std::string massive_link(const std::string& name) {
  return "<link name='" + name +
         "'><inertial><mass value='1'/>"
         "<inertia ixx='0.1' ixy='0' ixz='0' iyy='0.1' iyz='0' izz='0.1'/></inertial></link>\n";
}

std::string joint_xml(const std::string& name, const std::string& type, const std::string& parent,
                      const std::string& child, const std::string& inner = "") {
  return "<joint name='" + name + "' type='" + type + "'><parent link='" + parent +
         "'/><child link='" + child + "'/>" + inner + "</joint>\n";
}

ModelSpec read_ok(const std::string& xml, const LoadOptions& options = {}) {
  const Expected<ModelSpec> result = read_urdf_string(xml, "mem.urdf", options);
  INFO(result.diagnostics().format());
  REQUIRE(result.ok());
  return *result;
}

Model compile_ok(const ModelSpec& spec) {
  const Expected<Model> model = compile_model(spec);
  INFO(model.diagnostics().format());
  REQUIRE(model.ok());
  return *model;
}

Model load_ok(const std::string& path, const LoadOptions& options = {}) {
  const Expected<Model> model = load_model(path, options);
  INFO(model.diagnostics().format());
  REQUIRE(model.ok());
  return *model;
}

int body_index(const ModelSpec& spec, const std::string& name) {
  for (std::size_t i = 0; i < spec.bodies.size(); ++i)
    if (spec.bodies[i].name == name) return static_cast<int>(i);
  return -1;
}

const JointSpec& joint_named(const ModelSpec& spec, const std::string& name) {
  for (const JointSpec& joint : spec.joints)
    if (joint.name == name) return joint;
  FAIL("no joint named " << name);
  throw;  // unreachable: FAIL throws
}

// Elementary rotations, written out so that the tests do not share the reader's code.
Mat3 rot_x(double a) {
  Mat3 r;
  r << 1, 0, 0, 0, std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a);
  return r;
}
Mat3 rot_y(double a) {
  Mat3 r;
  r << std::cos(a), 0, std::sin(a), 0, 1, 0, -std::sin(a), 0, std::cos(a);
  return r;
}
Mat3 rot_z(double a) {
  Mat3 r;
  r << std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a), 0, 0, 0, 1;
  return r;
}

// Element-wise |a - b| <= tol for any Eigen vectors or matrices of the same shape.
template <class A, class B>
bool near(const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b, double tol = 1e-12) {
  return (a - b).cwiseAbs().maxCoeff() <= tol;
}

// Solid-body inertias about the centre of mass (principal axes; cylinder axis along z).
Vec3 box_inertia(double m, const Vec3& size) {
  const Vec3 s = size.cwiseProduct(size);
  return m / 12 * Vec3(s.y() + s.z(), s.x() + s.z(), s.x() + s.y());
}
Vec3 cylinder_inertia(double m, double r, double length) {
  const double across = m * (3 * r * r + length * length) / 12;
  return {across, across, m * r * r / 2};
}

std::size_t count_notes_containing(const Diagnostics& diag, const std::string& text) {
  std::size_t count = 0;
  for (const std::string& note : diag.notes()) count += note.find(text) != std::string::npos;
  return count;
}

// Sets or clears ROS_PACKAGE_PATH for one scope, restoring it afterwards.
class ScopedRosPackagePath {
 public:
  explicit ScopedRosPackagePath(const std::optional<std::string>& value) {
    if (const char* old = std::getenv("ROS_PACKAGE_PATH")) saved_ = old;
    set(value);
  }
  ~ScopedRosPackagePath() { set(saved_); }

 private:
  static void set(const std::optional<std::string>& value) {
    if (value)
      setenv("ROS_PACKAGE_PATH", value->c_str(), 1);
    else
      unsetenv("ROS_PACKAGE_PATH");
  }
  std::optional<std::string> saved_;
};

}  // namespace

TEST_CASE("urdf: the inertia is rotated from the inertial frame into the link frame") {
  SECTION("a quarter turn about z swaps ixx and iyy") {
    const ModelSpec spec = read_ok(R"(<robot name='r'><link name='a'><inertial>
        <origin xyz='0.1 0.2 0.3' rpy='0 0 1.5707963267948966'/><mass value='2'/>
        <inertia ixx='1' ixy='0' ixz='0' iyy='2' iyz='0' izz='3'/></inertial></link></robot>)");
    REQUIRE(spec.bodies.size() == 1);
    const BodySpec& body = spec.bodies[0];
    CHECK(body.mass == 2);
    CHECK(near(body.com, Vec3(0.1, 0.2, 0.3)));
    CHECK(near(body.inertia, Vec3(2, 1, 3).asDiagonal().toDenseMatrix()));
    CHECK(body.inertial_origin.loc.line == 1);
  }
  SECTION("a general rotation: I_link = R I R^T with R = Rz(y) Ry(p) Rx(r)") {
    const ModelSpec spec = read_ok(R"(<robot name='r'><link name='a'><inertial>
        <origin xyz='0 0 0' rpy='0.3 -0.5 1.1'/><mass value='1'/>
        <inertia ixx='1' ixy='0.1' ixz='0.05' iyy='2' iyz='-0.2' izz='2.5'/>
        </inertial></link></robot>)");
    Mat3 inertia;
    inertia << 1, 0.1, 0.05, 0.1, 2, -0.2, 0.05, -0.2, 2.5;
    const Mat3 r = rot_z(1.1) * rot_y(-0.5) * rot_x(0.3);
    CHECK(near(spec.bodies[0].inertia, r * inertia * r.transpose()));
  }
  SECTION("a link without <inertial> has zero mass") {
    const ModelSpec spec = read_ok("<robot name='r'><link name='a'/></robot>");
    CHECK(spec.bodies[0].mass == 0);
    CHECK(spec.bodies[0].inertia.isZero());
  }
}

TEST_CASE("urdf: rpy is roll about x, then pitch about y, then yaw about z (fixed axes)") {
  const auto child_rotation = [](const std::string& rpy) {
    const ModelSpec spec =
        read_ok("<robot name='r'><link name='a'/>" + massive_link("b") +
                joint_xml("j", "fixed", "a", "b", "<origin rpy='" + rpy + "'/>") + "</robot>");
    return Mat3(spec.bodies.at(1).pose.quat.toRotationMatrix());
  };
  // R = Rz(pi/2) Rx(pi/2): x -> y, y -> z, z -> x.
  const Mat3 quarter = child_rotation("1.5707963267948966 0 1.5707963267948966");
  CHECK(near(quarter * Vec3::UnitX(), Vec3::UnitY()));
  CHECK(near(quarter * Vec3::UnitY(), Vec3::UnitZ()));
  CHECK(near(quarter * Vec3::UnitZ(), Vec3::UnitX()));
  CHECK(near(child_rotation("0.4 0.7 -1.3"), rot_z(-1.3) * rot_y(0.7) * rot_x(0.4)));
}

TEST_CASE("urdf: a joint origin places the child; the joint sits at the child's origin") {
  const ModelSpec spec =
      read_ok("<robot name='r'><link name='base'/>\n" + massive_link("arm") +
              joint_xml("j", "continuous", "base", "arm",
                        "<origin xyz='0.5 -0.25 1' rpy='0 0 0.5'/><axis xyz='0 0 1'/>") +
              "</robot>");
  REQUIRE(spec.bodies.size() == 2);
  const BodySpec& arm = spec.bodies[1];
  CHECK(arm.name == "arm");
  CHECK(arm.parent == 0);
  CHECK(near(arm.pose.pos, Vec3(0.5, -0.25, 1)));
  CHECK(near(Mat3(arm.pose.quat.toRotationMatrix()), rot_z(0.5)));
  REQUIRE(spec.joints.size() == 1);
  const JointSpec& joint = spec.joints[0];
  CHECK(joint.body == 1);
  CHECK(joint.pos.isZero());
  CHECK(near(joint.axis, Vec3::UnitZ()));
  CHECK(joint.origin.loc.file == "mem.urdf");
  CHECK(joint.origin.loc.line == 3);
  CHECK(joint.origin.element == "<joint name='j'>");
  CHECK(arm.origin.element == "<link name='arm'>");
  CHECK(arm.origin.loc.line == 2);
}

TEST_CASE("urdf: joint types, axes, limits and dynamics") {
  const ModelSpec spec = read_ok(
      "<robot name='r'><link name='base'/>" + massive_link("a") + massive_link("b") +
      massive_link("c") + massive_link("d") +
      joint_xml("rev", "revolute", "base", "a",
                "<axis xyz='0 0 2'/><limit lower='-1' upper='1.5' effort='3' velocity='4'/>"
                "<dynamics damping='0.5' friction='0.25'/>"
                "<safety_controller k_velocity='1'/><calibration rising='0'/>") +
      joint_xml("cont", "continuous", "base", "b",
                "<limit lower='-9' upper='9' effort='7' velocity='8'/>") +
      joint_xml("pris", "prismatic", "base", "c",
                "<axis xyz='0 1 0'/><limit lower='-0.2' upper='0.3' effort='1' velocity='1'/>") +
      joint_xml("fix", "fixed", "base", "d") + "</robot>");
  REQUIRE(spec.joints.size() == 4);
  const JointSpec& rev = joint_named(spec, "rev");
  CHECK(rev.type == JointType::Hinge);
  CHECK(near(rev.axis, Vec3(0, 0, 2)));  // normalised by compile, not the reader
  CHECK(rev.limited);
  CHECK(rev.range_lower == -1);
  CHECK(rev.range_upper == 1.5);
  CHECK(rev.effort_limit == 3);
  CHECK(rev.velocity_limit == 4);
  CHECK(rev.damping == 0.5);
  CHECK(rev.frictionloss == 0.25);
  const JointSpec& cont = joint_named(spec, "cont");
  CHECK(cont.type == JointType::Hinge);
  CHECK(near(cont.axis, Vec3::UnitX()));  // URDF's default axis
  CHECK_FALSE(cont.limited);              // a continuous joint's range is ignored
  CHECK(cont.effort_limit == 7);
  CHECK(cont.velocity_limit == 8);
  const JointSpec& pris = joint_named(spec, "pris");
  CHECK(pris.type == JointType::Slide);
  CHECK(near(pris.axis, Vec3::UnitY()));
  CHECK(pris.limited);
  CHECK(pris.range_lower == -0.2);
  CHECK(pris.range_upper == 0.3);
  CHECK(pris.damping == 0);
  CHECK(joint_named(spec, "fix").type == JointType::Fixed);
  CHECK(spec.notes.notes().empty());  // safety_controller and calibration are silent
}

TEST_CASE("urdf: floating and planar joints") {
  const ModelSpec spec =
      read_ok("<robot name='r'><link name='world'/>" + massive_link("base") + massive_link("puck") +
              joint_xml("float", "floating", "world", "base") +
              joint_xml("plane", "planar", "base", "puck", "<axis xyz='0 0 1'/>") + "</robot>");
  const JointSpec& floating = joint_named(spec, "float");
  CHECK(floating.type == JointType::Free);
  CHECK(spec.bodies.at(floating.body).parent == -1);
  const JointSpec& planar = joint_named(spec, "plane");
  CHECK(planar.type == JointType::Planar);
  CHECK(near(planar.axis, Vec3::UnitZ()));  // the plane's normal
  CHECK_FALSE(planar.limited);
  const Model model = compile_ok(spec);
  CHECK(model.nq == 7 + 3);
  CHECK(model.nv == 6 + 3);
}

TEST_CASE("urdf: mimic is recorded") {
  const ModelSpec spec = read_ok("<robot name='r'><link name='base'/>" + massive_link("a") +
                                 massive_link("b") + joint_xml("lead", "continuous", "base", "a") +
                                 joint_xml("follow", "continuous", "base", "b",
                                           "<mimic joint='lead' multiplier='-2' offset='0.1'/>") +
                                 "</robot>");
  const JointSpec& follow = joint_named(spec, "follow");
  CHECK(follow.mimic_joint == "lead");
  CHECK(follow.mimic_multiplier == -2);
  CHECK(follow.mimic_offset == 0.1);
  const JointSpec& lead = joint_named(spec, "lead");
  CHECK(lead.mimic_joint.empty());
  CHECK(lead.mimic_multiplier == 1);
  CHECK(compile_ok(spec).jnt_mimic.at(1) == "lead");
}

TEST_CASE("urdf: fixed joints stay in the spec and compile welds them") {
  // A fixed-base arm: base (root, fixed to the world) -> shoulder (hinge) -> tool (fixed).
  const ModelSpec spec =
      read_ok("<robot name='r'><link name='base'/>" + massive_link("arm") + massive_link("tool") +
              joint_xml("shoulder", "continuous", "base", "arm", "<axis xyz='0 1 0'/>") +
              joint_xml("weld", "fixed", "arm", "tool", "<origin xyz='1 0 0'/>") + "</robot>");
  REQUIRE(spec.joints.size() == 2);
  CHECK(joint_named(spec, "weld").type == JointType::Fixed);
  CHECK(spec.bodies[0].parent == -1);  // the root: no joint, fixed to the world
  const Model model = compile_ok(spec);
  CHECK(model.njnt == 1);
  CHECK(model.njnt_fixed == 1);
  CHECK(model.nsim == 1);  // arm and tool are one rigid body
  CHECK(model.sim_mass[0] == 2);
  CHECK(near(model.sim_com[0], Vec3(0.5, 0, 0)));
}

TEST_CASE("urdf: a root link named world is the world itself") {
  SECTION("without <inertial>: not a body, its children hang from the world") {
    const ModelSpec spec = read_ok(
        "<robot name='r'><link name='world'><collision><geometry><box size='10 10 0.1'/>"
        "</geometry></collision></link>" +
        massive_link("base") +
        joint_xml("anchor", "fixed", "world", "base", "<origin xyz='0 0 2'/>") + "</robot>");
    REQUIRE(spec.bodies.size() == 1);
    CHECK(spec.bodies[0].name == "base");
    CHECK(spec.bodies[0].parent == -1);
    CHECK(near(spec.bodies[0].pose.pos, Vec3(0, 0, 2)));
    REQUIRE(spec.joints.size() == 1);
    CHECK(spec.joints[0].type == JointType::Fixed);
    REQUIRE(spec.geoms.size() == 1);
    CHECK(spec.geoms[0].body == -1);  // a static geom of the world
  }
  SECTION("with <inertial> it is an ordinary link") {
    const ModelSpec spec = read_ok("<robot name='r'>" + massive_link("world") + "</robot>");
    REQUIRE(spec.bodies.size() == 1);
    CHECK(spec.bodies[0].name == "world");
  }
}

TEST_CASE("urdf: the root link is fixed to the world unless floating_base is set") {
  const std::string xml = "<robot name='r'>" + massive_link("base") + massive_link("wheel") +
                          joint_xml("axle", "continuous", "base", "wheel") + "</robot>";
  SECTION("fixed base: no joint on the root") {
    const ModelSpec spec = read_ok(xml);
    CHECK(spec.bodies[0].parent == -1);
    REQUIRE(spec.joints.size() == 1);
    CHECK(spec.joints[0].body == 1);
  }
  SECTION("floating base: a free joint on the root, first in joint order") {
    LoadOptions options;
    options.floating_base = true;
    const ModelSpec spec = read_ok(xml, options);
    REQUIRE(spec.joints.size() == 2);
    CHECK(spec.joints[0].type == JointType::Free);
    CHECK(spec.joints[0].name == "floating_base");
    CHECK(spec.joints[0].body == 0);
    const Model model = compile_ok(spec);
    CHECK(model.nq == 7 + 1);
    CHECK(model.nsim == 2);
  }
  SECTION("the free joint's name avoids the file's joint names") {
    LoadOptions options;
    options.floating_base = true;
    const ModelSpec spec =
        read_ok("<robot name='r'>" + massive_link("base") + massive_link("wheel") +
                    joint_xml("floating_base", "continuous", "base", "wheel") + "</robot>",
                options);
    CHECK(spec.joints[0].name == "floating_base_");
  }
  SECTION("a 'world' root ignores floating_base, with a note") {
    LoadOptions options;
    options.floating_base = true;
    const ModelSpec spec = read_ok("<robot name='r'><link name='world'/>" + massive_link("base") +
                                       joint_xml("anchor", "fixed", "world", "base") + "</robot>",
                                   options);
    REQUIRE(spec.joints.size() == 1);
    CHECK(spec.joints[0].type == JointType::Fixed);
    CHECK(count_notes_containing(spec.notes, "floating_base ignored") == 1);
  }
}

TEST_CASE("urdf: bodies are ordered depth-first from the root, children in joint order") {
  // Links declared out of order; tree: root -> {b, a}, b -> c, a -> d (joints in that order).
  const ModelSpec spec = read_ok(
      "<robot name='r'>" + massive_link("d") + massive_link("c") + massive_link("a") +
      massive_link("b") + "<link name='root'/>" + joint_xml("j1", "continuous", "root", "b") +
      joint_xml("j2", "continuous", "root", "a") + joint_xml("j3", "continuous", "b", "c") +
      joint_xml("j4", "continuous", "a", "d") + "</robot>");
  std::vector<std::string> names;
  std::vector<int> parents;
  for (const BodySpec& body : spec.bodies) {
    names.push_back(body.name);
    parents.push_back(body.parent);
  }
  CHECK(names == std::vector<std::string>{"root", "b", "c", "a", "d"});
  CHECK(parents == std::vector<int>{-1, 0, 1, 0, 3});
  std::vector<std::string> joints;
  for (const JointSpec& joint : spec.joints) joints.push_back(joint.name);
  CHECK(joints == std::vector<std::string>{"j1", "j3", "j2", "j4"});
  CHECK(spec.joints[1].body == body_index(spec, "c"));
}

TEST_CASE("urdf: collision shapes in MuJoCo's size convention; visuals are ignored") {
  const ModelSpec spec = read_ok(R"(<robot name='r'><link name='a'>
      <visual><geometry><box size='9 9 9'/></geometry></visual>
      <collision name='body'><origin xyz='0 0 0.1' rpy='1.5707963267948966 0 0'/>
        <geometry><box size='0.4 0.3 0.1'/></geometry></collision>
      <collision><geometry><sphere radius='0.2'/></geometry></collision>
      <collision><geometry><cylinder radius='0.1' length='0.6'/></geometry></collision>
      </link></robot>)");
  REQUIRE(spec.geoms.size() == 3);
  const GeomSpec& box = spec.geoms[0];
  CHECK(box.type == GeomType::Box);
  CHECK(box.name == "body");
  CHECK(near(box.size, Vec3(0.2, 0.15, 0.05)));
  CHECK(near(box.pose.pos, Vec3(0, 0, 0.1)));
  CHECK(near(Mat3(box.pose.quat.toRotationMatrix()), rot_x(kPi / 2)));
  CHECK(box.body == 0);
  CHECK(box.origin.loc.line == 3);
  CHECK(spec.geoms[1].type == GeomType::Sphere);
  CHECK(spec.geoms[1].size[0] == 0.2);
  CHECK(spec.geoms[2].type == GeomType::Cylinder);
  CHECK(near(spec.geoms[2].size, Vec3(0.1, 0.3, 0)));
}

TEST_CASE("urdf: a collision name used twice is kept once") {
  const ModelSpec spec = read_ok(
      "<robot name='r'><link name='a'><collision name='c'><geometry><sphere radius='1'/>"
      "</geometry></collision><collision name='c'><geometry><sphere radius='1'/></geometry>"
      "</collision></link></robot>");
  REQUIRE(spec.geoms.size() == 2);
  CHECK(spec.geoms[0].name == "c");
  CHECK(spec.geoms[1].name.empty());
  CHECK(count_notes_containing(spec.notes, "collision name 'c' is used more than once") == 1);
}

TEST_CASE("urdf: package:/// (three slashes, as in the talos files) is read as package://") {
  const ScopedRosPackagePath no_env(std::nullopt);
  LoadOptions options;
  options.package_paths = {kUrdfDir + "/pkgroot"};
  std::string links;
  for (const char* name : {"a", "b"})
    links += std::string("<link name='") + name +
             "'><collision><geometry><mesh filename='package:///my_robot/meshes/base.stl'/>"
             "</geometry></collision></link>";
  const ModelSpec spec =
      read_ok("<robot name='r'>" + links + joint_xml("w", "fixed", "a", "b") + "</robot>", options);
  REQUIRE(spec.geoms.size() == 2);
  for (const GeomSpec& geom : spec.geoms)
    CHECK(geom.mesh_file == kUrdfDir + "/pkgroot/my_robot/meshes/base.stl");
  CHECK(count_notes_containing(spec.notes,
                               "mesh file 'package:///my_robot/meshes/base.stl': "
                               "read package:/// ") == 1);  // once per file
  const Expected<ModelSpec> empty = read_urdf_string(
      "<robot name='r'><link name='a'><collision><geometry><mesh filename='package:///'/>"
      "</geometry></collision></link></robot>",
      "mem.urdf", options);
  CHECK_FALSE(empty.ok());
  CHECK_THAT(empty.diagnostics().format(), Catch::Contains("is not a valid package URI"));
}

TEST_CASE("urdf: mesh file names resolve: package://, ROS_PACKAGE_PATH, relative") {
  const std::string pkgroot = kUrdfDir + "/pkgroot";
  const std::string rospath = kUrdfDir + "/rospath";
  const std::string file = kUrdfDir + "/mesh_paths.urdf";
  SECTION("package_paths holding the packages") {
    const ScopedRosPackagePath no_env(std::nullopt);
    LoadOptions options;
    options.package_paths = {pkgroot, rospath};
    const Expected<ModelSpec> spec = read_urdf(file, options);
    INFO(spec.diagnostics().format());
    REQUIRE(spec.ok());
    REQUIRE(spec->geoms.size() == 3);
    for (const GeomSpec& geom : spec->geoms) CHECK(geom.type == GeomType::Mesh);
    CHECK(spec->geoms[0].mesh_file == pkgroot + "/my_robot/meshes/base.stl");
    CHECK(near(spec->geoms[0].mesh_scale, Vec3::Constant(0.001)));
    CHECK(spec->geoms[1].mesh_file == rospath + "/other_pkg/meshes/wheel.stl");
    CHECK(near(spec->geoms[1].mesh_scale, Vec3::Ones()));
    CHECK(spec->geoms[2].mesh_file == kUrdfDir + "/meshes/local.stl");
    CHECK(near(spec->geoms[2].pose.pos, Vec3(0, 0, 0.5)));
  }
  SECTION("a package path that is the package directory itself") {
    const ScopedRosPackagePath no_env(std::nullopt);
    LoadOptions options;
    options.package_paths = {pkgroot + "/my_robot/", rospath};
    const Expected<ModelSpec> spec = read_urdf(file, options);
    INFO(spec.diagnostics().format());
    REQUIRE(spec.ok());
    CHECK(spec->geoms[0].mesh_file == pkgroot + "/my_robot/meshes/base.stl");
  }
  SECTION("ROS_PACKAGE_PATH is searched after package_paths") {
    const ScopedRosPackagePath env("/nonexistent/talon::" + rospath + ":");
    LoadOptions options;
    options.package_paths = {pkgroot};
    const Expected<ModelSpec> spec = read_urdf(file, options);
    INFO(spec.diagnostics().format());
    REQUIRE(spec.ok());
    CHECK(spec->geoms[1].mesh_file == rospath + "/other_pkg/meshes/wheel.stl");
  }
  SECTION("without ROS_PACKAGE_PATH the second package is missing") {
    const ScopedRosPackagePath no_env(std::nullopt);
    LoadOptions options;
    options.package_paths = {pkgroot};
    const Expected<ModelSpec> spec = read_urdf(file, options);
    REQUIRE_FALSE(spec.ok());
    const std::string errors = spec.diagnostics().format();
    CHECK_THAT(errors, Catch::Contains("mesh_paths.urdf:12: error: <link name='base'>: mesh "
                                       "file 'package://other_pkg/meshes/wheel.stl' not found; "
                                       "searched: " +
                                       pkgroot + "/other_pkg/meshes/wheel.stl"));
  }
  SECTION("no package directory at all") {
    const ScopedRosPackagePath no_env(std::nullopt);
    const Expected<ModelSpec> spec = read_urdf(file, {});
    REQUIRE_FALSE(spec.ok());
    CHECK_THAT(spec.diagnostics().format(), Catch::Contains("no package directories to search"));
  }
}

TEST_CASE("urdf: file:// and absolute mesh paths") {
  const std::string mesh = kUrdfDir + "/meshes/local.stl";
  const auto mesh_robot = [](const std::string& filename) {
    return "<robot name='r'><link name='a'><collision><geometry><mesh filename='" + filename +
           "'/></geometry></collision></link></robot>";
  };
  CHECK(read_ok(mesh_robot("file://" + mesh)).geoms.at(0).mesh_file == mesh);
  CHECK(read_ok(mesh_robot(mesh)).geoms.at(0).mesh_file == mesh);
}

// Collision meshes are read: their convex hull (scaled) is what the geom collides with; a
// flat mesh has none; an empty or unreadable file is an error at the <mesh> line.
TEST_CASE("urdf: collision meshes are read into convex hulls") {
  const std::string assets = std::string(TALON_TEST_DATA_DIR) + "/mjcf/assets/";
  const auto mesh_robot = [](const std::string& filename) {
    return "<robot name='r'><link name='a'><collision><geometry>\n<mesh filename='" + filename +
           "' scale='2 1 0.5'/></geometry></collision></link></robot>";
  };
  const ModelSpec cube = read_ok(mesh_robot(assets + "cube.obj"));
  REQUIRE(cube.geoms.at(0).hull_vertices.size() == 8);
  for (const Vec3& v : cube.geoms[0].hull_vertices)
    CHECK(((v.array() == 0) || (v.array() == Eigen::Array3d(2, 1, 0.5))).all());
  CHECK(read_ok(mesh_robot(kUrdfDir + "/meshes/local.stl")).geoms.at(0).hull_vertices.empty());
  const Expected<ModelSpec> empty = read_urdf_string(mesh_robot(assets + "empty.stl"), "mem.urdf", {});
  REQUIRE_FALSE(empty.ok());
  CHECK_THAT(empty.diagnostics().format(),
             Catch::Contains("mem.urdf:2: error") && Catch::Contains("holds no triangle"));
}

TEST_CASE("urdf: a 100 000-link chain loads without recursion") {
  constexpr int kLinks = 100000;
  std::string xml = "<robot name='chain'>\n";
  xml.reserve(kLinks * 150);
  // Links in reverse order, so the body order must come from the joints. They are
  // massless to keep the test quick: the point is the depth of the tree.
  for (int i = kLinks - 1; i >= 0; --i) xml += "<link name='l" + std::to_string(i) + "'/>\n";
  for (int i = 1; i < kLinks; ++i)
    xml += joint_xml("j" + std::to_string(i), "continuous", "l" + std::to_string(i - 1),
                     "l" + std::to_string(i), "<origin xyz='0 0 -0.1'/><axis xyz='0 1 0'/>");
  xml += "</robot>\n";
  const ModelSpec spec = read_ok(xml);
  REQUIRE(spec.bodies.size() == kLinks);
  CHECK(spec.joints.size() == kLinks - 1);
  CHECK(spec.bodies.front().name == "l0");
  CHECK(spec.bodies.back().name == "l99999");
  CHECK(spec.bodies.back().parent == kLinks - 2);
  CHECK(spec.joints.back().body == kLinks - 1);
}

TEST_CASE("urdf: a link's <gazebo> mu1/mu2 is its collision geoms' friction") {
  const std::string ball =
      "<link name='ball'><collision><geometry><sphere radius='0.1'/></geometry></collision>"
      "<inertial><mass value='1'/><inertia ixx='0.1' ixy='0' ixz='0' iyy='0.1' iyz='0' "
      "izz='0.1'/></inertial></link>\n";
  const auto read_with = [&](const std::string& gazebo) {
    return read_ok("<robot name='r'>\n" + ball + gazebo + "</robot>");
  };
  const ModelSpec plain = read_with("");
  REQUIRE(plain.geoms.size() == 1);
  const ModelSpec slippery =
      read_with("<gazebo reference='ball'><mu1> 0.3 </mu1><mu2>0.3</mu2></gazebo>");
  CHECK(slippery.geoms[0].friction[0] == 0.3);
  CHECK(slippery.geoms[0].priority == 1);  // its own friction, not the larger of a pair's
  CHECK(slippery.geoms[0].condim == plain.geoms[0].condim);
  const ModelSpec frictionless = read_with("<gazebo reference='ball'><mu1>0</mu1></gazebo>");
  CHECK(frictionless.geoms[0].friction[0] == 0);
  CHECK(frictionless.geoms[0].condim == 1);
  const ModelSpec anisotropic =
      read_with("<gazebo reference='ball'><mu1>0.4</mu1><mu2>0.2</mu2></gazebo>");
  CHECK(anisotropic.geoms[0].friction[0] == 0.4);
  CHECK(count_notes_containing(anisotropic.notes, "is read as isotropic mu1") == 1);
  const ModelSpec elsewhere = read_with("<gazebo reference='wheel'><mu1>0</mu1></gazebo>");
  CHECK(elsewhere.geoms[0].friction == plain.geoms[0].friction);
  CHECK(count_notes_containing(elsewhere.notes, "names no link of this file; ignored") == 1);
}

TEST_CASE("urdf: unknown extension tags are skipped with one note per tag name") {
  const ModelSpec spec = read_ok(
      "<robot name='r'>\n"
      "<gazebo reference='a'><mu1>0.5</mu1></gazebo>\n" +
      massive_link("a") +
      "<gazebo><plugin name='p' filename='libp.so'/></gazebo>\n"
      "<transmission name='t'><type>x</type></transmission>\n"
      "<ros2_control name='c' type='system'/>\n"
      "<transmission name='u'/>\n"
      "<material name='grey'><color rgba='1 1 1 1'/></material>\n"
      "</robot>");
  const std::vector<std::string> notes = spec.notes.notes();
  CHECK(notes.size() == 3);
  CHECK(count_notes_containing(spec.notes,
                               "mem.urdf:2: note: <gazebo>: only a link's "
                               "<mu1>/<mu2> is read (as its friction)") == 1);
  CHECK(count_notes_containing(spec.notes,
                               "mem.urdf:5: note: <robot name='r'>: skipping "
                               "<transmission> (not used by Talon)") == 1);
  CHECK(count_notes_containing(spec.notes, "skipping <ros2_control>") == 1);
}

TEST_CASE("urdf: numbers: signs, exponents and any whitespace") {
  const ModelSpec spec = read_ok(
      "<robot name='r'><link name='a'/>" + massive_link("b") +
      joint_xml("j", "fixed", "a", "b", "<origin xyz='+1e-1\t-2.5E0\n  3.' rpy=' 0 0 0 '/>") +
      "</robot>");
  CHECK(near(spec.bodies[1].pose.pos, Vec3(0.1, -2.5, 3)));
}

TEST_CASE("urdf: comments, CDATA and declarations do not confuse the nesting guard") {
  std::string deep_looking;
  for (int i = 0; i < 100; ++i) deep_looking += "<x>";
  const ModelSpec spec =
      read_ok("<?xml version='1.0'?>\n<!DOCTYPE robot [ <!ENTITY e 'v'> ]>\n<!-- " + deep_looking +
              " -->\n<robot name='r'><link name='a'/>\n<gazebo><![CDATA[" + deep_looking +
              "]]><p attr='" + "&lt;x&gt;" + "'/></gazebo></robot>");
  CHECK(spec.bodies.size() == 1);
}

TEST_CASE("urdf: shipped cartpole.urdf") {
  const Expected<ModelSpec> spec = read_urdf(kModelsDir + "/cartpole.urdf", {});
  INFO(spec.diagnostics().format());
  REQUIRE(spec.ok());
  CHECK(spec->name == "cartpole");
  REQUIRE(spec->bodies.size() == 3);
  const BodySpec& cart = spec->bodies[body_index(*spec, "cart")];
  CHECK(cart.mass == 1);
  CHECK(near(cart.inertia.diagonal(), box_inertia(1, {0.3, 0.2, 0.1}), 1e-15));
  const BodySpec& pole = spec->bodies[body_index(*spec, "pole")];
  CHECK(pole.mass == 0.1);
  CHECK(near(pole.com, Vec3(0, 0, 0.25)));
  CHECK(near(pole.inertia.diagonal(), cylinder_inertia(0.1, 0.02, 0.5), 1e-15));
  const JointSpec& slider = joint_named(*spec, "slider");
  CHECK(slider.type == JointType::Slide);
  CHECK(near(slider.axis, Vec3::UnitX()));
  CHECK(slider.limited);
  CHECK(slider.range_lower == -2);
  CHECK(slider.range_upper == 2);
  const JointSpec& hinge = joint_named(*spec, "hinge");
  CHECK(hinge.type == JointType::Hinge);
  CHECK(near(hinge.axis, Vec3::UnitY()));
  CHECK_FALSE(hinge.limited);
  const Model model = load_ok(kModelsDir + "/cartpole.urdf");
  CHECK(model.njnt == 2);
  CHECK(model.nsim == 2);
  CHECK(model.total_mass() == Approx(1.1).epsilon(1e-12));
  CHECK(near(model.body_com_world[model.find_body("pole")], Vec3(0, 0, 0.4)));
  CHECK(model.ngeom == 3);
  CHECK(model.geom_sim[0] == -1);  // the rail is static
  CHECK(model.notes.empty());
}

TEST_CASE("urdf: shipped double_pendulum.urdf") {
  const Expected<ModelSpec> spec = read_urdf(kModelsDir + "/double_pendulum.urdf", {});
  INFO(spec.diagnostics().format());
  REQUIRE(spec.ok());
  REQUIRE(spec->bodies.size() == 3);  // base, link1, link2: "world" is the world
  CHECK(body_index(*spec, "world") == -1);
  CHECK(joint_named(*spec, "base_mount").type == JointType::Fixed);
  for (const char* name : {"shoulder", "elbow"}) {
    const JointSpec& joint = joint_named(*spec, name);
    CHECK(joint.type == JointType::Hinge);
    CHECK(near(joint.axis, Vec3::UnitY()));
    CHECK(joint.range_lower == -kPi);
    CHECK(joint.range_upper == kPi);
  }
  for (const char* name : {"link1", "link2"}) {
    const BodySpec& link = spec->bodies[body_index(*spec, name)];
    CHECK(link.mass == 1);
    CHECK(near(link.com, Vec3(0, 0, -0.25)));
    CHECK(near(link.inertia.diagonal(), cylinder_inertia(1, 0.02, 0.5), 1e-15));
  }
  const Model model = load_ok(kModelsDir + "/double_pendulum.urdf");
  CHECK(model.njnt == 2);
  CHECK(model.njnt_fixed == 1);
  CHECK(model.nsim == 2);
  CHECK(model.total_mass() == Approx(2).epsilon(1e-12));
  CHECK(near(model.body_pose_world[model.find_body("link1")].pos, Vec3(0, 0, 2)));
  CHECK(near(model.body_pose_world[model.find_body("link2")].pos, Vec3(0, 0, 1.5)));
  CHECK(near(model.body_com_world[model.find_body("link2")], Vec3(0, 0, 1.25)));
}

TEST_CASE("urdf: shipped three_wheeler.urdf (floating base)") {
  LoadOptions options;
  options.floating_base = true;
  const std::string path = kModelsDir + "/three_wheeler.urdf";
  const Expected<ModelSpec> spec = read_urdf(path, options);
  INFO(spec.diagnostics().format());
  REQUIRE(spec.ok());
  CHECK(spec->name == "three_wheeler");
  std::vector<std::string> bodies;
  for (const BodySpec& body : spec->bodies) bodies.push_back(body.name);
  CHECK(bodies == std::vector<std::string>{"base_link", "left_wheel", "right_wheel", "caster"});
  const BodySpec& base = spec->bodies[0];
  CHECK(base.mass == 4);
  CHECK(near(base.inertia.diagonal(), box_inertia(4, {0.4, 0.3, 0.1}), 1e-15));
  // Wheels: cylinders whose axis is y: the z-axis formula with y and z swapped.
  const Vec3 wheel = cylinder_inertia(0.5, 0.08, 0.04);
  for (const char* name : {"left_wheel", "right_wheel"}) {
    const BodySpec& body = spec->bodies[body_index(*spec, name)];
    CHECK(body.mass == 0.5);
    CHECK(near(body.inertia.diagonal(), Vec3(wheel.x(), wheel.z(), wheel.y()), 1e-15));
  }
  // The ball caster: a solid sphere (2/5 m r^2) on a fixed joint.
  const BodySpec& caster = spec->bodies[body_index(*spec, "caster")];
  CHECK(caster.mass == 0.2);
  CHECK(near(caster.inertia.diagonal(), Vec3::Constant(0.4 * 0.2 * 0.04 * 0.04), 1e-15));
  CHECK(near(spec->bodies[body_index(*spec, "left_wheel")].pose.pos, Vec3(0.1, 0.19, 0)));
  CHECK(near(spec->bodies[body_index(*spec, "right_wheel")].pose.pos, Vec3(0.1, -0.19, 0)));
  CHECK(near(caster.pose.pos, Vec3(-0.18, 0, -0.04)));
  CHECK(joint_named(*spec, "caster_joint").type == JointType::Fixed);
  // Collision cylinders lie along y, and every wheel reaches 0.08 m below the base origin.
  REQUIRE(spec->geoms.size() == 4);
  std::vector<std::string> geoms;
  for (const GeomSpec& geom : spec->geoms) geoms.push_back(geom.name);
  CHECK(geoms == std::vector<std::string>{"chassis", "left_wheel", "right_wheel", "caster"});
  for (const GeomSpec& geom : spec->geoms) {
    if (geom.type != GeomType::Cylinder) continue;
    CHECK(near((geom.pose.quat * Vec3::UnitZ()).cwiseAbs(), Vec3::UnitY()));
  }
  CHECK(spec->joints.at(0).type == JointType::Free);
  CHECK(count_notes_containing(spec->notes, "only a link's <mu1>/<mu2> is read") == 1);
  CHECK(count_notes_containing(spec->notes, "skipping <transmission>") == 1);
  CHECK(spec->notes.notes().size() == 2);

  const Model model = load_ok(path, options);
  CHECK(model.nq == 7 + 2);
  CHECK(model.nv == 6 + 2);
  CHECK(model.nsim == 3);  // the caster is welded into base_link
  CHECK(model.total_mass() == Approx(5.2).epsilon(1e-12));
  const Pose& caster_world = model.body_pose_world[model.find_body("caster")];
  CHECK(caster_world.pos.z() - 0.04 == Approx(-0.08).margin(1e-12));
  CHECK(model.notes.size() == 2);
}
