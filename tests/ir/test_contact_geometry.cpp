// Contact slots of primitive pairs against hand-computed gaps, points and normals.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>

#include "ir/contact_geometry_support.h"

using namespace talon;
using namespace talon::ir;
using namespace talon::ir::lower;
using namespace talon::testing;
using Catch::Matchers::WithinAbs;

TEST_CASE("contact geometry: plane-sphere gap, midway point and normal") {
  Scene s;
  const GeomPose plane = s.geom(GeomType::Plane, {0, 0, 1}, Vec3::Zero());
  const auto slots = s.slots(plane, s.geom(GeomType::Sphere, {0.1, 0, 0}, {0.3, 0.2, 0.5}));
  CHECK_THAT(slots[0].gap, WithinAbs(0.4, 1e-15));
  check_vec(slots[0].normal, kUp);
  check_vec(slots[0].point, {0.3, 0.2, 0.2});  // halfway between z = 0 and z = 0.4
}

TEST_CASE("contact geometry: a tilted plane measures along its own normal") {
  Scene s;
  const Quat tilt = about(Vec3::UnitX(), 0.3);
  const GeomPose plane = s.geom(GeomType::Plane, {0, 0, 1}, {0, 0, 0.1}, tilt);
  const Vec3 centre(0.2, -0.4, 1.0);
  const auto slots = s.slots(plane, s.geom(GeomType::Sphere, {0.05, 0, 0}, centre));
  const Vec3 n = tilt * kUp;
  CHECK_THAT(slots[0].gap, WithinAbs(n.dot(centre - Vec3(0, 0, 0.1)) - 0.05, 1e-14));
  check_vec(slots[0].normal, n);
}

TEST_CASE("contact geometry: plane-box corners of a box turned 45 degrees") {
  Scene s;
  const GeomPose plane = s.geom(GeomType::Plane, {0, 0, 1}, Vec3::Zero());
  const Vec3 half(0.1, 0.2, 0.3);
  const auto slots =
      s.slots(plane, s.geom(GeomType::Box, half, {0, 0, 1}, about(Vec3::UnitX(), M_PI / 4)));
  REQUIRE(slots.size() == 8);
  // Corner (±0.1, y, z) rotated about x lies at height 1 + (y + z)/√2.
  for (int k = 0; k < 8; ++k) {
    const double y = (k & 2) ? 0.2 : -0.2, z = (k & 4) ? 0.3 : -0.3;
    CHECK_THAT(slots[k].gap, WithinAbs(1 + (y + z) / std::sqrt(2.0), 1e-14));
    check_vec(slots[k].normal, kUp);
  }
  CHECK_THAT(min_gap(slots), WithinAbs(1 - 0.5 / std::sqrt(2.0), 1e-14));
}

TEST_CASE("contact geometry: plane-capsule uses both end spheres") {
  Scene s;
  const GeomPose plane = s.geom(GeomType::Plane, {0, 0, 1}, Vec3::Zero());
  const double tilt = 0.5;  // axis tilted from vertical
  const auto slots = s.slots(
      plane, s.geom(GeomType::Capsule, {0.05, 0.2, 0}, {0, 0, 0.5}, about(Vec3::UnitY(), tilt)));
  const double dz = 0.2 * std::cos(tilt);
  CHECK_THAT(slots[0].gap, WithinAbs(0.5 - dz - 0.05, 1e-14));
  CHECK_THAT(slots[1].gap, WithinAbs(0.5 + dz - 0.05, 1e-14));
}

TEST_CASE("contact geometry: plane-cylinder touches at the lowest rim point") {
  Scene s;
  const GeomPose plane = s.geom(GeomType::Plane, {0, 0, 1}, Vec3::Zero());
  // A wheel: axis along y (the shipped robot's), radius 0.08, half-width 0.02, centre z 0.1:
  // one slot, at the middle of the touching line.
  const auto wheel = s.slots(plane, s.geom(GeomType::Cylinder, {0.08, 0.02, 0}, {0, 0, 0.1},
                                           about(Vec3::UnitX(), M_PI / 2)));
  REQUIRE(wheel.size() == 1);
  CHECK_THAT(wheel[0].gap, WithinAbs(0.02, 1e-14));
  CHECK_THAT(wheel[0].point.z(), WithinAbs(0.01, 1e-14));
  CHECK_THAT(wheel[0].point.y(), WithinAbs(0, 1e-14));
  // Cambered by α about x beyond the blend, either way: the lower end circle's rim, which
  // drops by L sin|α|, the rim by r cos α.
  for (const double alpha : {0.3, -0.3}) {
    Scene s2;
    const GeomPose plane2 = s2.geom(GeomType::Plane, {0, 0, 1}, Vec3::Zero());
    const auto cambered = s2.slots(plane2, s2.geom(GeomType::Cylinder, {0.08, 0.02, 0}, {0, 0, 0.1},
                                                   about(Vec3::UnitX(), M_PI / 2 + alpha)));
    REQUIRE(cambered.size() == 1);
    const double drop = 0.08 * std::cos(alpha);
    CHECK_THAT(cambered[0].gap, WithinAbs(0.1 - 0.02 * std::sin(std::abs(alpha)) - drop, 1e-12));
  }
  // A slight camber (inside the blend) stays within L sin α above the exact lowest point.
  Scene s3;
  const double alpha = 0.01;
  const GeomPose plane3 = s3.geom(GeomType::Plane, {0, 0, 1}, Vec3::Zero());
  const auto slight = s3.slots(plane3, s3.geom(GeomType::Cylinder, {0.08, 0.02, 0}, {0, 0, 0.1},
                                               about(Vec3::UnitX(), M_PI / 2 + alpha)));
  const double exact = 0.1 - 0.02 * std::sin(alpha) - 0.08 * std::cos(alpha);
  CHECK(slight[0].gap >= exact - 1e-15);
  CHECK(slight[0].gap <= exact + 0.02 * std::sin(alpha));
}

