// <compiler> and <option>: the settings that change how the rest is read, and the two
// simulation options Talon takes from MJCF (timestep, gravity).
#include <string_view>

#include "frontend/mjcf/attributes.h"
#include "frontend/mjcf/reader_context.h"

namespace talon::mjcf {
namespace {

void read_angle_settings(const XmlNode& node, AngleConvention& angles, Diagnostics& diag) {
  int degrees = angles.degrees ? 1 : 0;
  if (read_keyword(node, "angle", {{"radian", 0}, {"degree", 1}}, degrees, diag))
    angles.degrees = degrees == 1;
  std::string sequence;
  if (!read_string(node, "eulerseq", sequence)) return;
  const bool valid =
      sequence.size() == 3 && sequence.find_first_not_of("xyzXYZ") == std::string::npos;
  if (!valid) {
    report(diag, node,
           "attribute 'eulerseq': '" + sequence + "' must be 3 of the letters x y z X Y Z");
    return;
  }
  angles.eulerseq = sequence;
}

void read_inertia_settings(const XmlNode& node, CompilerSettings& c, Diagnostics& diag) {
  int mode = static_cast<int>(c.inertia_from_geom);
  if (read_keyword(node, "inertiafromgeom",
                   {{"false", static_cast<int>(InertiaFromGeom::False)},
                    {"true", static_cast<int>(InertiaFromGeom::True)},
                    {"auto", static_cast<int>(InertiaFromGeom::Auto)}},
                   mode, diag))
    c.inertia_from_geom = static_cast<InertiaFromGeom>(mode);
  read_ints(node, "inertiagrouprange", c.inertia_group_range, 2, diag);
  read_double(node, "boundmass", c.boundmass, diag);
  read_double(node, "boundinertia", c.boundinertia, diag);
  read_double(node, "settotalmass", c.settotalmass, diag);
  read_bool(node, "balanceinertia", c.balanceinertia, diag);
}

void read_compiler_element(const XmlNode& node, ReaderContext& ctx) {
  CompilerSettings& c = ctx.compiler;
  Diagnostics& diag = ctx.diag;
  int global = 0;
  if (read_keyword(node, "coordinate", {{"local", 0}, {"global", 1}}, global, diag) && global)
    report(diag, node,
           "unsupported: coordinate='global' (MuJoCo 2.2.2's global coordinates; write the "
           "model in local coordinates)");
  read_angle_settings(node, c.angles, diag);
  read_inertia_settings(node, c, diag);
  read_bool(node, "autolimits", c.autolimits, diag);
  read_bool(node, "strippath", c.strippath, diag);
  read_bool(node, "discardvisual", c.discardvisual, diag);
  read_string(node, "meshdir", c.meshdir);
  bool ignored = false;
  for (const char* flag : {"fitaabb", "convexhull", "usethread", "exactmeshinertia"})
    read_bool(node, flag, ignored, diag);
  bool fusestatic = false;
  if (read_bool(node, "fusestatic", fusestatic, diag) && fusestatic)
    diag.note(node.loc, node.label(),
              "fusestatic is ignored: Talon keeps every body as written (and welds bodies "
              "without joints into their parents itself)");
}

}  // namespace

void read_compiler(ReaderContext& ctx) {
  for (int section : ctx.sections("compiler")) read_compiler_element(ctx.tree[section], ctx);
}

void read_option(ReaderContext& ctx) {
  for (int section : ctx.sections("option")) {
    const XmlNode& node = ctx.tree[section];
    read_double(node, "timestep", ctx.spec.options.timestep, ctx.diag);
    read_exact(node, "gravity", ctx.spec.options.gravity.data(), 3, ctx.diag);
  }
}

}  // namespace talon::mjcf
