// Faces of convex polytopes (ir/lower/polytope.h) and the slots of mesh hulls against mesh
// hulls and boxes (ir/lower/polytope_contacts.h), against hand-computed points and a
// Sutherland–Hodgman oracle.
#include <catch2/catch.hpp>

#include <numbers>

#include "ir/contact_geometry_support.h"
#include "ir/lower/polytope.h"
#include "ir/lower/polytope_contacts.h"

using namespace talon;
using namespace talon::ir::lower;
using namespace talon::testing;
using Catch::Matchers::WithinAbs;

namespace {

// A prism of `sides` sides about z: radius r, half height l.
std::vector<Vec3> prism(int sides, double r, double l) {
  std::vector<Vec3> out;
  for (int k = 0; k < sides; ++k) {
    const double phi = 2 * std::numbers::pi * k / sides;
    for (const double z : {-l, l}) out.push_back({r * std::cos(phi), r * std::sin(phi), z});
  }
  return out;
}

int valid_edges(const PolytopeFace& f) {
  return static_cast<int>(std::count(f.valid.begin(), f.valid.end(), true));
}

// Each face: a unit normal with every vertex on or below its plane, a closed boundary of
// vertices on the plane, counter-clockwise (inward normals ⟂ edges, in the plane, pointing to
// the face's centroid).
void check_faces(const Polytope& p) {
  for (const PolytopeFace& f : p.faces) {
    CHECK_THAT(f.normal.norm(), WithinAbs(1, 1e-12));
    const double level = f.normal.dot(f.start[0]);
    for (const Vec3& v : p.vertices) CHECK(f.normal.dot(v) <= level + 1e-12);
    const int n = valid_edges(f);
    Vec3 centroid = Vec3::Zero();
    for (int k = 0; k < n; ++k) centroid += f.start[k] / n;
    for (int k = 0; k < n; ++k) {
      CHECK_THAT(f.normal.dot(f.start[k]), WithinAbs(level, 1e-12));
      CHECK((f.end[k] - f.start[(k + 1) % n]).norm() < 1e-15);
      CHECK_THAT(f.inward[k].norm(), WithinAbs(1, 1e-12));
      CHECK_THAT(f.inward[k].dot(f.normal), WithinAbs(0, 1e-12));
      CHECK_THAT(f.inward[k].dot(f.end[k] - f.start[k]), WithinAbs(0, 1e-12));
      CHECK(f.inward[k].dot(centroid - f.start[k]) > 0);
    }
    for (int k = n; k < kFaceVertices; ++k) CHECK(f.inward[k].norm() == 0);
  }
}

std::vector<int> face_sizes(const Polytope& p) {
  std::vector<int> out;
  for (const PolytopeFace& f : p.faces) out.push_back(valid_edges(f));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("polytope: faces of a box, a tetrahedron and prisms") {
  const Polytope box = polytope_of(box_corners({0.1, 0.2, 0.3}));
  CHECK(face_sizes(box) == std::vector<int>(6, 4));
  check_faces(box);

  const Polytope tetrahedron = polytope_of({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}});
  CHECK(face_sizes(tetrahedron) == std::vector<int>(4, 3));
  check_faces(tetrahedron);

  const Polytope hexagonal = polytope_of(prism(6, 0.1, 0.05));
  CHECK(face_sizes(hexagonal) == std::vector<int>{4, 4, 4, 4, 4, 4, 6, 6});
  check_faces(hexagonal);

  // A 12-sided cap keeps kFaceVertices of its corners: every other one but for two.
  const Polytope twelve = polytope_of(prism(12, 0.1, 0.05));
  CHECK(face_sizes(twelve).back() == kFaceVertices);
  CHECK(twelve.faces.size() == 14);
  check_faces(twelve);

  CHECK(polytope_of({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}).faces.empty());  // flat
}

TEST_CASE("polytope contacts: slot kinds and counts") {
  CHECK(contact_slot_count(GeomType::Mesh, GeomType::Mesh) == kPolytopeSlots);
  CHECK(contact_slot_count(GeomType::Box, GeomType::Mesh) == kPolytopeSlots);
  CHECK(contact_slot_kind(GeomType::Mesh, GeomType::Mesh, 2) == "mesh-mesh incident edge 2");
  CHECK(contact_slot_kind(GeomType::Box, GeomType::Mesh, kFaceVertices + 1) ==
        "box-mesh reference edge 1");
}

TEST_CASE("polytope contacts: equal mesh cubes stacked touch at the four face corners") {
  const double overlap = 1e-3;
  const std::vector<Vec3> cube = box_corners({0.1, 0.1, 0.1});
  Scene s;
  const GeomPose lower =
      s.geom(GeomType::Mesh, Vec3::Zero(), Vec3::Zero(), Quat::Identity(), &cube);
  const GeomPose upper =
      s.geom(GeomType::Mesh, Vec3::Zero(), {0, 0, 0.2 - overlap}, Quat::Identity(), &cube);
  for (const bool lower_first : {true, false}) {
    INFO("lower first: " << lower_first);
    const auto slots = lower_first ? s.slots(lower, upper) : s.slots(upper, lower);
    check_points_xy(slots, {{-0.1, -0.1}, {0.1, -0.1}, {0.1, 0.1}, {-0.1, 0.1}});
    for (int k : active_slots(slots)) {
      CHECK_THAT(slots[k].gap, WithinAbs(-overlap, 1e-15));
      check_vec(slots[k].normal, lower_first ? kUp : -kUp);
      CHECK_THAT(slots[k].point.z(), WithinAbs(0.1 - overlap / 2, 1e-15));
    }
  }
}

// The faces' overlap is an octagon (a cube yawed 10° on an equal one) or a rectangle with two
// corners on crossing edges (a shifted cube); a box under a mesh cube works the same way.
TEST_CASE("polytope contacts: yawed and shifted cubes clip to the faces' overlap") {
  const double overlap = 2e-3;
  const std::vector<Vec3> cube = box_corners({0.1, 0.1, 0.1});
  for (const bool box_below : {false, true}) {
    for (const bool shifted : {false, true}) {
      INFO("box below: " << box_below << ", shifted: " << shifted);
      Scene s;
      const GeomPose lower = s.geom(box_below ? GeomType::Box : GeomType::Mesh, {0.1, 0.1, 0.1},
                                    Vec3::Zero(), Quat::Identity(), &cube);
      const Quat yaw = about(kUp, shifted ? 0 : 10 * std::numbers::pi / 180);
      const Vec3 centre = shifted ? Vec3(0.05, 0.03, 0.2 - overlap) : Vec3(0, 0, 0.2 - overlap);
      const auto slots = s.slots(lower, s.geom(GeomType::Mesh, Vec3::Zero(), centre, yaw, &cube));
      const std::vector<Vec2> expected =
          clip_to_rectangle(bottom_corners_xy(yaw, centre, 0.1), 0.1, 0.1);
      REQUIRE(expected.size() == (shifted ? 4u : 8u));
      check_points_xy(slots, expected);
      for (int k : active_slots(slots)) {
        CHECK_THAT(slots[k].gap, WithinAbs(-overlap, 1e-15));
        check_vec(slots[k].normal, kUp);
      }
    }
  }
}

// A hexagonal prism standing on a hexagon 4 mm above a larger box: a face of more than four
// corners, each of them a slot.
TEST_CASE("polytope contacts: a hexagonal prism on a box touches at its corners") {
  const std::vector<Vec3> hexagon = prism(6, 0.05, 0.02);
  Scene s;
  const GeomPose base = s.geom(GeomType::Box, {0.3, 0.3, 0.1}, Vec3::Zero());
  const Vec3 centre(0.1, -0.05, 0.1 + 0.02 + 0.004);
  const auto slots =
      s.slots(base, s.geom(GeomType::Mesh, Vec3::Zero(), centre, Quat::Identity(), &hexagon));
  std::vector<Vec2> corners;
  for (int k = 0; k < 6; ++k) corners.push_back(centre.head<2>() + hexagon[2 * k].head<2>());
  check_points_xy(slots, corners);
  for (int k : active_slots(slots)) {
    CHECK_THAT(slots[k].gap, WithinAbs(0.004, 1e-15));
    check_vec(slots[k].normal, kUp);
  }
}

TEST_CASE("polytope contacts: hulls apart have no penetrating slot") {
  const std::vector<Vec3> cube = box_corners({0.1, 0.1, 0.1});
  const std::vector<Vec3> tetrahedron = {{0, 0, 0}, {0.2, 0, 0}, {0, 0.2, 0}, {0, 0, 0.2}};
  Scene s;
  const GeomPose a =
      s.geom(GeomType::Mesh, Vec3::Zero(), Vec3::Zero(), about({1, 2, 3}, 0.7), &cube);
  for (const Vec3& offset : {Vec3(0.4, 0, 0), Vec3(0.2, 0.25, 0.1), Vec3(-0.1, -0.2, -0.35)}) {
    INFO("offset " << offset.transpose());
    const auto slots = s.slots(
        a, s.geom(GeomType::Mesh, Vec3::Zero(), offset, about({0, 1, 1}, 0.3), &tetrahedron));
    CHECK(min_gap(slots) > 0);
  }
}

// A mesh hull that is a box measures a sphere's centre as point_box does (exact distance to
// the nearest face, edge or corner outside; the least-penetrated face inside): the sphere–box
// slot is the oracle, for centres over faces, beyond edges and corners, and inside.
TEST_CASE("polytope contacts: a sphere against a mesh box matches sphere-box") {
  const Vec3 half(0.2, 0.1, 0.05);
  const std::vector<Vec3> corners = box_corners(half);
  const Vec3 centre(0.3, -0.1, 0.2);
  const Quat turn = about({1, -2, 0.5}, 0.8);
  for (const Vec3& local :
       {Vec3(0.05, 0.02, 0.12), Vec3(0.3, 0.02, 0.01), Vec3(0.25, 0.15, 0.1),
        Vec3(-0.26, -0.13, -0.09), Vec3(0.01, -0.02, 0.03), Vec3(-0.15, 0.0, -0.04)}) {
    INFO("centre in the box's frame " << local.transpose());
    Scene s;
    const Vec3 at = centre + turn * local;
    const GeomPose ball = s.geom(GeomType::Sphere, {0.03, 0, 0}, at);
    const auto mesh = s.slots(ball, s.geom(GeomType::Mesh, Vec3::Zero(), centre, turn, &corners));
    const auto box = s.slots(ball, s.geom(GeomType::Box, half, centre, turn));
    REQUIRE(mesh.size() == 1);
    CHECK_THAT(mesh[0].gap, WithinAbs(box[0].gap, 1e-12));
    check_vec(mesh[0].point, box[0].point);
    check_vec(mesh[0].normal, box[0].normal);
  }
}

// A capsule's two end spheres and its axis clipped to the face it lies against, as
// capsule–box: lying on a mesh box's top within it, hanging over its edge, across it with both
// ends beyond its sides (the clipped slots hold it), turned, and driven through it (the ends
// alone).
TEST_CASE("polytope contacts: a capsule against a mesh box matches capsule-box") {
  const Vec3 half(0.2, 0.1, 0.05);
  const std::vector<Vec3> corners = box_corners(half);
  const Quat along_x = about(Vec3::UnitY(), M_PI / 2);
  struct Pose {
    Vec3 centre;
    Quat turn;
    double half_length;
  };
  for (const Pose& pose :
       {Pose{{0, 0, 0.09}, about({0.3, 1, 0.1}, 1.4), 0.1},
        Pose{{0.25, 0.05, 0.07}, about({0.3, 1, 0.1}, 1.4), 0.1},
        Pose{{0.02, 0.03, 0.1}, along_x, 0.3},
        Pose{{0.02, 0.03, 0.1}, about({0.1, 1, 0.05}, 1.5), 0.3},
        Pose{{0.22, -0.02, 0.08}, along_x, 0.1}, Pose{{0.0, 0.03, 0.0}, along_x, 0.3}}) {
    INFO("centre " << pose.centre.transpose() << ", half length " << pose.half_length);
    Scene s;
    const GeomPose capsule =
        s.geom(GeomType::Capsule, {0.04, pose.half_length, 0}, pose.centre, pose.turn);
    const auto mesh = s.slots(
        capsule, s.geom(GeomType::Mesh, Vec3::Zero(), Vec3::Zero(), Quat::Identity(), &corners));
    const auto box = s.slots(capsule, s.geom(GeomType::Box, half, Vec3::Zero()));
    REQUIRE(mesh.size() == 4);
    for (int k = 0; k < 4; ++k) {
      INFO("slot " << k);
      CHECK_THAT(mesh[k].gap, WithinAbs(box[k].gap, 1e-12));
      if (box[k].gap == kInactiveGap) continue;
      check_vec(mesh[k].point, box[k].point);
      check_vec(mesh[k].normal, box[k].normal);
    }
  }
  // Across the top with both ends beyond the sides, 1 cm above it: the clipped slots are
  // active, over the top's edges.
  Scene s;
  const auto across =
      s.slots(s.geom(GeomType::Capsule, {0.04, 0.3, 0}, {0.02, 0.03, 0.1}, along_x),
              s.geom(GeomType::Mesh, Vec3::Zero(), Vec3::Zero(), Quat::Identity(), &corners));
  for (int k : {2, 3}) CHECK_THAT(across[k].gap, WithinAbs(0.01, 1e-12));
  CHECK(contact_slot_kind(GeomType::Capsule, GeomType::Mesh, 3) == "capsule-mesh clip 1");
}

// As point_box: outside the hull at the step's end a centre is measured by its exact distance
// there, whatever the start (the choice pose) was, so that the slot's value reads the choice
// pose only through choices and its derivative with respect to it is zero (docs/design.md,
// "The colliders' choices"; measured along the direction from the edge at the start, the
// adjoint missed that term: bench/RESULTS.md, twenty-sixth session). A centre inside at the
// end is pushed out of the face it came through, chosen at the start.
TEST_CASE(
    "polytope contacts: a sphere is measured at the step's end, out of the face it came "
    "through") {
  const std::vector<Vec3> cube = box_corners({0.1, 0.1, 0.1});
  Scene s;
  const GeomPose mesh = s.geom(GeomType::Mesh, Vec3::Zero(), Vec3::Zero(), Quat::Identity(), &cube);
  const double r = 0.02;
  auto ball = [&](const Vec3& centre) { return s.geom(GeomType::Sphere, {r, 0, 0}, centre); };
  // Beyond the top edge at the start, over the side face at the end: the side's distance.
  const GeomPose after = ball({0.11, 0, 0.09});
  for (const Vec3& start : {Vec3(0.13, 0, 0.14), Vec3(0.11, 0, 0.2), Vec3(0.3, 0, 0.09)}) {
    INFO("start " << start.transpose());
    const auto slots = s.step_slots(ball(start), mesh, after, mesh);
    CHECK_THAT(slots[0].gap, WithinAbs(0.01 - r, 1e-12));
    check_vec(slots[0].normal, {-1, 0, 0});
  }
  // Beyond the top edge at the end: the distance from the edge (0.1, y, 0.1).
  const auto beyond = s.step_slots(ball({0.13, 0, 0.14}), mesh, ball({0.13, 0, 0.14}), mesh);
  CHECK_THAT(beyond[0].gap, WithinAbs(0.05 - r, 1e-12));
  check_vec(beyond[0].normal, -Vec3(0.03, 0, 0.04).normalized());
  // In through the top within the step, nearer the side at the end: out of the top.
  const auto through = s.step_slots(ball({0.09, 0, 0.12}), mesh, ball({0.095, 0, 0.05}), mesh);
  CHECK_THAT(through[0].gap, WithinAbs(-0.05 - r, 1e-12));
  check_vec(through[0].normal, {0, 0, -1});
}

// A cylinder against a mesh box is box–cylinder's slot, the normal reversed (the pair is
// (cylinder, mesh)): a wheel on the top face, a wheel on an edge, a tilted can on its rim,
// an upright can, and one overhanging the edge.
TEST_CASE("polytope contacts: a cylinder against a mesh box matches box-cylinder") {
  const Vec3 half(0.2, 0.1, 0.05);
  const std::vector<Vec3> corners = box_corners(half);
  struct Pose {
    Vec3 centre;
    Quat turn;
  };
  const Quat wheel = about(Vec3::UnitX(), std::numbers::pi / 2);
  for (const Pose& pose :
       {Pose{{0.05, 0, 0.13}, wheel}, Pose{{0.2, 0, 0.12}, wheel},
        Pose{{0, 0.02, 0.16}, about({1, 1, 0}, 0.4)}, Pose{{0.1, 0, 0.149}, Quat::Identity()},
        Pose{{0.22, 0.05, 0.1}, about({0, 1, 0}, 0.2)}}) {
    INFO("cylinder at " << pose.centre.transpose());
    Scene s;
    const GeomPose cylinder = s.geom(GeomType::Cylinder, {0.08, 0.1, 0}, pose.centre, pose.turn);
    const auto mesh = s.slots(
        cylinder, s.geom(GeomType::Mesh, Vec3::Zero(), Vec3::Zero(), Quat::Identity(), &corners));
    const auto box = s.slots(s.geom(GeomType::Box, half, Vec3::Zero()), cylinder);
    REQUIRE(mesh.size() == 1);
    CHECK_THAT(mesh[0].gap, WithinAbs(box[0].gap, 1e-12));
    check_vec(mesh[0].point, box[0].point);
    check_vec(mesh[0].normal, -box[0].normal);
  }
}

// A hull without faces (flatter than polytope_of's tolerance) touches nothing, and lowering it
// does not fail.
TEST_CASE("polytope contacts: a hull without faces has only inactive slots") {
  const std::vector<Vec3> flat = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 1e-9}};
  REQUIRE(polytope_of(flat).faces.empty());
  const std::vector<Vec3> cube = box_corners({0.1, 0.1, 0.1});
  Scene s;
  const GeomPose sheet =
      s.geom(GeomType::Mesh, Vec3::Zero(), Vec3::Zero(), Quat::Identity(), &flat);
  const GeomPose box = s.geom(GeomType::Mesh, Vec3::Zero(), {0, 0, 0.05}, Quat::Identity(), &cube);
  CHECK(active_slots(s.slots(box, sheet)).empty());
  CHECK(min_gap(s.slots(s.geom(GeomType::Sphere, {0.1, 0, 0}, Vec3::Zero()), sheet)) > 0.5);
}