TEST_CASE("contact geometry: sphere-sphere and sphere-capsule") {
  Scene s;
  const auto ss = s.slots(s.geom(GeomType::Sphere, {0.1, 0, 0}, {0, 0, 0}),
                          s.geom(GeomType::Sphere, {0.2, 0, 0}, {0.3, 0.4, 0}));
  CHECK_THAT(ss[0].gap, WithinAbs(0.5 - 0.3, 1e-15));
  check_vec(ss[0].normal, {0.6, 0.8, 0});
  check_vec(ss[0].point, Vec3(0.6, 0.8, 0) * 0.2);  // midway between radii 0.1 and 0.3

  Scene s2;
  const GeomPose capsule = s2.geom(GeomType::Capsule, {0.05, 0.3, 0}, Vec3::Zero());  // along z
  // Beside the middle of the segment, then beyond its end.
  const auto side = s2.slots(s2.geom(GeomType::Sphere, {0.1, 0, 0}, {0.4, 0, 0.1}), capsule);
  CHECK_THAT(side[0].gap, WithinAbs(0.4 - 0.15, 1e-14));
  check_vec(side[0].normal, {-1, 0, 0});
  const auto end = s2.slots(s2.geom(GeomType::Sphere, {0.1, 0, 0}, {0, 0.3, 0.7}), capsule);
  CHECK_THAT(end[0].gap, WithinAbs(0.5 - 0.15, 1e-14));
}

TEST_CASE("contact geometry: capsule-capsule closest points of crossing and parallel segments") {
  Scene s;
  const GeomPose a =
      s.geom(GeomType::Capsule, {0.05, 0.5, 0}, Vec3::Zero(), about(Vec3::UnitY(), M_PI / 2));
  const GeomPose b =
      s.geom(GeomType::Capsule, {0.04, 0.5, 0}, {0.1, 0.2, 0.3}, about(Vec3::UnitX(), M_PI / 2));
  // a along x through the origin, b along y through (0.1, ·, 0.3): closest distance 0.3.
  const auto crossing = s.slots(a, b);
  CHECK_THAT(crossing[0].gap, WithinAbs(0.3 - 0.09, 1e-14));
  check_vec(crossing[0].normal, kUp);
  CHECK_THAT(crossing[0].point.x(), WithinAbs(0.1, 1e-14));

  Scene s2;
  const GeomPose c = s2.geom(GeomType::Capsule, {0.05, 0.5, 0}, Vec3::Zero());
  const GeomPose d = s2.geom(GeomType::Capsule, {0.05, 0.5, 0}, {0.2, 0, 0.3});
  const auto parallel = s2.slots(c, d);
  CHECK_THAT(parallel[0].gap, WithinAbs(0.2 - 0.1, 1e-12));
  check_vec(parallel[0].normal, Vec3::UnitX(), 1e-9);
}

TEST_CASE("contact geometry: sphere-box outside a face, at a corner and inside") {
  Scene s;
  const Vec3 half(0.1, 0.2, 0.3);
  const Quat turn = about(Vec3::UnitZ(), 0.3);
  const GeomPose box = s.geom(GeomType::Box, half, {1, 0, 0}, turn);
  auto sphere_at = [&](const Vec3& local) {
    return s.slots(s.geom(GeomType::Sphere, {0.05, 0, 0}, Vec3(1, 0, 0) + turn * local), box)[0];
  };
  const auto face = sphere_at({0.3, 0.05, 0.1});
  CHECK_THAT(face.gap, WithinAbs(0.2 - 0.05, 1e-14));
  check_vec(face.normal, -(turn * Vec3::UnitX()));  // from the sphere to the box
  const auto corner = sphere_at({0.2, 0.4, 0.5});
  CHECK_THAT(corner.gap, WithinAbs(std::sqrt(0.01 + 0.04 + 0.04) - 0.05, 1e-14));
  const auto inside = sphere_at({0.02, 0.02, 0.25});  // 0.05 below the +z face
  CHECK_THAT(inside.gap, WithinAbs(-0.05 - 0.05, 1e-14));
  check_vec(inside.normal, -(turn * Vec3::UnitZ()));
}

// A sphere that falls through a box's top face within one step ends nearer the bottom face;
// the face it is pushed out of is chosen where the step starts (point_box), so the step's
// contact pushes it back up through the top, the way it came, instead of on downwards.
TEST_CASE("contact geometry: sphere-box pushes a centre that passed the top back out of it") {
  Scene s;
  const GeomPose box = s.geom(GeomType::Box, {0.1, 0.1, 0.1}, Vec3::Zero());
  const GeomPose before = s.geom(GeomType::Sphere, {0.05, 0, 0}, {0.01, 0.02, 0.3});
  const GeomPose after = s.geom(GeomType::Sphere, {0.05, 0, 0}, {0.01, 0.02, -0.07});
  const auto through = s.step_slots(before, box, after, box);
  CHECK_THAT(through[0].gap, WithinAbs(-0.07 - 0.1 - 0.05, 1e-14));
  check_vec(through[0].normal, {0, 0, -1});  // from the sphere to the box: the sphere goes up
  const auto at_rest = s.slots(after, box);  // chosen where it is: the nearer bottom face
  CHECK_THAT(at_rest[0].gap, WithinAbs(-0.03 - 0.05, 1e-14));
  check_vec(at_rest[0].normal, {0, 0, 1});
}

// Capsule-box: the end spheres, then the capsule's axis clipped to the face it lies against
// (from either end: where the axis enters the region over the face), each clipped slot off
// where its end already lies over the face or where the axis lies inside the box.
TEST_CASE("contact geometry: capsule-box ends and the axis clipped to the face") {
  const Quat along_x = about(Vec3::UnitY(), M_PI / 2);
  const double r = 0.04, half_length = 0.2;
  Scene s;
  const GeomPose box = s.geom(GeomType::Box, {0.1, 0.1, 0.1}, Vec3::Zero());
  auto capsule_at = [&](const Vec3& centre, const Quat& turn) {
    return s.slots(s.geom(GeomType::Capsule, {r, half_length, 0}, centre, turn), box);
  };
  // Across the top with both ends beyond the box's sides, 1 cm above it: the clipped slots
  // are over the top's edges x = ∓0.1.
  const auto across = capsule_at({0, 0.03, 0.15}, along_x);
  REQUIRE(across.size() == 4);
  const double end_gap = std::hypot(0.1, 0.05) - r;  // from the top edges
  CHECK_THAT(across[0].gap, WithinAbs(end_gap, 1e-12));
  CHECK_THAT(across[1].gap, WithinAbs(end_gap, 1e-12));
  for (int k : {2, 3}) {
    CHECK_THAT(across[k].gap, WithinAbs(0.01, 1e-12));
    check_vec(across[k].normal, {0, 0, -1});
  }
  CHECK_THAT(across[2].point.x(), WithinAbs(-0.1, 1e-12));
  CHECK_THAT(across[3].point.x(), WithinAbs(0.1, 1e-12));
  // Hanging over one side: the end over the face holds its own point, the axis enters the
  // region over the face at x = 0.1 from the other end.
  const auto hanging = capsule_at({0.15, 0.03, 0.15}, along_x);
  CHECK_THAT(hanging[0].gap, WithinAbs(0.01, 1e-12));
  CHECK(hanging[2].gap == kInactiveGap);
  CHECK_THAT(hanging[3].gap, WithinAbs(0.01, 1e-12));
  CHECK_THAT(hanging[3].point.x(), WithinAbs(0.1, 1e-12));
  // Lying on the face within it, or standing on its end: the ends alone.
  for (const auto& within :
       {capsule_at({0, 0, 0.35}, Quat::Identity()),
        s.slots(s.geom(GeomType::Capsule, {r, 0.05, 0}, {0, 0, 0.15}, along_x), box)}) {
    CHECK_THAT(within[0].gap, WithinAbs(0.01, 1e-12));
    CHECK(within[2].gap == kInactiveGap);
    CHECK(within[3].gap == kInactiveGap);
  }
  // Its axis through the box (a large step drove it in): the ends alone, no slot centimetres
  // deep.
  const auto through = capsule_at({0, 0.03, 0.05}, along_x);
  CHECK(through[2].gap == kInactiveGap);
  CHECK(through[3].gap == kInactiveGap);
  CHECK(contact_slot_kind(GeomType::Capsule, GeomType::Box, 1) == "capsule-box end 1");
  CHECK(contact_slot_kind(GeomType::Capsule, GeomType::Box, 3) == "capsule-box clip 1");
}

