// Unit tests of the MJCF reader: orientations, fromto, mass properties of every geom type
// against textbook formulas, default classes, includes, keyframes, excludes, actuators,
// and the order of bodies, joints and geoms. (The agreement with MuJoCo itself is
// tests/mujoco/test_mujoco_diff.cpp.)
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <string>

#include "frontend/load.h"
#include "frontend/mjcf/attributes.h"
#include "frontend/mjcf/geom_inertia.h"
#include "frontend/mjcf/orientation.h"
#include "frontend/xml_depth.h"

namespace {

using talon::Mat3;
using talon::Quat;
using talon::Vec3;
constexpr double kPi = std::numbers::pi;

talon::ModelSpec read(const std::string& xml, const std::string& path = "test.xml") {
  const talon::Expected<talon::ModelSpec> spec = talon::read_mjcf_string(xml, path, {});
  INFO(spec.diagnostics().format());
  REQUIRE(spec.ok());
  return *spec;
}

std::string read_error(const std::string& xml) {
  const talon::Expected<talon::ModelSpec> spec = talon::read_mjcf_string(xml, "test.xml", {});
  REQUIRE_FALSE(spec.ok());
  return spec.diagnostics().format();
}

// A model with one free body holding `body_content`.
std::string one_body(const std::string& body_content, const std::string& head = "") {
  return "<mujoco>" + head + "<worldbody><body name='b' pos='0 0 1'><freejoint/>" + body_content +
         "</body></worldbody></mujoco>";
}

bool same_rotation(const Quat& a, const Quat& b, double tol = 1e-12) {
  return std::abs(std::abs(a.normalized().dot(b.normalized())) - 1) < tol;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Quat about(const Vec3& axis, double angle) {
  return Quat(Eigen::AngleAxisd(angle, axis));
}

Vec3 principal(const Mat3& inertia) {
  return Eigen::SelfAdjointEigenSolver<Mat3>(inertia).eigenvalues();
}

// Checks a body's mass and principal moments (any order given, compared sorted).
void check_mass_properties(const talon::BodySpec& body, double mass, Vec3 moments) {
  CHECK(body.mass == Approx(mass).epsilon(1e-12));
  std::sort(moments.data(), moments.data() + 3);
  const Vec3 got = principal(body.inertia);
  for (int k = 0; k < 3; ++k) CHECK(got[k] == Approx(moments[k]).epsilon(1e-10));
}

}  // namespace

// ---- orientations -------------------------------------------------------------------

TEST_CASE("euler sequences: lower case rotates about moving axes, upper case fixed axes",
          "[mjcf]") {
  using talon::mjcf::euler_quat;
  const Vec3 a(0.3, -0.7, 1.1);
  const Quat x = about(Vec3::UnitX(), a[0]);
  const Quat y = about(Vec3::UnitY(), a[1]);
  const Quat z = about(Vec3::UnitZ(), a[2]);
  CHECK(same_rotation(euler_quat(a, "xyz"), x * y * z));
  CHECK(same_rotation(euler_quat(a, "XYZ"), z * y * x));
  CHECK(same_rotation(
      euler_quat(a, "zyx"),
      about(Vec3::UnitZ(), a[0]) * about(Vec3::UnitY(), a[1]) * about(Vec3::UnitX(), a[2])));
  // Mixed: x about the body axis, then Y about the fixed axis, then z about the body axis.
  CHECK(same_rotation(euler_quat(a, "xYz"), y * x * z));
  // Rotating xyz equals fixed ZYX with the angles reversed.
  CHECK(same_rotation(euler_quat(a, "xyz"), euler_quat(Vec3(a[2], a[1], a[0]), "ZYX")));
}

TEST_CASE("MJCF angles are degrees by default and radians with compiler angle='radian'", "[mjcf]") {
  const Quat quarter_turn_z = about(Vec3::UnitZ(), kPi / 2);
  const auto body_quat = [](const std::string& attrs, const std::string& compiler) {
    return read("<mujoco>" + compiler + "<worldbody><body " + attrs +
                "><freejoint/><geom size='0.1'/></body></worldbody></mujoco>")
        .bodies[0]
        .pose.quat;
  };
  CHECK(same_rotation(body_quat("euler='0 0 90'", ""), quarter_turn_z));
  CHECK(same_rotation(body_quat("axisangle='0 0 2 90'", ""), quarter_turn_z));
  CHECK(same_rotation(body_quat("euler='0 0 1.5707963267948966'", "<compiler angle='radian'/>"),
                      quarter_turn_z));
  CHECK(same_rotation(body_quat("euler='90 0 0'", "<compiler eulerseq='zyx'/>"), quarter_turn_z));
  // quat is normalised; xyaxes and zaxis need no angles.
  CHECK(same_rotation(body_quat("quat='2 0 0 2'", ""), quarter_turn_z));
  CHECK(same_rotation(body_quat("xyaxes='0 1 0 -1 0 0'", ""), quarter_turn_z));
  CHECK(same_rotation(body_quat("xyaxes='0 3 0 -1 1 0'", ""), quarter_turn_z));
}

TEST_CASE("zaxis is MuJoCo's minimal rotation taking z onto the axis", "[mjcf]") {
  using talon::mjcf::z_axis_quat;
  CHECK(same_rotation(z_axis_quat(Vec3::UnitX()), about(Vec3::UnitY(), kPi / 2)));
  CHECK(same_rotation(z_axis_quat(Vec3::UnitY()), about(Vec3::UnitX(), -kPi / 2)));
  CHECK(same_rotation(z_axis_quat(Vec3::UnitZ()), Quat::Identity()));
  // Straight down: MuJoCo picks the half turn about x.
  CHECK(same_rotation(z_axis_quat(-Vec3::UnitZ()), about(Vec3::UnitX(), kPi)));
  const Vec3 d = Vec3(1, -2, 0.5).normalized();
  CHECK((z_axis_quat(d) * Vec3::UnitZ() - d).norm() < 1e-14);
}

TEST_CASE("a default class orientation survives an element's quat (MuJoCo 2.2.2)", "[mjcf]") {
  const talon::ModelSpec spec =
      read(one_body("<geom type='box' size='0.1 0.2 0.3' quat='1 0 0 0'/>",
                    "<default><geom euler='90 0 0'/></default>"));
  CHECK(same_rotation(spec.geoms[0].pose.quat, about(Vec3::UnitX(), kPi / 2)));
}

TEST_CASE("degenerate orientations are errors", "[mjcf]") {
  CHECK(read_error(one_body("<geom size='0.1' axisangle='0 0 0 30'/>")).find("axis has zero") !=
        std::string::npos);
  CHECK(read_error(one_body("<geom size='0.1' xyaxes='1 0 0 2 0 0'/>")).find("parallel") !=
        std::string::npos);
  CHECK(read_error(one_body("<geom size='0.1' zaxis='0 0 0'/>")).find("zaxis has zero length") !=
        std::string::npos);
}

// ---- fromto ----------------------------------------------------------------------------

TEST_CASE("fromto places capsules and cylinders between the points", "[mjcf]") {
  const talon::ModelSpec spec =
      read(one_body("<geom type='capsule' fromto='0 0 0 0.6 0 0.8' size='0.05'/>"
                    "<geom type='cylinder' fromto='1 1 1 1 1 0' size='0.2'/>"));
  const talon::GeomSpec& capsule = spec.geoms[0];
  CHECK(capsule.type == talon::GeomType::Capsule);
  CHECK((capsule.pose.pos - Vec3(0.3, 0, 0.4)).norm() < 1e-15);
  CHECK(capsule.size[0] == 0.05);
  CHECK(capsule.size[1] == Approx(0.5));
  // The geom's z axis lies along the segment (MuJoCo points it from `to` towards `from`).
  CHECK((capsule.pose.quat * Vec3::UnitZ() - Vec3(-0.6, 0, -0.8)).norm() < 1e-12);
  const talon::GeomSpec& cylinder = spec.geoms[1];
  CHECK((cylinder.pose.pos - Vec3(1, 1, 0.5)).norm() < 1e-15);
  CHECK(cylinder.size[1] == Approx(0.5));
}

TEST_CASE("fromto boxes and ellipsoids take the given size for both cross axes", "[mjcf]") {
  const talon::ModelSpec spec =
      read(one_body("<geom type='box' fromto='0 0 0 0 0 0.4' size='0.1'/>"
                    "<geom type='ellipsoid' fromto='0 0 0 0.6 0 0' size='0.03'/>"));
  CHECK((spec.geoms[0].size - Vec3(0.1, 0.1, 0.2)).norm() < 1e-15);
  CHECK((spec.geoms[1].size - Vec3(0.03, 0.03, 0.3)).norm() < 1e-15);
  CHECK(read_error(one_body("<geom type='box' pos='1 0 0' fromto='0 0 0 0 0 1' size='0.1'/>"))
            .find("either 'pos' or 'fromto'") != std::string::npos);
  CHECK(read_error(one_body("<geom type='capsule' fromto='1 1 1 1 1 1' size='0.1'/>"))
            .find("coincide") != std::string::npos);
}

// ---- mass properties ---------------------------------------------------------------------
// Textbook solids, density 1000 kg/m^3 (MuJoCo's default), full dimensions below.

TEST_CASE("sphere mass and inertia", "[mjcf][inertia]") {
  const double r = 0.1, m = 1000 * 4.0 / 3 * kPi * r * r * r;
  const talon::ModelSpec spec = read(one_body("<geom type='sphere' size='0.1'/>"));
  check_mass_properties(spec.bodies[0], m, Vec3::Constant(0.4 * m * r * r));
}

TEST_CASE("box mass and inertia", "[mjcf][inertia]") {
  const double a = 0.2, b = 0.4, c = 0.6, m = 1000 * a * b * c;  // edge lengths
  const talon::ModelSpec spec = read(one_body("<geom type='box' size='0.1 0.2 0.3'/>"));
  check_mass_properties(
      spec.bodies[0], m,
      Vec3(m * (b * b + c * c) / 12, m * (a * a + c * c) / 12, m * (a * a + b * b) / 12));
}

TEST_CASE("cylinder mass and inertia", "[mjcf][inertia]") {
  const double r = 0.1, h = 0.6, m = 1000 * kPi * r * r * h;
  const talon::ModelSpec spec = read(one_body("<geom type='cylinder' size='0.1 0.3'/>"));
  const double transverse = m * (3 * r * r + h * h) / 12;
  check_mass_properties(spec.bodies[0], m, Vec3(transverse, transverse, m * r * r / 2));
}

TEST_CASE("ellipsoid mass and inertia", "[mjcf][inertia]") {
  const double a = 0.1, b = 0.2, c = 0.3, m = 1000 * 4.0 / 3 * kPi * a * b * c;  // semi-axes
  const talon::ModelSpec spec = read(one_body("<geom type='ellipsoid' size='0.1 0.2 0.3'/>"));
  check_mass_properties(
      spec.bodies[0], m,
      Vec3(m * (b * b + c * c) / 5, m * (a * a + c * c) / 5, m * (a * a + b * b) / 5));
}

TEST_CASE("capsule mass and inertia: a cylinder plus two hemispheres", "[mjcf][inertia]") {
  const double r = 0.1, h = 0.6;  // radius, cylinder length
  const double m_cylinder = 1000 * kPi * r * r * h;
  const double m_caps = 1000 * 4.0 / 3 * kPi * r * r * r;  // both hemispheres
  // A hemisphere's centre of mass is 3r/8 from its flat face; moving its inertia there
  // and then to the capsule centre (h/2 + 3r/8 away) gives, for both caps together,
  // m_caps (2r^2/5 + h^2/4 + 3hr/8) about a transverse axis.
  const double transverse =
      m_cylinder * (3 * r * r + h * h) / 12 + m_caps * (2 * r * r / 5 + h * h / 4 + 3 * h * r / 8);
  const double axial = m_cylinder * r * r / 2 + m_caps * 2 * r * r / 5;
  const talon::ModelSpec spec = read(one_body("<geom type='capsule' size='0.1 0.3'/>"));
  check_mass_properties(spec.bodies[0], m_cylinder + m_caps, Vec3(transverse, transverse, axial));
}

TEST_CASE("explicit geom mass overrides density; density scales mass", "[mjcf][inertia]") {
  const talon::ModelSpec with_mass = read(one_body("<geom type='sphere' size='0.1' mass='2'/>"));
  check_mass_properties(with_mass.bodies[0], 2, Vec3::Constant(0.4 * 2 * 0.01));
  const talon::ModelSpec with_density =
      read(one_body("<geom type='box' size='0.5 0.5 0.5' density='10'/>"));
  check_mass_properties(with_density.bodies[0], 10, Vec3::Constant(10 * 2.0 / 12));
}

TEST_CASE("several geoms combine about their common centre of mass", "[mjcf][inertia]") {
  // Two 1 kg spheres of radius 0.1 at x = -0.3 and x = +0.5: centre of mass x = 0.1.
  const talon::ModelSpec spec =
      read(one_body("<geom size='0.1' pos='-0.3 0 0' mass='1'/>"
                    "<geom size='0.1' pos='0.5 0 0' mass='1'/>"));
  const talon::BodySpec& body = spec.bodies[0];
  CHECK((body.com - Vec3(0.1, 0, 0)).norm() < 1e-15);
  const double own = 0.4 * 0.01;
  check_mass_properties(body, 2, Vec3(2 * own, 2 * own + 2 * 0.16, 2 * own + 2 * 0.16));
}

TEST_CASE("a rotated geom's inertia is rotated into the body frame", "[mjcf][inertia]") {
  const talon::ModelSpec spec =
      read(one_body("<geom type='box' size='0.1 0.2 0.3' mass='1' euler='0 0 90'/>"));
  const Mat3& inertia = spec.bodies[0].inertia;
  // The box's long y edge now lies along x: Ixx uses the x and z extents.
  CHECK(inertia(0, 0) == Approx((0.2 * 0.2 + 0.6 * 0.6) / 12));
  CHECK(inertia(1, 1) == Approx((0.4 * 0.4 + 0.6 * 0.6) / 12));
  CHECK(std::abs(inertia(0, 1)) < 1e-15);
}

TEST_CASE("explicit <inertial>: diaginertia with orientation, and fullinertia", "[mjcf][inertia]") {
  const talon::ModelSpec diag =
      read(one_body("<inertial pos='0.1 0 0' mass='3' diaginertia='0.1 0.2 0.3' euler='0 0 90'/>"
                    "<geom size='0.5'/>"));
  const talon::BodySpec& body = diag.bodies[0];
  CHECK(body.mass == 3);
  CHECK((body.com - Vec3(0.1, 0, 0)).norm() < 1e-15);
  CHECK(body.inertia(0, 0) == Approx(0.2));
  CHECK(body.inertia(1, 1) == Approx(0.1));
  CHECK(body.inertia(2, 2) == Approx(0.3));
  CHECK(body.inertial_origin.loc.line == 1);
  CHECK(body.inertial_origin.element == "<inertial>");
  const talon::ModelSpec full =
      read(one_body("<inertial pos='0 0 0' mass='1' fullinertia='0.3 0.2 0.25 0.01 -0.02 0.03'/>"));
  Mat3 expected;
  expected << 0.3, 0.01, -0.02, 0.01, 0.2, 0.03, -0.02, 0.03, 0.25;
  CHECK((full.bodies[0].inertia - expected).norm() < 1e-15);
}

TEST_CASE("compiler inertiafromgeom and inertiagrouprange choose the inertia's source",
          "[mjcf][inertia]") {
  const std::string body =
      "<inertial pos='0 0 0' mass='5' diaginertia='1 1 1'/><geom size='0.1' mass='2'/>"
      "<geom size='0.1' mass='7' group='4'/>";
  CHECK(read(one_body(body)).bodies[0].mass == 5);  // auto: the <inertial> wins
  CHECK(read(one_body(body, "<compiler inertiafromgeom='true'/>")).bodies[0].mass == 9);
  CHECK(read(one_body(body, "<compiler inertiafromgeom='true' inertiagrouprange='0 3'/>"))
            .bodies[0]
            .mass == 2);
  CHECK(
      read(one_body("<geom size='0.1'/>", "<compiler inertiafromgeom='false'/>")).bodies[0].mass ==
      0);
}

TEST_CASE("boundmass, boundinertia, balanceinertia and settotalmass", "[mjcf][inertia]") {
  const talon::ModelSpec bounded =
      read(one_body("<geom size='0.01'/>", "<compiler boundmass='1' boundinertia='0.5'/>"));
  check_mass_properties(bounded.bodies[0], 1, Vec3::Constant(0.5));
  const talon::ModelSpec balanced = read(one_body(
      "<inertial pos='0 0 0' mass='1' diaginertia='1 1 4'/>", "<compiler balanceinertia='true'/>"));
  check_mass_properties(balanced.bodies[0], 1, Vec3::Constant(2));
  const talon::ModelSpec scaled =
      read(one_body("<geom size='0.1' mass='1'/><body><geom size='0.1' mass='3'/></body>",
                    "<compiler settotalmass='8'/>"));
  CHECK(scaled.bodies[0].mass == Approx(2));
  CHECK(scaled.bodies[1].mass == Approx(6));
  CHECK(principal(scaled.bodies[1].inertia)[0] == Approx(2 * 0.4 * 3 * 0.01));
}

TEST_CASE("geom volume and inertia helpers match the solids' formulas", "[mjcf][inertia]") {
  using talon::mjcf::geom_mass;
  using talon::mjcf::geom_volume;
  using talon::mjcf::MjcfGeomType;
  CHECK(geom_volume(MjcfGeomType::Box, Vec3(1, 2, 3)) == 48);
  CHECK(geom_volume(MjcfGeomType::Cylinder, Vec3(1, 2, 0)) == Approx(4 * kPi));
  CHECK(geom_volume(MjcfGeomType::Plane, Vec3(1, 1, 1)) == 0);
  // MuJoCo's mass rule: explicit mass 0 is massless; a plane has no volume, so no mass.
  CHECK(geom_mass(MjcfGeomType::Sphere, Vec3(1, 0, 0), 0.0, 1000) == 0);
  CHECK(geom_mass(MjcfGeomType::Plane, Vec3(1, 1, 1), 5.0, 1000) == 0);
  CHECK(geom_mass(MjcfGeomType::Box, Vec3(1, 1, 1), std::nullopt, 2) == 16);
  CHECK_FALSE(talon::mjcf::combine_geoms({{0, Vec3::Zero(), Quat::Identity(), Vec3::Zero()},
                                          {0, Vec3::UnitX(), Quat::Identity(), Vec3::Zero()}}));
}

// ---- defaults -----------------------------------------------------------------------------

TEST_CASE("default classes nest, childclass is inherited, class overrides it", "[mjcf][defaults]") {
  const talon::ModelSpec spec = read(R"(
    <mujoco>
      <default>
        <joint damping="1" armature="0.5"/>
        <geom type="box" size="0.1 0.2 0.3" friction="0.7"/>
        <default class="soft">
          <joint damping="2"/>
          <geom size="0.5"/>
          <default class="softer"><joint stiffness="9"/></default>
        </default>
      </default>
      <worldbody>
        <body name="root" childclass="soft">
          <freejoint/>
          <geom/>
          <body name="child">
            <joint name="inherits_soft"/>
            <geom class="main"/>
            <body name="grandchild" childclass="softer">
              <joint name="softer_joint"/>
              <joint name="main_joint" class="main"/>
              <geom size="0.1 0.1 0.1"/>
            </body>
          </body>
        </body>
      </worldbody>
    </mujoco>)");
  REQUIRE(spec.joints.size() == 4);
  // <freejoint> takes no defaults at all.
  CHECK(spec.joints[0].damping == 0);
  CHECK(spec.joints[0].armature == 0);
  CHECK(spec.joints[1].damping == 2);
  CHECK(spec.joints[1].armature == 0.5);  // inherited from main through soft
  CHECK(spec.joints[2].damping == 2);
  CHECK(spec.joints[2].stiffness == 9);
  CHECK(spec.joints[3].damping == 1);
  CHECK(spec.joints[3].stiffness == 0);
  // size="0.5" in class soft replaces only the first size of main's box.
  CHECK((spec.geoms[0].size - Vec3(0.5, 0.2, 0.3)).norm() < 1e-15);
  CHECK((spec.geoms[1].size - Vec3(0.1, 0.2, 0.3)).norm() < 1e-15);
  CHECK(spec.geoms[0].friction[0] == 0.7);
  CHECK(spec.geoms[0].friction[1] == 0.005);  // MuJoCo's default torsional friction
}

TEST_CASE("actuators share one default per class, as in MuJoCo", "[mjcf][defaults]") {
  const talon::ModelSpec spec = read(R"(
    <mujoco>
      <default>
        <motor ctrllimited="true" ctrlrange="-1 1"/>
        <default class="servo"><position kp="7"/></default>
      </default>
      <worldbody>
        <body><joint name="j"/><geom size="0.1"/></body>
      </worldbody>
      <actuator>
        <motor name="m" joint="j" gear="3"/>
        <velocity name="v" class="servo" joint="j" gear="2"/>
        <position name="p" class="servo" joint="j" gear="2"/>
        <general name="g" joint="j" gainprm="5" biastype="affine" biasprm="1 -2 -3" gear="4"/>
      </actuator>
    </mujoco>)");
  REQUIRE(spec.actuators.size() == 4);
  const talon::ActuatorSpec& m = spec.actuators[0];
  CHECK(m.type == talon::ActuatorType::Motor);
  CHECK(m.gear == 3);
  CHECK(m.gain == 1);
  CHECK(m.ctrl_limited);
  CHECK(m.ctrl_lower == -1);
  CHECK(m.bias == std::array<double, 3>{0, 0, 0});
  // <velocity> without kv keeps the class's gainprm[0] = kp = 7 as its gain.
  const talon::ActuatorSpec& v = spec.actuators[1];
  CHECK(v.gain == 7);
  CHECK(v.bias == std::array<double, 3>{0, 0, -7 * 2});  // MuJoCo's bias acts on gear * qdot
  CHECK(spec.actuators[2].bias == std::array<double, 3>{0, -7 * 2, 0});
  const talon::ActuatorSpec& g = spec.actuators[3];
  CHECK(g.gain == 5);
  CHECK(g.bias == std::array<double, 3>{1, -2 * 4, -3 * 4});
}

// ---- joints -------------------------------------------------------------------------------

TEST_CASE("joint ranges and references: degrees for hinges and balls only", "[mjcf]") {
  const talon::ModelSpec spec = read(R"(
    <mujoco>
      <worldbody>
        <body>
          <joint name="hinge" limited="true" range="-90 45" ref="30" springref="-60"/>
          <joint name="slide" type="slide" limited="true" range="-0.5 0.25" ref="0.1"/>
          <geom size="0.1"/>
        </body>
        <body><joint name="ball" type="ball" limited="true" range="0 60"/><geom size="0.1"/></body>
      </worldbody>
    </mujoco>)");
  const talon::JointSpec& hinge = spec.joints[0];
  CHECK(hinge.limited);
  CHECK(hinge.range_lower == Approx(-kPi / 2));
  CHECK(hinge.range_upper == Approx(kPi / 4));
  CHECK(hinge.ref == Approx(kPi / 6));
  CHECK(hinge.springref == Approx(-kPi / 3));
  CHECK(spec.joints[1].range_lower == -0.5);
  CHECK(spec.joints[1].ref == 0.1);
  CHECK(spec.joints[2].type == talon::JointType::Ball);
  CHECK(spec.joints[2].range_upper == Approx(kPi / 3));
}

TEST_CASE("autolimits: a range without 'limited' needs compiler autolimits='true'", "[mjcf]") {
  const std::string body = "<body><joint range='-1 1'/><geom size='0.1'/></body>";
  CHECK(read_error("<mujoco><worldbody>" + body + "</worldbody></mujoco>")
            .find("has 'range' but not 'limited'") != std::string::npos);
  const talon::ModelSpec spec = read(
      "<mujoco><compiler autolimits='true' angle='radian'/>"
      "<worldbody>" +
      body + "</worldbody></mujoco>");
  CHECK(spec.joints[0].limited);
  CHECK(spec.joints[0].range_upper == 1);
}

// ---- order and origins ---------------------------------------------------------------------

TEST_CASE("bodies, joints and geoms come in MuJoCo's order", "[mjcf]") {
  const talon::ModelSpec spec = read(R"(<mujoco>
      <worldbody>
        <body name="a">
          <joint name="ja"/>
          <body name="a1"><joint name="ja1"/><geom name="ga1" size="0.1"/></body>
          <geom name="ga" size="0.1"/>
          <body name="a2"><joint name="ja2"/><geom name="ga2" size="0.1"/></body>
        </body>
        <geom name="world1" type="plane" size="1 1 1"/>
      </worldbody>
      <worldbody>
        <body name="b"><joint name="jb"/><geom name="gb" size="0.1"/></body>
        <geom name="world2" type="plane" size="1 1 1"/>
      </worldbody>
    </mujoco>)");
  std::vector<std::string> bodies, joints, geoms;
  for (const auto& b : spec.bodies) bodies.push_back(b.name);
  for (const auto& j : spec.joints) joints.push_back(j.name);
  for (const auto& g : spec.geoms) geoms.push_back(g.name);
  CHECK(bodies == std::vector<std::string>{"a", "a1", "a2", "b"});
  CHECK(spec.bodies[1].parent == 0);
  CHECK(spec.bodies[3].parent == -1);
  CHECK(joints == std::vector<std::string>{"ja", "ja1", "ja2", "jb"});
  CHECK(geoms == std::vector<std::string>{"world1", "world2", "ga", "ga1", "ga2", "gb"});
  CHECK(spec.geoms[0].body == -1);
  CHECK(spec.geoms[2].body == 0);
}

TEST_CASE("every spec element carries its file, line and element", "[mjcf]") {
  const talon::ModelSpec spec = read(
      "<mujoco>\n<worldbody>\n<body name='b'>\n<joint name='j'/>\n"
      "<geom size='0.1'/>\n</body>\n</worldbody>\n</mujoco>",
      "dir/model.xml");
  CHECK(spec.bodies[0].origin.loc.file == "dir/model.xml");
  CHECK(spec.bodies[0].origin.loc.line == 3);
  CHECK(spec.bodies[0].origin.element == "<body name='b'>");
  CHECK(spec.joints[0].origin.loc.line == 4);
  CHECK(spec.joints[0].origin.element == "<joint name='j'>");
  CHECK(spec.geoms[0].origin.loc.line == 5);
  CHECK(spec.geoms[0].origin.element == "<geom>");
}

// ---- includes, keyframes, excludes, meshes, notes ------------------------------------------

TEST_CASE("includes nest, resolved against the including file's directory", "[mjcf]") {
  const std::string path = std::string(TALON_TEST_DATA_DIR) + "/mjcf/include_nested/main.xml";
  const talon::Expected<talon::ModelSpec> spec = talon::read_mjcf(path, {});
  INFO(spec.diagnostics().format());
  REQUIRE(spec.ok());
  REQUIRE(spec->bodies.size() == 2);
  CHECK(spec->bodies[0].name == "from_level1");
  CHECK(spec->bodies[1].name == "from_level2");
  // Diagnostics about included elements name the included file and its line.
  CHECK(ends_with(spec->bodies[1].origin.loc.file, "sub/level2.xml"));
  CHECK(spec->bodies[1].origin.loc.line == 3);
}

TEST_CASE("keyframes: named states of the shipped sliding box", "[mjcf]") {
  const talon::Expected<talon::Model> model =
      talon::load_model(std::string(TALON_MODELS_DIR) + "/sliding_box.xml");
  INFO(model.diagnostics().format());
  REQUIRE(model.ok());
  const int key = model->find_keyframe("launched");
  REQUIRE(key == 0);
  CHECK(model->key_qvel[0] == 2);
  CHECK(model->key_qpos[2] == 0.1);
  CHECK(model->key_qpos[3] == 1);
  const talon::ModelSpec spec = read(one_body("<geom size='0.1'/>") + "");
  CHECK(spec.keyframes.empty());
  const talon::ModelSpec keyed = read(
      "<mujoco><worldbody><body><joint name='j'/><geom size='0.1'/></body></worldbody>"
      "<actuator><motor joint='j'/></actuator>"
      "<keyframe><key name='k' qpos='0.5' qvel='-1' ctrl='0.25'/><key/></keyframe></mujoco>");
  REQUIRE(keyed.keyframes.size() == 2);
  CHECK(keyed.keyframes[0].name == "k");
  CHECK(keyed.keyframes[0].qpos == std::vector<double>{0.5});
  CHECK(keyed.keyframes[0].qvel == std::vector<double>{-1});
  CHECK(keyed.keyframes[0].ctrl == std::vector<double>{0.25});
  CHECK(keyed.keyframes[1].qpos.empty());
}

TEST_CASE("contact excludes name bodies; 'world' is the world", "[mjcf]") {
  const talon::ModelSpec spec = read(
      "<mujoco><worldbody><body name='a'><freejoint/><geom size='0.1'/></body>"
      "<body name='b'><freejoint/><geom size='0.1'/></body></worldbody>"
      "<contact><exclude body1='a' body2='b'/><exclude body1='world' body2='b'/></contact>"
      "</mujoco>");
  REQUIRE(spec.excludes.size() == 2);
  CHECK(spec.excludes[0].body1 == 0);
  CHECK(spec.excludes[0].body2 == 1);
  CHECK(spec.excludes[1].body1 == -1);
  CHECK(spec.excludes[1].origin.element == "<exclude>");
}

TEST_CASE("mesh geoms record the mesh file resolved against meshdir", "[mjcf]") {
  const std::string xml =
      "<mujoco><compiler meshdir='../assets'/>"
      "<default><mesh scale='2 2 2'/></default>"
      "<asset><mesh file='tetrahedron.obj'/></asset>"
      "<worldbody><body><freejoint/><inertial pos='0 0 0' mass='1' diaginertia='1 1 1'/>"
      "<geom type='mesh' mesh='tetrahedron'/></body></worldbody></mujoco>";
  const talon::ModelSpec spec =
      read(xml, std::string(TALON_TEST_DATA_DIR) + "/mjcf/good/mesh_model.xml");
  REQUIRE(spec.geoms.size() == 1);
  CHECK(spec.geoms[0].type == talon::GeomType::Mesh);
  CHECK(ends_with(spec.geoms[0].mesh_file, "assets/tetrahedron.obj"));
  CHECK(spec.geoms[0].mesh_scale == Vec3(2, 2, 2));
  CHECK(spec.bodies[0].mass == 1);
}

TEST_CASE("geom priority comes from the element or its default class, and is no note", "[mjcf]") {
  const talon::ModelSpec spec = read(one_body("<geom size='0.1'/><geom size='0.1' priority='3'/>",
                                              "<default><geom priority='2'/></default>"));
  REQUIRE(spec.geoms.size() == 2);
  CHECK(spec.geoms[0].priority == 2);
  CHECK(spec.geoms[1].priority == 3);
  CHECK(spec.notes.notes().empty());
}

TEST_CASE("soft-contact parameters give exactly one note per model", "[mjcf]") {
  const talon::ModelSpec spec = read(one_body(
      "<geom size='0.1' solref='0.02 1' margin='0.01'/><geom size='0.1' solimp='0.9 0.95 0.001'/>",
      "<default><geom solmix='2'/></default>"));
  const std::vector<std::string> notes = spec.notes.notes();
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("soft-contact parameters (solref/solimp/margin) are ignored") !=
        std::string::npos);
  CHECK(read(one_body("<geom size='0.1'/>")).notes.notes().empty());
}

