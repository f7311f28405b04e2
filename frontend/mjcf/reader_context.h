// Shared state of one MJCF read, and the section readers that fill the spec (internal to
// frontend/mjcf; the public entry points are read_mjcf / read_mjcf_string in load.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "frontend/mesh/triangle_mesh.h"
#include "frontend/mjcf/defaults.h"
#include "frontend/mjcf/orientation.h"
#include "frontend/mjcf/xml_tree.h"
#include "frontend/spec.h"

namespace talon::mjcf {

enum class InertiaFromGeom { False, True, Auto };

// <compiler> settings that change how the model is read (MuJoCo 2.2.2 defaults).
struct CompilerSettings {
  AngleConvention angles;
  InertiaFromGeom inertia_from_geom = InertiaFromGeom::Auto;
  int inertia_group_range[2] = {0, 5};
  double boundmass = 0, boundinertia = 0;
  double settotalmass = -1;  // <= 0: keep the masses
  bool balanceinertia = false;
  bool autolimits = false;  // 2.2.2's default: a range without `limited` is an error
  bool strippath = false;
  bool discardvisual = false;
  std::string meshdir;
};

// An <asset><mesh>: the resolved file (empty for inline vertex data), its scale and, once
// read, the solid it bounds (scaled). Without a solid (`mass` unset) `no_solid` says why:
// MuJoCo loads such a mesh (a flat decal) unless a body's inertia needs it.
struct MeshAsset {
  std::string file;
  Vec3 scale = Vec3::Ones();
  SpecOrigin origin;
  std::optional<mesh::MeshMass> mass;
  std::string no_solid;
  std::vector<Vec3> hull_vertices;  // scaled; empty when the mesh has no hull (flat)
};

// An <asset><hfield> (frontend/mjcf/hfield.cpp): nrow × ncol elevations, normalised to
// [0, 1] as MuJoCo does, row major; size = radius_x, radius_y, elevation_z, base_z.
struct HfieldAsset {
  int nrow = 0, ncol = 0;
  double size[4] = {0, 0, 0, 0};
  std::vector<float> elevation;
};

struct ReaderContext {
  const XmlTree& tree;
  ModelSpec& spec;
  Diagnostics& diag;
  std::string model_dir;  // directory of the main file: the base of meshdir
  CompilerSettings compiler;
  DefaultClasses defaults;
  std::map<std::string, MeshAsset> meshes;
  std::map<std::string, HfieldAsset> hfields;

  // The top-level elements named `section`, in document order (includes spliced).
  std::vector<int> sections(const std::string& section) const;
};

SpecOrigin origin_of(const XmlNode& node);

// Section readers, called by read_mjcf_string in MuJoCo's order: compiler, option,
// default, asset, worldbody, contact, actuator, keyframe. Each reports its problems in
// ctx.diag and keeps going where it can.
void read_compiler(ReaderContext& ctx);
void read_option(ReaderContext& ctx);
void read_assets(ReaderContext& ctx);
void read_world(ReaderContext& ctx);
void read_contact_excludes(ReaderContext& ctx);
void read_actuators(ReaderContext& ctx);
void read_keyframes(ReaderContext& ctx);
// <asset><hfield> into ctx.hfields; an hfield as a terrain mesh in its geom's frame.
void read_hfield(const XmlNode& node, ReaderContext& ctx);
mesh::TriangleMesh hfield_terrain(const HfieldAsset& field);
// A mesh or hfield file name as MuJoCo resolves it: relative to meshdir, itself relative to
// the model's directory unless absolute; strippath drops the directories.
std::string resolve_mesh_file(const ReaderContext& ctx, std::string file);
// compiler settotalmass: scales every body's mass and inertia (mj_setTotalmass).
void apply_total_mass(ReaderContext& ctx);

}  // namespace talon::mjcf