// Box-box slots (ir/lower/box_box.h): 0-3 points on incident edges, 4-7 points on reference
// edges, 8 the edge-edge point; an inactive slot has the gap kInactiveGap.
namespace {

constexpr int kEdgeSlot = kBoxBoxSlots - 1;

}  // namespace

TEST_CASE("contact geometry: box-box equal boxes stacked touch at the four face corners") {
  const double overlap = 1e-3;
  Scene s;
  const GeomPose lower = s.geom(GeomType::Box, {0.1, 0.1, 0.1}, Vec3::Zero());
  const GeomPose upper = s.geom(GeomType::Box, {0.1, 0.1, 0.1}, {0, 0, 0.2 - overlap});
  const auto slots = s.slots(lower, upper);
  REQUIRE(slots.size() == 9);
  // The faces coincide: each corner is claimed once, by the incident corner's slot.
  CHECK(active_slots(slots) == std::vector<int>{0, 1, 2, 3});
  for (int k = 0; k < 4; ++k) {
    CHECK_THAT(slots[k].gap, WithinAbs(-overlap, 1e-15));
    check_vec(slots[k].normal, kUp);
    CHECK_THAT(slots[k].point.z(), WithinAbs(0.1 - overlap / 2, 1e-15));
  }
  check_points_xy(slots, {{-0.1, -0.1}, {0.1, -0.1}, {0.1, 0.1}, {-0.1, 0.1}});
  // The other way round the normal points down, from the upper box to the lower.
  const auto reversed = s.slots(upper, lower);
  CHECK(active_slots(reversed).size() == 4);
  for (int k : active_slots(reversed)) {
    CHECK_THAT(reversed[k].gap, WithinAbs(-overlap, 1e-15));
    check_vec(reversed[k].normal, -kUp);
  }
}

TEST_CASE("contact geometry: box-box small box on a larger one touches at its four corners") {
  Scene s;
  const GeomPose base = s.geom(GeomType::Box, {0.5, 0.5, 0.1}, Vec3::Zero());
  const Vec3 centre(0.1, -0.2, 0.23);
  const Quat yaw = about(kUp, 0.4);
  const GeomPose top = s.geom(GeomType::Box, {0.1, 0.1, 0.1}, centre, yaw);
  const std::vector<Vec2> corners = bottom_corners_xy(yaw, centre, 0.1);
  // The top box's four bottom corners hover 0.03 above the base's face, normal +z, whichever
  // box comes first (the reference face is then the small one's, and its corners are the
  // reference-edge slots).
  for (const bool small_first : {false, true}) {
    INFO("small box first: " << small_first);
    const auto slots = small_first ? s.slots(top, base) : s.slots(base, top);
    check_points_xy(slots, corners);
    for (int k : active_slots(slots)) {
      CHECK_THAT(slots[k].gap, WithinAbs(0.03, 1e-12));
      check_vec(slots[k].normal, small_first ? -kUp : kUp);
      CHECK_THAT(slots[k].point.z(), WithinAbs(0.115, 1e-12));
    }
  }
}

TEST_CASE("contact geometry: box-box offset box clips to points on both boxes' edges") {
  const double overlap = 2e-3;
  Scene s;
  const GeomPose lower = s.geom(GeomType::Box, {0.1, 0.1, 0.1}, Vec3::Zero());
  const GeomPose upper = s.geom(GeomType::Box, {0.1, 0.1, 0.1}, {0.05, 0.03, 0.2 - overlap});
  const auto slots = s.slots(lower, upper);
  // The overlap [-0.05, 0.1] x [-0.07, 0.1]: one corner of each box and two edge crossings.
  check_points_xy(slots, {{-0.05, -0.07}, {0.1, -0.07}, {0.1, 0.1}, {-0.05, 0.1}});
  const std::vector<int> active = active_slots(slots);
  CHECK(std::count_if(active.begin(), active.end(), [](int k) { return k < 4; }) == 2);
  CHECK(std::count_if(active.begin(), active.end(), [](int k) { return k >= 4; }) == 2);
  for (int k : active) {
    CHECK_THAT(slots[k].gap, WithinAbs(-overlap, 1e-15));
    check_vec(slots[k].normal, kUp);
  }
}

TEST_CASE("contact geometry: box-box yawed box on an equal box touches at the octagon") {
  const double overlap = 1e-3, yaw_angle = 10 * M_PI / 180;
  Scene s;
  const GeomPose lower = s.geom(GeomType::Box, {0.1, 0.1, 0.1}, Vec3::Zero());
  const Quat yaw = about(kUp, yaw_angle);
  const Vec3 centre(0, 0, 0.2 - overlap);
  const auto slots = s.slots(lower, s.geom(GeomType::Box, {0.1, 0.1, 0.1}, centre, yaw));
  const std::vector<Vec2> octagon =
      clip_to_rectangle(bottom_corners_xy(yaw, centre, 0.1), 0.1, 0.1);
  REQUIRE(octagon.size() == 8);
  check_points_xy(slots, octagon, 1e-12);
  for (int k : active_slots(slots)) {
    CHECK_THAT(slots[k].gap, WithinAbs(-overlap, 1e-15));
    check_vec(slots[k].normal, kUp);
  }
}

