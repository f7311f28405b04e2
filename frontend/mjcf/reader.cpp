// The MJCF reader: MuJoCo XML -> ModelSpec, following MuJoCo 2.2.2.
//
// Supported (read and used):
//   <mujoco model>
//   <include file>                 anywhere; relative to the including file's directory
//                                  (MuJoCo 2.2.2 uses the main file's); each file once
//   <compiler>                     angle, eulerseq, coordinate="local", inertiafromgeom,
//                                  inertiagrouprange, boundmass, boundinertia,
//                                  balanceinertia, settotalmass, autolimits, meshdir,
//                                  strippath, discardvisual (others accepted, ignored)
//   <option>                       timestep, gravity (others accepted, ignored; <flag> too)
//   <default class>                nested classes; joint, geom, actuator and mesh defaults
//   <asset><mesh>                  name, class, file (resolved against meshdir), scale
//   <asset><hfield>                name, size, file (MuJoCo's binary file or a PNG image,
//                                  read as MuJoCo does: hfield.cpp), or nrow, ncol; an
//                                  hfield geom in <worldbody> is a terrain
//   <worldbody>, <body>            name, childclass, pos, quat/axisangle/xyaxes/zaxis/euler
//     <inertial>                   pos, mass, diaginertia or fullinertia, orientation
//     <joint>                      free/ball/hinge/slide: pos, axis, range, limited,
//                                  damping, stiffness, armature, ref, springref,
//                                  frictionloss, class
//     <freejoint>                  name
//     <geom>                       plane/sphere/capsule/box/cylinder/ellipsoid/mesh: size
//                                  or fromto, pos, orientation, mass or density, friction,
//                                  contype, conaffinity, condim, priority, group, mesh,
//                                  class
//   <actuator>                     motor, position (kp), velocity (kv), general (dyntype
//                                  none, gaintype fixed/affine-constant, biastype
//                                  none/affine) with a joint transmission: gear[0],
//                                  ctrlrange/ctrllimited, forcerange/forcelimited, class
//   <contact><exclude>             body1, body2
//   <keyframe><key>                name, qpos, qvel, ctrl (time accepted)
// Accepted and ignored (rendering, sensing, bookkeeping): <size>, <visual>, <statistic>,
//   <custom>, <asset> textures/materials/skins, <site>, <camera>, <light>,
//   <sensor>. A mocap body is kept as a static body (with a note). Soft-contact
//   parameters (solref, solimp, margin, gap, solmix, ...) are accepted with one
//   note per model: Talon's contact is hard.
// Unsupported (an "unsupported: ..." error with file:line): <tendon> contents, <equality>
//   contents, <contact><pair>, <composite>, hfield geoms in a body,
//   primitive geoms fitted to meshes,
//   meshes without a file, the inertia of a non-convex mesh (give an <inertial>), springdamper,
//   actuator transmissions other than joint, actuators on free/ball joints, activation
//   dynamics, intvelocity/damper/cylinder/muscle/adhesion actuators, keyframe act/mpos/
//   mquat, coordinate="global", and the elements of later MuJoCo releases (plugin,
//   extension, flexcomp, replicate, frame, ...).
// Anything outside MuJoCo 2.2.2's schema is an "unknown element"/"unknown attribute" error.
//
// Sections are read in MuJoCo's order whatever their order in the file: compiler, option,
// default, asset, worldbody, contact, actuator, keyframe.
#include <algorithm>
#include <filesystem>

#include "common/read_file.h"
#include "frontend/load.h"
#include "frontend/mjcf/reader_context.h"
#include "frontend/mjcf/schema.h"
#include "frontend/mjcf/xml_tree.h"

namespace talon {
namespace mjcf {

SpecOrigin origin_of(const XmlNode& node) {
  return {node.loc, node.label()};
}

std::vector<int> ReaderContext::sections(const std::string& section) const {
  std::vector<int> found;
  for (int child : tree.root().children)
    if (tree[child].name == section) found.push_back(child);
  return found;
}

void apply_total_mass(ReaderContext& ctx) {
  if (!(ctx.compiler.settotalmass > 0)) return;
  double total = 0;
  for (const BodySpec& body : ctx.spec.bodies) total += body.mass;
  // mj_setTotalmass: one factor for every body's mass and inertia.
  const double scale = ctx.compiler.settotalmass / std::max(1e-15, total);
  for (BodySpec& body : ctx.spec.bodies) {
    body.mass *= scale;
    body.inertia *= scale;
  }
}

namespace {

Expected<ModelSpec> read_tree(const XmlTree& tree, const std::string& path, Diagnostics& diag) {
  ModelSpec spec;
  spec.source_file = path;
  if (const std::string* name = tree.root().attribute("model")) spec.name = *name;
  ReaderContext ctx{tree, spec, diag, std::filesystem::path(path).parent_path().string(),
                    {},   {},   {},   {}};
  read_compiler(ctx);
  read_option(ctx);
  ctx.defaults.read(tree, ctx.sections("default"), diag);
  read_assets(ctx);
  read_world(ctx);
  read_contact_excludes(ctx);
  read_actuators(ctx);
  read_keyframes(ctx);
  apply_total_mass(ctx);
  if (diag.has_errors()) return diag;
  spec.notes = diag;
  return Expected<ModelSpec>(std::move(spec), diag);
}

}  // namespace
}  // namespace mjcf

Expected<ModelSpec> read_mjcf_string(const std::string& xml, const std::string& path,
                                     const LoadOptions& /*options: URDF-only settings*/) {
  Diagnostics diag;
  const std::optional<mjcf::XmlTree> tree = mjcf::load_xml_tree(xml, path, diag);
  if (!tree) return diag;
  // Schema errors do not stop reading: the section readers only look at elements and
  // attributes they know, so the user sees every problem of the file in one run.
  mjcf::check_schema(*tree, diag);
  return mjcf::read_tree(*tree, path, diag);
}

Expected<ModelSpec> read_mjcf(const std::string& path, const LoadOptions& options) {
  Expected<std::string> text = read_text_file(path, "cannot open file");
  if (!text) return text.diagnostics();
  return read_mjcf_string(*text, path, options);
}

}  // namespace talon