TEST_CASE("options, discardvisual and ignored sections", "[mjcf]") {
  const talon::ModelSpec spec = read(
      "<mujoco model='m'><compiler discardvisual='true'/>"
      "<option timestep='0.01' gravity='0 0 -1.62' integrator='RK4'><flag contact='disable'/>"
      "</option><size njmax='10'/><visual><map znear='0.1'/></visual><statistic extent='2'/>"
      "<worldbody><light pos='0 0 3'/><body><freejoint/><geom size='0.1'/>"
      "<geom size='0.2' contype='0' conaffinity='0'/><site name='s'/><camera name='c'/></body>"
      "</worldbody><sensor><jointpos joint='x'/></sensor></mujoco>");
  CHECK(spec.name == "m");
  CHECK(spec.options.timestep == 0.01);
  CHECK(spec.options.gravity == Vec3(0, 0, -1.62));
  CHECK(spec.geoms.size() == 1);
  CHECK(spec.bodies[0].mass == Approx(1000 * 4.0 / 3 * kPi * 0.001));
}

TEST_CASE("the shipped three-wheeler has the URDF robot's masses and parts", "[mjcf]") {
  const talon::Expected<talon::Model> model =
      talon::load_model(std::string(TALON_MODELS_DIR) + "/three_wheeler_scene.xml");
  INFO(model.diagnostics().format());
  REQUIRE(model.ok());
  CHECK(model->total_mass() == Approx(5.2));
  CHECK(model->body_mass[model->find_body("base_link")] == Approx(4.2));  // chassis + caster
  CHECK(model->body_mass[model->find_body("left_wheel")] == 0.5);
  // The ball caster's contacts are frictionless whatever it touches (condim 1, priority 1).
  const int caster =
      static_cast<int>(std::find(model->geom_name.begin(), model->geom_name.end(), "caster") -
                       model->geom_name.begin());
  REQUIRE(caster < model->ngeom);
  CHECK(model->geom_condim[caster] == 1);
  CHECK(talon::contact_condim(*model, 0, caster) == 1);  // geom 0: the floor
  // Wheel: solid cylinder r = 0.08, length 0.04 about its axis m r^2 / 2.
  CHECK(model->body_principal_inertia[model->find_body("left_wheel")][2] == Approx(0.0016));
  CHECK(model->nu == 2);
  CHECK(model->act_gain[0] == 10);
  CHECK(model->act_ctrl_range[1] == 20);
  CHECK(model->timestep == 0.1);
  CHECK(model->exclude_sim_pairs.size() == 3);  // the chassis and each wheel, and the wheels
}