TEST_CASE("contact geometry: box-box a tilted box on its edge has gaps along its face") {
  // The upper box turned 0.3 rad about y, its lowest edge 1 mm into the lower box's top face:
  // that edge's two ends at -1 mm, the opposite bottom edge at 2a·sin(0.3) - 1 mm.
  const double tilt = 0.3, half = 0.1, depth = 1e-3;
  const double lowest = half * (std::cos(tilt) + std::sin(tilt));
  Scene s;
  const GeomPose lower = s.geom(GeomType::Box, {0.5, 0.5, 0.1}, Vec3::Zero());
  const GeomPose upper = s.geom(GeomType::Box, {half, half, half}, {0, 0, 0.1 + lowest - depth},
                                about(Vec3::UnitY(), tilt));
  const auto slots = s.slots(lower, upper);
  const std::vector<int> active = active_slots(slots);
  REQUIRE(active.size() == 4);
  std::vector<double> gaps;
  for (int k : active) gaps.push_back(slots[k].gap);
  std::sort(gaps.begin(), gaps.end());
  CHECK_THAT(gaps[0], WithinAbs(-depth, 1e-14));
  CHECK_THAT(gaps[1], WithinAbs(-depth, 1e-14));
  CHECK_THAT(gaps[2], WithinAbs(2 * half * std::sin(tilt) - depth, 1e-14));
  CHECK_THAT(gaps[3], WithinAbs(2 * half * std::sin(tilt) - depth, 1e-14));
}

TEST_CASE("contact geometry: box-box crossing bars touch edge to edge at one point") {
  // Bar A along x and bar B along y, each turned 45 degrees about its own length so that an
  // edge faces the other: A's top edge at z = w√2, B's bottom edge at z = c - w√2.
  const double w = 0.05;
  const Quat a_turn = about(Vec3::UnitX(), M_PI / 4), b_turn = about(Vec3::UnitY(), M_PI / 4);
  for (const double gap : {0.01, -0.004}) {
    INFO("gap " << gap);
    Scene s;
    const double c = 2 * w * std::sqrt(2.0) + gap;
    const GeomPose a = s.geom(GeomType::Box, {0.5, w, w}, Vec3::Zero(), a_turn);
    const GeomPose b = s.geom(GeomType::Box, {w, 0.5, w}, {0, 0, c}, b_turn);
    const auto slots = s.slots(a, b);
    CHECK(active_slots(slots) == std::vector<int>{kEdgeSlot});
    CHECK_THAT(slots[kEdgeSlot].gap, WithinAbs(gap, 1e-14));
    check_vec(slots[kEdgeSlot].normal, kUp, 1e-14);
    check_vec(slots[kEdgeSlot].point, {0, 0, c / 2}, 1e-14);
    // From B to A: the same point, the normal reversed.
    const auto reversed = s.slots(b, a);
    CHECK(active_slots(reversed) == std::vector<int>{kEdgeSlot});
    CHECK_THAT(reversed[kEdgeSlot].gap, WithinAbs(gap, 1e-14));
    check_vec(reversed[kEdgeSlot].normal, -kUp, 1e-14);
  }
}

// Bar B turning from 45° (an edge down, crossing bar A's top edge) to flat (its bottom face
// on that edge). Chosen at each pose itself, the separating axis switches from the edge-edge
// axis to B's face on the way, and the slots jump: the edge-edge point turns off and face
// points turn on, so an impulse on the one vanishes within one Newton step. Chosen at the
// step's start (45°), every slot is a continuous function of the end pose.
TEST_CASE("contact geometry: box-box slots are continuous in the end pose with the choice fixed") {
  const double w = 0.05, c = 2 * w * std::sqrt(2.0) - 0.004, start = M_PI / 4;
  Scene s;
  const GeomPose a = s.geom(GeomType::Box, {0.5, w, w}, Vec3::Zero(), about(Vec3::UnitX(), start));
  auto bar_b = [&](double angle) {
    return s.geom(GeomType::Box, {w, 0.5, w}, {0, 0, c}, about(Vec3::UnitY(), angle));
  };
  const GeomPose b_start = bar_b(start);
  const int samples = 60;
  const double step = start / samples;
  auto largest_change = [](const std::vector<Scene::Slot>& x, const std::vector<Scene::Slot>& y) {
    double change = 0;
    for (std::size_t k = 0; k < x.size(); ++k)
      change = std::max(change, std::abs(x[k].gap - y[k].gap));
    return change;
  };
  double own_jump = 0, fixed_change = 0;
  std::vector<Scene::Slot> own_before = s.slots(a, b_start), fixed_before = own_before;
  CHECK(active_slots(own_before) == std::vector<int>{kEdgeSlot});
  for (int i = 1; i <= samples; ++i) {
    const GeomPose b = bar_b(start - i * step);
    const auto own = s.slots(a, b), fixed = s.step_slots(a, b_start, a, b);
    own_jump = std::max(own_jump, largest_change(own_before, own));
    fixed_change = std::max(fixed_change, largest_change(fixed_before, fixed));
    CHECK(active_slots(fixed) == std::vector<int>{kEdgeSlot});
    own_before = own;
    fixed_before = fixed;
  }
  // A slot switched on or off (kInactiveGap = 1 m) with the choice at each pose...
  CHECK(own_jump > 0.5);
  // ... and none moves by more than B's reach (w√2) times the turn with the choice fixed.
  CHECK(fixed_change <= w * std::sqrt(2.0) * step);
}

