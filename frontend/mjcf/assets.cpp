// <asset>: meshes and height fields matter to Talon. Each mesh file is read (frontend/mesh),
// scaled, and the solid it bounds gives the mass properties of the geoms that use it; height
// fields become terrains (frontend/mjcf/hfield.cpp). Textures, materials and skins are
// accepted and left alone.
#include <filesystem>

#include "frontend/mesh/convex_hull.h"
#include "frontend/mjcf/attributes.h"
#include "frontend/mjcf/reader_context.h"

namespace talon::mjcf {
namespace {

namespace fs = std::filesystem;

// MuJoCo names an unnamed mesh after its file, without directories and extension.
std::string default_mesh_name(const std::string& file) {
  return fs::path(file).stem().string();
}

// Reads the mesh file (an unreadable or empty one is an error); the scaled mesh's convex hull
// (asset.hull_vertices) and the solid it bounds (asset.mass or, without one, asset.no_solid).
void read_mesh_solid(ReaderContext& ctx, const XmlNode& node, const std::string& file,
                     MeshAsset& asset) {
  if (!(asset.scale.array().abs() > 0).all()) {
    report(ctx.diag, node, "a mesh scale must not be zero (it flattens the mesh)");
    return;
  }
  Expected<mesh::TriangleMesh> read = mesh::read_triangle_mesh(asset.file);
  if (!read) {
    report(ctx.diag, node, "mesh file '" + file + "': " + read.diagnostics().items()[0].message);
    return;
  }
  const mesh::TriangleMesh scaled = mesh::scaled(*read, asset.scale);
  asset.hull_vertices = mesh::collision_hull(scaled.vertices);
  mesh::MeshMassResult solid = mesh::mesh_mass(scaled);
  if (solid.error.empty())
    asset.mass = solid.mass;
  else
    asset.no_solid = "mesh file '" + file + "': " + solid.error;
}

void read_mesh(const XmlNode& node, ReaderContext& ctx) {
  const int cls = ctx.defaults.class_of(node, DefaultClasses::kMain, ctx.diag);
  MeshAsset mesh;
  mesh.origin = origin_of(node);
  mesh.scale = ctx.defaults[cls].mesh_scale;
  read_exact(node, "scale", mesh.scale.data(), 3, ctx.diag);
  std::string file;
  std::string name;
  read_string(node, "file", file);
  read_string(node, "name", name);
  if (name.empty()) name = default_mesh_name(file);
  if (name.empty()) {
    report(ctx.diag, node, "a mesh needs a 'name' or a 'file'");
    return;
  }
  Vec3 refpos = Vec3::Zero();
  double refquat[4] = {1, 0, 0, 0};
  read_exact(node, "refpos", refpos.data(), 3, ctx.diag);
  read_exact(node, "refquat", refquat, 4, ctx.diag);
  if (!refpos.isZero() || refquat[0] != 1 || refquat[1] != 0 || refquat[2] != 0 || refquat[3] != 0)
    report(ctx.diag, node, "unsupported: mesh refpos/refquat (re-centred mesh frames)");
  if (!file.empty()) {
    mesh.file = resolve_mesh_file(ctx, file);
    std::error_code ec;
    if (!fs::is_regular_file(mesh.file, ec))
      report(ctx.diag, node, "mesh file '" + file + "' not found (looked for '" + mesh.file + "')");
    else
      read_mesh_solid(ctx, node, file, mesh);
  }
  if (!ctx.meshes.emplace(name, mesh).second)
    report(ctx.diag, node, "duplicate mesh name '" + name + "'");
}

}  // namespace

std::string resolve_mesh_file(const ReaderContext& ctx, std::string file) {
  if (ctx.compiler.strippath) file = fs::path(file).filename().string();
  const fs::path path(file);
  if (path.is_absolute()) return path.string();
  const fs::path meshdir(ctx.compiler.meshdir);
  const fs::path base = meshdir.is_absolute() ? meshdir : fs::path(ctx.model_dir) / meshdir;
  return (base / path).lexically_normal().string();
}

void read_assets(ReaderContext& ctx) {
  for (int section : ctx.sections("asset"))
    for (int child : ctx.tree[section].children) {
      if (ctx.tree[child].name == "mesh") read_mesh(ctx.tree[child], ctx);
      if (ctx.tree[child].name == "hfield") read_hfield(ctx.tree[child], ctx);
    }
}

}  // namespace talon::mjcf
