// compile_model on hand-written specs: welding, mass combination, and the
// format-independent validation rules.
#include <catch2/catch.hpp>

#include "frontend/compile.h"

using namespace talon;

namespace {

SpecOrigin at(int line, const std::string& element) {
  return {{"test.xml", line}, element};
}

BodySpec box_body(const std::string& name, int parent, double mass, const Vec3& half) {
  BodySpec body;
  body.name = name;
  body.origin = at(10 + parent, "<body name='" + name + "'>");
  body.parent = parent;
  body.mass = mass;
  const Vec3 s = half.cwiseProduct(half);
  body.inertia = (mass / 3.0 * Vec3(s.y() + s.z(), s.x() + s.z(), s.x() + s.y())).asDiagonal();
  return body;
}

JointSpec joint(const std::string& name, int body, JointType type, int line = 30) {
  JointSpec j;
  j.name = name;
  j.origin = at(line, "<joint name='" + name + "'>");
  j.body = body;
  j.type = type;
  j.axis = Vec3::UnitY();
  return j;
}

// A free box with a welded child box offset along x.
ModelSpec welded_pair() {
  ModelSpec spec;
  spec.name = "pair";
  spec.bodies.push_back(box_body("base", -1, 2.0, {0.1, 0.1, 0.1}));
  spec.bodies.back().pose.pos = {0, 0, 1};
  spec.bodies.push_back(box_body("arm", 0, 1.0, {0.2, 0.05, 0.05}));
  spec.bodies.back().pose.pos = {0.3, 0, 0};
  spec.joints.push_back(joint("root", 0, JointType::Free));
  spec.joints.push_back(joint("weld", 1, JointType::Fixed));
  return spec;
}

std::string errors_of(const ModelSpec& spec) {
  Expected<Model> model = compile_model(spec);
  REQUIRE_FALSE(model.ok());
  return model.diagnostics().format();
}

}  // namespace

TEST_CASE("welding combines mass, centre of mass and inertia exactly") {
  Expected<Model> model = compile_model(welded_pair());
  REQUIRE(model.ok());
  const Model& m = *model;
  CHECK(m.nbody == 2);
  CHECK(m.nsim == 1);
  CHECK(m.njnt == 1);
  CHECK(m.njnt_fixed == 1);
  CHECK(m.nq == 7);
  CHECK(m.nv == 6);
  CHECK(m.body_sim == std::vector<int>{0, 0});
  CHECK(m.sim_mass[0] == Approx(3.0));
  // COM: (2 * 0 + 1 * 0.3) / 3 along x.
  CHECK(m.sim_com[0].x() == Approx(0.1));
  CHECK(m.sim_com[0].y() == Approx(0.0).margin(1e-15));
  // Iyy = base (2/3)(0.01+0.01) + arm (1/3)(0.04+0.0025) + parallel axis 2*0.1^2 + 1*0.2^2.
  const double iyy = 2.0 / 3 * 0.02 + 1.0 / 3 * 0.0425 + 2 * 0.01 + 1 * 0.04;
  CHECK(m.sim_inertia[0](1, 1) == Approx(iyy).epsilon(1e-12));
  // Ixx has no parallel-axis term (offset along x).
  CHECK(m.sim_inertia[0](0, 0) == Approx(2.0 / 3 * 0.02 + 1.0 / 3 * 0.005).epsilon(1e-12));
  CHECK(m.total_mass() == Approx(3.0));
  CHECK(m.body_com_world[1].x() == Approx(0.3));
  CHECK(m.body_com_world[1].z() == Approx(1.0));
  // qpos0 of the free joint is the body's world pose.
  CHECK(m.qpos0 == std::vector<double>{0, 0, 1, 1, 0, 0, 0});
}

TEST_CASE("a jointless child of the world is static and not simulated") {
  ModelSpec spec;
  spec.bodies.push_back(box_body("table", -1, 5.0, {0.5, 0.5, 0.05}));
  spec.bodies.push_back(box_body("cup", 0, 0.2, {0.03, 0.03, 0.05}));
  spec.joints.push_back(joint("cup_free", 1, JointType::Hinge));
  spec.bodies[1].pose.pos = {0, 0, 0.1};
  Expected<Model> model = compile_model(spec);
  REQUIRE(model.ok());
  CHECK(model->nsim == 1);
  CHECK(model->body_sim == std::vector<int>{-1, 0});
  CHECK(model->sim_parent[0] == -1);
  CHECK(model->sim_pose_rel[0].pos.z() == Approx(0.1));
}

TEST_CASE("geoms are expressed in their sim body's frame") {
  ModelSpec spec = welded_pair();
  GeomSpec geom;
  geom.body = 1;
  geom.type = GeomType::Sphere;
  geom.size = {0.05, 0, 0};
  geom.pose.pos = {0.1, 0, 0};
  spec.geoms.push_back(geom);
  Expected<Model> model = compile_model(spec);
  REQUIRE(model.ok());
  CHECK(model->geom_sim[0] == 0);
  CHECK(model->geom_pose[0].pos.x() == Approx(0.4));
}