// ---- low-level pieces ---------------------------------------------------------------------

TEST_CASE("numbers: MuJoCo's syntax, finite values only", "[mjcf]") {
  std::vector<double> values;
  std::string why;
  CHECK(talon::mjcf::parse_numbers(" .5 -.5\t+1\n1e3 2.5E-2 ", values, why));
  CHECK(values == std::vector<double>{0.5, -0.5, 1, 1000, 0.025});
  for (const char* bad : {"1/2", "nan", "inf", "-inf", "0x10", "1,2", "1e", "--1", "+"}) {
    INFO(bad);
    CHECK_FALSE(talon::mjcf::parse_numbers(bad, values, why));
  }
}

TEST_CASE("the nesting pre-scan skips comments, declarations and quoted '>'", "[mjcf]") {
  using talon::first_line_nested_deeper_than;
  const std::string text =
      "<?xml version='1.0'?>\n<!-- <a><b><c> -->\n<a x='>'>\n<b/>\n<b>\n<c>\n</c>\n</b>\n</a>";
  CHECK(first_line_nested_deeper_than(text, 3) == 0);
  CHECK(first_line_nested_deeper_than(text, 2) == 6);  // <c> opens level 3
  CHECK(first_line_nested_deeper_than(text, 1) == 4);  // even a self-closing <b/> is level 2
  CHECK(first_line_nested_deeper_than("<a><![CDATA[<b><c>]]></a>", 1) == 0);
  // a declaration's internal subset may hold '>'; stray closing tags do not open credit
  CHECK(first_line_nested_deeper_than("<!DOCTYPE a [ <!ENTITY e '>'> ]>\n<a><b/></a>", 1) == 2);
  CHECK(first_line_nested_deeper_than("</x></y>\n<a><b/></a>", 1) == 2);
}