// A box on a larger one with an edge flush (models/box_tower.xml): rounding puts the corners
// on that edge a picometre inside the support's face or some nm outside it, and the choice
// made at either must give the same slots. A corner outside by less than kClipMargin is its
// slot's point itself, not its edge's crossing into the face, whose gap slides along the
// tilted edge and puts a force along the face into the normal impulse (bench/RESULTS.md,
// sixteenth session).
TEST_CASE("contact geometry: box-box a flush corner is its own point on either side of the edge") {
  Scene s;
  const GeomPose base = s.geom(GeomType::Box, {0.12, 0.12, 0.08}, Vec3::Zero());
  const double height = 0.08 + 0.06 - 1e-5, outside = 5e-6;  // 10 µm deep, 5 µm over the edge
  auto top = [&](double shift) {
    return s.geom(GeomType::Box, {0.06, 0.06, 0.06}, {0.06 + shift, 0, height});
  };
  const GeomPose end = top(outside);
  const auto chosen_inside = s.step_slots(base, top(-1e-13), base, end);
  const auto chosen_outside = s.step_slots(base, top(outside), base, end);
  REQUIRE(active_slots(chosen_inside).size() == 4);
  REQUIRE(active_slots(chosen_inside) == active_slots(chosen_outside));
  double overhang = -1;
  for (int k : active_slots(chosen_inside)) {
    INFO("slot " << k);
    CHECK_THAT(chosen_outside[k].gap, WithinAbs(chosen_inside[k].gap, 1e-15));
    CHECK((chosen_outside[k].point - chosen_inside[k].point).norm() < 1e-15);
    overhang = std::max(overhang, chosen_inside[k].point.x() - 0.12);
  }
  CHECK_THAT(overhang, WithinAbs(outside, 1e-15));  // the corners themselves, over the edge
}

TEST_CASE("contact geometry: box-box separated boxes have no penetrating slot") {
  Scene s;
  const GeomPose a = s.geom(GeomType::Box, {0.1, 0.1, 0.1}, Vec3::Zero());
  // Beside A along x, 0.3 apart: the faces facing each other overlap in (y, z), gap 0.3.
  const auto beside = s.slots(a, s.geom(GeomType::Box, {0.1, 0.1, 0.1}, {0.5, 0.1, 0.05}));
  CHECK_FALSE(active_slots(beside).empty());
  for (const auto& slot : beside) CHECK(slot.gap >= 0.3 - 1e-14);
  for (int k : active_slots(beside)) check_vec(beside[k].normal, Vec3::UnitX());
  // Far off diagonally and turned: whatever the axis, no slot reports contact.
  const auto far = s.slots(
      a, s.geom(GeomType::Box, {0.1, 0.2, 0.05}, {0.6, 0.5, 0.7}, about(Vec3(1, 2, 3), 0.7)));
  for (const auto& slot : far) CHECK(slot.gap > 0.1);
}

TEST_CASE("contact geometry: box-box slot kinds") {
  CHECK(contact_slot_count(GeomType::Box, GeomType::Box) == 9);
  CHECK(contact_slot_kind(GeomType::Box, GeomType::Box, 3) == "box-box face point 3");
  CHECK(contact_slot_kind(GeomType::Box, GeomType::Box, 8) == "box-box edge-edge");
}

// docs/status.md's slot counts: plane-box 8 corners, box-box 9, one or two for the sphere,
// capsule and cylinder pairs (two for a capsule's end spheres against a plane), three for
// capsule-cylinder, four for capsule-box (the ends and the axis clipped to the box's face),
// seven for cylinder-cylinder.
TEST_CASE("contact geometry: a fixed number of slots per geom pair") {
  using T = GeomType;
  CHECK(contact_slot_count(T::Plane, T::Box) == 8);
  CHECK(contact_slot_count(T::Box, T::Box) == 9);
  CHECK(contact_slot_count(T::Plane, T::Sphere) == 1);
  CHECK(contact_slot_count(T::Plane, T::Capsule) == 2);
  CHECK(contact_slot_count(T::Plane, T::Cylinder) == 1);
  CHECK(contact_slot_count(T::Sphere, T::Sphere) == 1);
  CHECK(contact_slot_count(T::Sphere, T::Capsule) == 1);
  CHECK(contact_slot_count(T::Sphere, T::Box) == 1);
  CHECK(contact_slot_count(T::Capsule, T::Capsule) == 1);
  CHECK(contact_slot_count(T::Capsule, T::Box) == 4);
  CHECK(contact_slot_count(T::Box, T::Cylinder) == 1);
  CHECK(contact_slot_count(T::Sphere, T::Cylinder) == 1);
  CHECK(contact_slot_count(T::Capsule, T::Cylinder) == 3);
  CHECK(contact_slot_count(T::Cylinder, T::Cylinder) == 7);
  CHECK(contact_slot_count(T::Plane, T::Mesh) == 8);
}

TEST_CASE("contact geometry: box-cylinder rim points against a box face and edge") {
  Scene s;
  const GeomPose box = s.geom(GeomType::Box, {0.15, 0.5, 0.02}, {1, 0, 0.02});
  const Quat axis_y = about(Vec3::UnitX(), M_PI / 2);
  // One slot per pair, as against a plane. A wheel above the top face: rim 0.01 above it, at
  // the middle of the touching line.
  const auto above =
      s.slots(box, s.geom(GeomType::Cylinder, {0.08, 0.02, 0}, {1, 0, 0.13}, axis_y));
  REQUIRE(above.size() == 1);
  CHECK_THAT(above[0].gap, WithinAbs(0.01, 1e-14));
  check_vec(above[0].normal, kUp);
  CHECK_THAT(above[0].point.y(), WithinAbs(0, 1e-14));
  // A wheel in front of the top front edge (x = 0.85, z = 0.04): distance from the edge to
  // the axis minus the radius, along the line from the edge to the axis.
  const Vec3 centre(0.85 - 0.05, 0, 0.04 + 0.07);
  const auto edge = s.slots(box, s.geom(GeomType::Cylinder, {0.08, 0.02, 0}, centre, axis_y));
  REQUIRE(edge.size() == 1);
  CHECK_THAT(edge[0].gap, WithinAbs(std::hypot(0.05, 0.07) - 0.08, 1e-12));
  check_vec(edge[0].normal, Vec3(-0.05, 0, 0.07).normalized(), 1e-12);
  // The same wheel pressed 2 mm into the edge: the gap stays the signed distance along the
  // edge-to-axis line (a rim point measured against the box as a point would switch to the
  // top or front face here, and Newton then cycles between the two normals).
  const Vec3 towards = Vec3(-0.05, 0, 0.07).normalized();
  const Vec3 pressed = Vec3(0.85, 0, 0.04) + 0.078 * towards;
  const auto into = s.slots(box, s.geom(GeomType::Cylinder, {0.08, 0.02, 0}, pressed, axis_y));
  REQUIRE(into.size() == 1);
  CHECK_THAT(into[0].gap, WithinAbs(-0.002, 1e-12));
  check_vec(into[0].normal, towards, 1e-12);
  // Cambered by α about x beyond the blend above the top face: the lower end circle's rim,
  // which drops by L sin|α|, the rim by r cos α.
  for (const double alpha : {0.3, -0.3}) {
    const auto cambered = s.slots(box, s.geom(GeomType::Cylinder, {0.08, 0.02, 0}, {1, 0, 0.13},
                                              about(Vec3::UnitX(), M_PI / 2 + alpha)));
    REQUIRE(cambered.size() == 1);
    CHECK_THAT(cambered[0].gap,
               WithinAbs(0.09 - 0.02 * std::sin(std::abs(alpha)) - 0.08 * std::cos(alpha), 1e-12));
  }
  // An end face flat against the box's +y side, 1 cm away: the near circle's gap is 1 cm (up
  // to the ε-guarded norm of the in-plane direction: r·1e-9 m).
  const auto beside =
      s.slots(box, s.geom(GeomType::Cylinder, {0.08, 0.02, 0}, {1, 0.53, 0.02}, axis_y));
  REQUIRE(beside.size() == 1);
  CHECK_THAT(beside[0].gap, WithinAbs(0.01, 1e-9));
  check_vec(beside[0].normal, Vec3::UnitY());
}