TEST_CASE("compile rejects physically invalid values with the element's line") {
  SECTION("negative mass") {
    ModelSpec spec = welded_pair();
    spec.bodies[1].mass = -1;
    CHECK_THAT(errors_of(spec),
               Catch::Contains("test.xml:10: error: <body name='arm'>: negative mass"));
  }
  SECTION("inertia not positive definite") {
    ModelSpec spec = welded_pair();
    spec.bodies[0].inertia(0, 0) = -0.1;
    CHECK_THAT(errors_of(spec), Catch::Contains("not positive definite"));
  }
  SECTION("triangle inequality") {
    ModelSpec spec = welded_pair();
    spec.bodies[0].inertia = Vec3(0.01, 0.01, 0.05).asDiagonal();
    CHECK_THAT(errors_of(spec), Catch::Contains("triangle inequality"));
  }
  SECTION("zero mass on a moving body") {
    ModelSpec spec = welded_pair();
    spec.bodies[0].mass = 0;
    spec.bodies[0].inertia.setZero();
    spec.bodies[1].mass = 0;
    spec.bodies[1].inertia.setZero();
    CHECK_THAT(errors_of(spec), Catch::Contains("moving body 'base' has zero mass"));
  }
  SECTION("singular inertia on a moving body") {
    ModelSpec spec = welded_pair();
    spec.bodies[0].inertia.setZero();
    spec.bodies[1].inertia.setZero();
    spec.bodies[1].pose.pos.setZero();
    CHECK_THAT(errors_of(spec),
               Catch::Contains("inertia of moving body 'base' is not positive definite"));
  }
  SECTION("zero-length axis") {
    ModelSpec spec = welded_pair();
    spec.joints[1] = joint("hinge", 1, JointType::Hinge, 42);
    spec.joints[1].axis.setZero();
    CHECK_THAT(
        errors_of(spec),
        Catch::Contains("test.xml:42: error: <joint name='hinge'>: joint axis has zero length"));
  }
  SECTION("limits out of order") {
    ModelSpec spec = welded_pair();
    spec.joints[1] = joint("hinge", 1, JointType::Hinge);
    spec.joints[1].limited = true;
    spec.joints[1].range_lower = 1;
    spec.joints[1].range_upper = -1;
    CHECK_THAT(errors_of(spec), Catch::Contains("lower limit 1 is greater than upper limit -1"));
  }
  SECTION("non-finite numbers") {
    ModelSpec spec = welded_pair();
    spec.bodies[1].pose.pos.x() = std::numeric_limits<double>::quiet_NaN();
    CHECK_THAT(errors_of(spec), Catch::Contains("non-finite"));
  }
  SECTION("zero quaternion") {
    ModelSpec spec = welded_pair();
    spec.bodies[1].pose.quat = Quat(0, 0, 0, 0);
    CHECK_THAT(errors_of(spec), Catch::Contains("quaternion has zero length"));
  }
  SECTION("duplicate names name the first definition") {
    ModelSpec spec = welded_pair();
    spec.bodies[1].name = "base";
    CHECK_THAT(errors_of(spec),
               Catch::Contains("duplicate body name 'base' (first defined at test.xml:9)"));
  }
  SECTION("cycles") {
    ModelSpec spec = welded_pair();
    spec.bodies[0].parent = 1;
    CHECK_THAT(errors_of(spec), Catch::Contains("cycle"));
  }
  SECTION("a free joint below another body") {
    ModelSpec spec = welded_pair();
    spec.joints[1].type = JointType::Free;
    CHECK_THAT(errors_of(spec), Catch::Contains("free joint is only allowed on a top-level body"));
  }
  SECTION("keyframe of the wrong size") {
    ModelSpec spec = welded_pair();
    KeyframeSpec key;
    key.name = "home";
    key.origin = at(50, "<key name='home'>");
    key.qpos = {0, 0, 1};
    spec.keyframes.push_back(key);
    CHECK_THAT(errors_of(spec),
               Catch::Contains(
                   "test.xml:50: error: <key name='home'>: qpos has 3 values, the model needs 7"));
  }
}

TEST_CASE("compile keeps going and reports every error of a spec") {
  ModelSpec spec = welded_pair();
  spec.bodies[0].mass = -1;
  spec.bodies[1].mass = -2;
  Expected<Model> model = compile_model(spec);
  REQUIRE_FALSE(model.ok());
  CHECK(model.diagnostics().error_count() == 2);
}

TEST_CASE("deep chains compile without recursion") {
  ModelSpec spec;
  const int depth = 100000;
  for (int i = 0; i < depth; ++i) {
    spec.bodies.push_back(box_body("link" + std::to_string(i), i - 1, 1.0, {0.1, 0.1, 0.1}));
    spec.bodies.back().pose.pos = {0, 0, 0.2};
    spec.joints.push_back(joint("j" + std::to_string(i), i, JointType::Hinge));
  }
  Expected<Model> model = compile_model(spec);
  REQUIRE(model.ok());
  CHECK(model->nsim == depth);
  CHECK(model->nv == depth);
  CHECK(model->body_pose_world.back().pos.z() == Approx(0.2 * depth));
}
