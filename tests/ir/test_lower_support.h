// Helpers of the lowering tests: hand-built models and interpreter evaluation of a program.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "frontend/compile.h"
#include "ir/interpreter.h"
#include "ir/lower/gradcheck.h"
#include "ir/lower/lower.h"

namespace talon::lower_test {

inline SpecOrigin origin(const std::string& element) {
  return {{"test.xml", 1}, element};
}

// A solid box body (half-sizes `half`) with its geom; parent -1 = the world.
inline int add_box_body(ModelSpec& spec, const std::string& name, int parent, const Vec3& pos,
                        double mass, const Vec3& half, bool with_geom = true) {
  BodySpec body;
  body.name = name;
  body.origin = origin("<body name='" + name + "'>");
  body.parent = parent;
  body.pose.pos = pos;
  body.mass = mass;
  const Vec3 s = half.cwiseProduct(half);
  body.inertia = (mass / 3.0 * Vec3(s.y() + s.z(), s.x() + s.z(), s.x() + s.y())).asDiagonal();
  spec.bodies.push_back(body);
  const int index = static_cast<int>(spec.bodies.size()) - 1;
  if (with_geom) {
    GeomSpec geom;
    geom.name = name;
    geom.origin = origin("<geom name='" + name + "'>");
    geom.body = index;
    geom.type = GeomType::Box;
    geom.size = half;
    spec.geoms.push_back(geom);
  }
  return index;
}

inline int add_joint(ModelSpec& spec, const std::string& name, int body, JointType type,
                     const Vec3& axis = Vec3::UnitY(), const Vec3& pos = Vec3::Zero()) {
  JointSpec j;
  j.name = name;
  j.origin = origin("<joint name='" + name + "'>");
  j.body = body;
  j.type = type;
  j.axis = axis;
  j.pos = pos;
  spec.joints.push_back(j);
  return static_cast<int>(spec.joints.size()) - 1;
}

inline void add_geom(ModelSpec& spec, const std::string& name, int body, GeomType type,
                     const Vec3& size, const Pose& pose = {}, double friction = 1.0,
                     int condim = 3) {
  GeomSpec geom;
  geom.name = name;
  geom.origin = origin("<geom name='" + name + "'>");
  geom.body = body;
  geom.type = type;
  geom.size = size;
  geom.pose = pose;
  geom.friction.x() = friction;
  geom.condim = condim;
  spec.geoms.push_back(geom);
}

inline Model compile(const ModelSpec& spec) {
  Expected<Model> model = compile_model(spec);
  INFO(model.diagnostics().format());
  REQUIRE(model.ok());
  return *model;
}

inline ir::ResidualProgram lower(const Model& model, const ir::LowerOptions& options = {}) {
  Expected<ir::ResidualProgram> prog = ir::lower_model(model, options);
  INFO(prog.diagnostics().format());
  REQUIRE(prog.ok());
  return std::move(*prog);
}

// The model lowered with every contact pair's and joint set's rows written out in the
// program's kernels (not as per-type templates, the default; ir/lower/pair_templates.h,
// ir/lower/joint_templates.h).
inline ir::ResidualProgram lower_unrolled(const Model& model) {
  ir::LowerOptions options;
  options.set_templates(false);
  return lower(model, options);
}

// A point at rest at the reference configuration: u = 0, λ = 0, ctrl = 0, default params.
inline ir::KernelPoint rest_point(const ir::ResidualProgram& prog, double h = 0.01) {
  ir::KernelPoint p;
  p.q_minus = prog.reference_q;
  p.u_minus.assign(prog.ndyn(), 0.0);
  p.u_plus.assign(prog.ndyn(), 0.0);
  p.lambda.assign(prog.nrows, 0.0);
  p.ctrl.assign(prog.nu, 0.0);
  for (std::size_t i = 0; i < prog.params.size(); ++i) p.params.push_back(prog.param_info[i].value);
  p.h = h;
  p.friction_w.assign(prog.nfriction, 0.0);
  return p;
}

// One named output group of a kernel evaluated at a point.
inline std::vector<double> output(const ir::ResidualProgram& prog, const std::string& kernel,
                                  const std::string& group, const ir::KernelPoint& p,
                                  const std::vector<double>& extra = {}) {
  const std::vector<double> all = ir::evaluate_kernel(prog, kernel, p, extra);
  const ir::Slice* s = prog.kernel(kernel).output(group);
  REQUIRE(s != nullptr);
  return std::vector<double>(all.begin() + s->offset, all.begin() + s->offset + s->size);
}

// Index of the first constraint row whose label contains `text`.
inline int find_row(const ir::ResidualProgram& prog, const std::string& text) {
  for (int i = 0; i < prog.nrows; ++i)
    if (prog.rows[i].label.find(text) != std::string::npos) return i;
  FAIL("no row labelled like '" << text << "'");
  return -1;
}

// Sets body b's pose (sim frame origin and orientation) in q, converting to the COM.
inline void set_pose(const Model& model, std::vector<double>& q, int b, const Pose& frame) {
  const Vec3 com = frame.apply(model.sim_com[b]);
  const Quat r = frame.quat.normalized();
  const double values[7] = {com.x(), com.y(), com.z(), r.w(), r.x(), r.y(), r.z()};
  for (int i = 0; i < 7; ++i) q[7 * b + i] = values[i];
}

}  // namespace talon::lower_test