// Distance from p to a solid cylinder (axis z in its frame, radius r, half-length l) by brute
// force: the nearest of dense samples of its side, its two end discs and its rims. Independent
// of the symbolic closed form; accurate to about the sample spacing.
double sampled_cylinder_distance(const Vec3& p_local, double r, double l) {
  double best = INFINITY;
  const int n = 720;
  for (int i = 0; i < n; ++i) {
    const double angle = 2 * M_PI * i / n;
    const Vec3 dir(std::cos(angle), std::sin(angle), 0);
    for (int j = 0; j <= 200; ++j) {
      const double t = -1 + 2.0 * j / 200;
      best = std::min(best, (p_local - Vec3(r * dir.x(), r * dir.y(), t * l)).norm());
      for (double end : {-l, l})
        best = std::min(
            best,
            (p_local - Vec3(0.5 * (t + 1) * r * dir.x(), 0.5 * (t + 1) * r * dir.y(), end)).norm());
    }
  }
  return best;
}

TEST_CASE("contact geometry: sphere-cylinder against the side, an end, a rim and inside") {
  // Cylinder radius 0.5, half-length 1 along world z at the origin; sphere radius 0.2.
  const Vec3 size(0.5, 1, 0);
  struct Case {
    Vec3 centre;
    double gap;
    Vec3 normal;  // from the sphere to the cylinder
  };
  const Case cases[] = {
      {{1, 0, 0.3}, 0.3, {-1, 0, 0}},         // beside the curved side
      {{0.2, 0.1, 1.5}, 0.3, {0, 0, -1}},     // above the top disc
      {{0.8, 0, 1.4}, 0.3, {-0.6, 0, -0.8}},  // beyond the rim: 0.5 from (0.5, 0, 1)
      {{0.45, 0, 0}, -0.25, {-1, 0, 0}},      // centre inside, nearer the side
      {{0, 0.1, -0.9}, -0.3, {0, 0, 1}},      // centre inside, nearer the bottom disc
  };
  for (const Case& c : cases) {
    INFO("sphere at " << c.centre.transpose());
    Scene s;
    const auto slots = s.slots(s.geom(GeomType::Sphere, {0.2, 0, 0}, c.centre),
                               s.geom(GeomType::Cylinder, size, Vec3::Zero()));
    REQUIRE(slots.size() == 1);
    CHECK_THAT(slots[0].gap, WithinAbs(c.gap, 1e-12));
    check_vec(slots[0].normal, c.normal);
    // The point is midway between the two surfaces along the normal.
    check_vec(slots[0].point, c.centre + (0.2 + 0.5 * c.gap) * c.normal);
  }
  SECTION("turned and moved, outside: the gap is the sampled distance minus the radius") {
    const Quat turn = about({1, 2, 3}, 0.7);
    const Vec3 where(0.3, -0.2, 0.1);
    for (const Vec3& local : {Vec3(0.9, 0.4, 0.2), Vec3(-0.3, 0.6, 1.3), Vec3(0.7, -0.2, -1.25)}) {
      INFO("local " << local.transpose());
      Scene s;
      const auto slots = s.slots(s.geom(GeomType::Sphere, {0.2, 0, 0}, where + turn * local),
                                 s.geom(GeomType::Cylinder, size, where, turn));
      CHECK_THAT(slots[0].gap, WithinAbs(sampled_cylinder_distance(local, 0.5, 1) - 0.2, 2e-3));
    }
  }
}

TEST_CASE("contact geometry: capsule-cylinder ends and the point over the axis") {
  // A wheel lying along world x (radius 0.3, half-length 0.5); a capsule (radius 0.05,
  // half-length 0.4) along y crossing above its middle: only the closest slot touches.
  const Quat along_x = about(Vec3::UnitY(), M_PI / 2), along_y = about(Vec3::UnitX(), M_PI / 2);
  Scene s;
  const auto crossing = s.slots(s.geom(GeomType::Capsule, {0.05, 0.4, 0}, {0.1, 0, 0.45}, along_y),
                                s.geom(GeomType::Cylinder, {0.3, 0.5, 0}, Vec3::Zero(), along_x));
  REQUIRE(crossing.size() == 3);
  CHECK_THAT(crossing[2].gap, WithinAbs(0.1, 1e-12));
  check_vec(crossing[2].normal, {0, 0, -1});
  const double end_gap = std::hypot(0.4, 0.45) - 0.3 - 0.05;
  CHECK_THAT(crossing[0].gap, WithinAbs(end_gap, 1e-12));
  CHECK_THAT(crossing[1].gap, WithinAbs(end_gap, 1e-12));
  // Lying along the top of an upright cylinder's disc: both ends and the middle touch.
  Scene s2;
  const auto lying = s2.slots(s2.geom(GeomType::Capsule, {0.05, 0.2, 0}, {0, 0, 1.04}, along_y),
                              s2.geom(GeomType::Cylinder, {0.5, 1, 0}, Vec3::Zero()));
  for (const auto& slot : lying) {
    CHECK_THAT(slot.gap, WithinAbs(-0.01, 1e-12));
    check_vec(slot.normal, {0, 0, -1});
  }
  CHECK(contact_slot_kind(GeomType::Capsule, GeomType::Cylinder, 2) == "capsule-cylinder closest");
}

// Distance from p to a solid cylinder (frame `pose`, radius r, half-length l), closed form
// outside (the clamped point), 0 inside.
double cylinder_distance(const Vec3& p, const Vec3& centre, const Quat& turn, double r, double l) {
  const Vec3 local = turn.inverse() * (p - centre);
  const double rho = std::hypot(local.x(), local.y());
  return std::hypot(std::max(rho - r, 0.0), local.z() - std::clamp(local.z(), -l, l));
}

TEST_CASE("contact geometry: cylinder-cylinder stacked, overhanging, crossing and side by side") {
  const Quat along_x = about(Vec3::UnitY(), M_PI / 2), along_y = about(Vec3::UnitX(), M_PI / 2);
  const Vec3 down(0, 0, -1);
  // Slots: 0 the first's lowest point, 1 and 2 the side points, 3-6 the lens corners. Those
  // switched off for the step have a gap of 1 m.
  const auto check_off = [](const std::vector<Scene::Slot>& slots, std::vector<int> off) {
    REQUIRE(slots.size() == 7);
    for (int k : off) {
      INFO("slot " << k);
      CHECK(slots[k].gap == 1.0);
    }
  };
  // Discs flat on each other: the lens corners, 2 % of the way in from the diamond
  // inscribed in the lens of the two discs seen along the second's axis.
  const auto check_corners = [&](const std::vector<Scene::Slot>& slots,
                                 const std::array<Vec3, 4>& corners, double gap) {
    for (int k = 0; k < 4; ++k) {
      INFO("corner " << k);
      CHECK_THAT(slots[3 + k].gap, WithinAbs(gap, 1e-12));
      check_vec(slots[3 + k].normal, down, 1e-12);
      check_vec(slots[3 + k].point, corners[k], 1e-6);
    }
  };
  SECTION("a can on a wider post, coaxial: a diamond on the can's rim") {
    Scene s;
    const auto slots = s.slots(s.geom(GeomType::Cylinder, {0.1, 0.1, 0}, {0, 0, 0.25}),
                               s.geom(GeomType::Cylinder, {0.2, 0.1, 0}, Vec3::Zero()));
    check_off(slots, {0, 1, 2});
    // e turns to the post's x axis where the offset vanishes.
    check_corners(slots,
                  {Vec3(-0.098, 0, 0.125), Vec3(0.098, 0, 0.125), Vec3(0, 0.098, 0.125),
                   Vec3(0, -0.098, 0.125)},
                  0.05);
  }
  SECTION("the post against a can pressed 5 mm into it: the can's end plane, not its side") {
    // The corners lie 2 mm inside the can's rim: the can's nearest surface to them would be
    // its side once they are deeper than that (a horizontal normal, the can unsupported).
    Scene s;
    const auto slots = s.slots(s.geom(GeomType::Cylinder, {0.2, 0.1, 0}, Vec3::Zero()),
                               s.geom(GeomType::Cylinder, {0.1, 0.1, 0}, {0, 0, 0.195}));
    check_off(slots, {0, 1, 2});
    for (int k = 0; k < 4; ++k) {
      INFO("corner " << k);
      CHECK_THAT(slots[3 + k].gap, WithinAbs(-0.005, 1e-12));
      check_vec(slots[3 + k].normal, -down, 1e-12);
      CHECK_THAT(slots[3 + k].point.z(), WithinAbs(0.0975, 1e-12));
      CHECK_THAT(slots[3 + k].point.head<2>().norm(), WithinAbs(0.098, 1e-6));
    }
  }
  SECTION("overhanging the post's rim: the lens from x = 0.15 to 0.2") {
    Scene s;
    const auto slots = s.slots(s.geom(GeomType::Cylinder, {0.1, 0.1, 0}, {0.25, 0, 0.25}),
                               s.geom(GeomType::Cylinder, {0.2, 0.1, 0}, Vec3::Zero()));
    check_off(slots, {0, 1, 2});
    // Middle 0.175, half-width there √(0.1² − 0.075²) (the can's circle is the narrower).
    const double w = 0.98 * std::sqrt(0.01 - 0.075 * 0.075);
    check_corners(slots,
                  {Vec3(0.175 - 0.98 * 0.025, 0, 0.125), Vec3(0.175 + 0.98 * 0.025, 0, 0.125),
                   Vec3(0.175, w, 0.125), Vec3(0.175, -w, 0.125)},
                  0.05);
  }
  SECTION("a can tilted by 10 degrees over the post: its lowest rim point") {
    Scene s;
    const Quat tilt = about(Vec3::UnitY(), 10 * M_PI / 180);
    const auto slots = s.slots(s.geom(GeomType::Cylinder, {0.1, 0.1, 0}, {0, 0, 0.25}, tilt),
                               s.geom(GeomType::Cylinder, {0.2, 0.1, 0}, Vec3::Zero()));
    const Vec3 rim = Vec3(0, 0, 0.25) + tilt * Vec3(0.1, 0, -0.1);  // its lowest rim point
    CHECK_THAT(slots[0].gap, WithinAbs(rim.z() - 0.1, 1e-12));
    CHECK(slots[0].gap <= min_gap({slots.begin() + 3, slots.end()}));
  }
  SECTION("logs crossing over their middles: the lowest point of the upper one") {
    Scene s;
    const auto slots = s.slots(s.geom(GeomType::Cylinder, {0.05, 0.3, 0}, {0, 0, 0.17}, along_y),
                               s.geom(GeomType::Cylinder, {0.1, 0.3, 0}, Vec3::Zero(), along_x));
    CHECK_THAT(slots[0].gap, WithinAbs(0.02, 1e-12));
    check_vec(slots[0].normal, down);
    check_vec(slots[0].point, {0, 0, 0.11});
    check_off(slots, {1, 2, 3, 4, 5, 6});
  }
  SECTION("a log across a roller away from its middle: the log's side slot") {
    // Log along y centred at y = 0, roller along x at y = -0.15, pressed 1 cm into each
    // other at y = -0.15, where the log's lowest point (at its end circle, 3.5 cm from the
    // roller) is not.
    Scene s;
    const auto slots =
        s.slots(s.geom(GeomType::Cylinder, {0.05, 0.25, 0}, {1.02, 0, 0.24}, along_y),
                s.geom(GeomType::Cylinder, {0.1, 0.3, 0}, {1, -0.15, 0.1}, along_x));
    CHECK_THAT(slots[0].gap, WithinAbs(std::hypot(0.1, 0.09) - 0.1, 1e-12));
    CHECK_THAT(slots[1].gap, WithinAbs(-0.01, 1e-12));
    check_vec(slots[1].normal, down);
    check_vec(slots[1].point, {1.02, -0.15, 0.195});
    check_off(slots, {2, 3, 4, 5, 6});
  }
  SECTION("a log touching a roller exactly: a unit normal") {
    // Rounding puts the side point a hair outside the roller, where normalising the
    // clamped offset gave a normal of length ~1e-5; within kSurfaceBand it is the face's.
    Scene s;
    const auto slots =
        s.slots(s.geom(GeomType::Cylinder, {0.05, 0.25, 0}, {1.02, 0, 0.25}, along_y),
                s.geom(GeomType::Cylinder, {0.1, 0.3, 0}, {1, -0.15, 0.1}, along_x));
    CHECK_THAT(slots[1].gap, WithinAbs(0, 1e-15));
    check_vec(slots[1].normal, down);
  }
  SECTION("parallel rollers side by side, pressed 1 cm into each other") {
    Scene s;
    const auto slots = s.slots(s.geom(GeomType::Cylinder, {0.1, 0.3, 0}, {0.05, 0.19, 0}, along_x),
                               s.geom(GeomType::Cylinder, {0.1, 0.3, 0}, Vec3::Zero(), along_x));
    CHECK_THAT(slots[0].gap, WithinAbs(-0.01, 1e-12));
    check_vec(slots[0].normal, {0, -1, 0});
    check_off(slots, {1, 2, 3, 4, 5, 6});
  }
  SECTION("turned at random, apart: no slot is nearer than the solids are") {
    // A slot's gap is a point's distance to the other solid, never less than the distance
    // between the solids (sampled here on the first cylinder's surface, an upper bound of
    // it to within the sample spacing).
    const Vec3 size_a(0.1, 0.2, 0), size_b(0.15, 0.1, 0);
    const Quat turn_b = about({0.3, -1, 0.2}, 0.9);
    const Vec3 where_b(0.05, -0.1, 0.02);
    for (int k = 0; k < 6; ++k) {
      const Quat turn_a = about(Vec3(1, 2 * k - 5, 3 - k), 0.5 + 0.4 * k);
      const Vec3 where_a = where_b + Vec3(0.1 * (k - 2), 0.3 - 0.05 * k, 0.2 + 0.03 * k);
      double sampled = INFINITY;
      for (int i = 0; i < 360; ++i) {
        const double angle = 2 * M_PI * i / 360;
        for (int j = 0; j <= 40; ++j) {
          const double t = -1 + 2.0 * j / 40;
          const Vec3 side(size_a.x() * std::cos(angle), size_a.x() * std::sin(angle),
                          t * size_a.y());
          const Vec3 disc(0.5 * (t + 1) * side.x(), 0.5 * (t + 1) * side.y(), size_a.y());
          for (const Vec3& local : {side, disc, Vec3(disc.x(), disc.y(), -size_a.y())})
            sampled = std::min(sampled, cylinder_distance(where_a + turn_a * local, where_b, turn_b,
                                                          size_b.x(), size_b.y()));
        }
      }
      INFO("pose " << k << ", sampled distance " << sampled);
      REQUIRE(sampled > 0.01);
      Scene s;
      const auto slots = s.slots(s.geom(GeomType::Cylinder, size_a, where_a, turn_a),
                                 s.geom(GeomType::Cylinder, size_b, where_b, turn_b));
      for (const auto& slot : slots) CHECK(slot.gap >= sampled - 0.01);
      CHECK(min_gap(slots) <= sampled + 0.05);
    }
  }
  CHECK(contact_slot_kind(GeomType::Cylinder, GeomType::Cylinder, 2) ==
        "cylinder-cylinder second's side");
  CHECK(contact_slot_kind(GeomType::Cylinder, GeomType::Cylinder, 6) ==
        "cylinder-cylinder lens corner 3");
}

TEST_CASE("contact geometry: pairs without a collider have no slots") {
  CHECK(contact_slot_count(GeomType::Ellipsoid, GeomType::Cylinder) == 0);
  CHECK(contact_slot_count(GeomType::Ellipsoid, GeomType::Mesh) == 0);
  CHECK(canonical_pair_order(GeomType::Plane, GeomType::Box));
  CHECK_FALSE(canonical_pair_order(GeomType::Cylinder, GeomType::Box));
}

// The seam of per-type kernels (docs/design.md, "Kernels per type"): every primitive collider
// takes the geoms' sizes as expressions, so the same code lowers a pair with its sizes folded
// in as constants (the model's unrolled kernels) or taken as inputs (a template's). Both must
// give the same slots, for every primitive pair, touching and apart, turned and not.
TEST_CASE("contact geometry: every primitive pair gives the same slots with its sizes as inputs") {
  struct Geom {
    GeomType type;
    Vec3 size;
  };
  const Geom geoms[] = {{GeomType::Plane, Vec3(0, 0, 1)},
                        {GeomType::Sphere, Vec3(0.1, 0, 0)},
                        {GeomType::Capsule, Vec3(0.05, 0.12, 0)},
                        {GeomType::Box, Vec3(0.1, 0.08, 0.06)},
                        {GeomType::Cylinder, Vec3(0.07, 0.05, 0)}};
  const Quat turn_a = about(Vec3(1, 2, 0.5), 0.4), turn_b = about(Vec3(-0.3, 1, 1), 1.1);
  int pairs = 0;
  for (const Geom& a : geoms)
    for (const Geom& b : geoms) {
      if (!canonical_pair_order(a.type, b.type) || contact_slot_count(a.type, b.type) == 0)
        continue;
      ++pairs;
      for (const double apart : {0.05, 0.3}) {
        INFO(contact_slot_kind(a.type, b.type, 0) << ", centres " << apart << " m apart");
        const Vec3 centre_b(0.02, -0.03, apart);
        auto slots = [&](bool symbolic_sizes) {
          Scene scene(symbolic_sizes);
          return scene.slots(scene.geom(a.type, a.size, Vec3::Zero(), turn_a),
                             scene.geom(b.type, b.size, centre_b, turn_b));
        };
        const std::vector<Scene::Slot> folded = slots(false), inputs = slots(true);
        REQUIRE(folded.size() == inputs.size());
        for (std::size_t k = 0; k < folded.size(); ++k) {
          CHECK_THAT(inputs[k].gap, WithinAbs(folded[k].gap, 1e-12));
          check_vec(inputs[k].point, folded[k].point);
          check_vec(inputs[k].normal, folded[k].normal);
        }
      }
    }
  CHECK(pairs == 14);  // every primitive pair but plane–plane
}
