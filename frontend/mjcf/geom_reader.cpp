// <geom>: type, size or fromto, frame, contact parameters, mesh reference, and the geom's
// mass contribution (MuJoCo 2.2.2's mjCGeom::Compile).
#include <algorithm>
#include <cmath>

#include "frontend/mjcf/attributes.h"
#include "frontend/mjcf/body_elements.h"

namespace talon::mjcf {
namespace {

GeomType spec_geom_type(MjcfGeomType type) {
  switch (type) {
    case MjcfGeomType::Plane:
      return GeomType::Plane;
    case MjcfGeomType::Sphere:
      return GeomType::Sphere;
    case MjcfGeomType::Capsule:
      return GeomType::Capsule;
    case MjcfGeomType::Ellipsoid:
      return GeomType::Ellipsoid;
    case MjcfGeomType::Cylinder:
      return GeomType::Cylinder;
    case MjcfGeomType::Box:
      return GeomType::Box;
    case MjcfGeomType::Mesh:
      return GeomType::Mesh;
    case MjcfGeomType::Hfield:
      return GeomType::Terrain;
  }
  return GeomType::Mesh;
}

// An hfield geom's terrain (frontend/mjcf/hfield.cpp): static, so on the world body; its
// sizes come from the asset.
bool attach_hfield(ReaderContext& ctx, const XmlNode& node, const GeomState& state,
                   GeomSpec& geom) {
  if (geom.body >= 0) {
    report(ctx.diag, node,
           "unsupported: an hfield geom in a body (Talon's terrains belong to the world: put "
           "it in <worldbody>)");
    return false;
  }
  const auto field = ctx.hfields.find(state.hfield);
  if (field == ctx.hfields.end()) {
    report(ctx.diag, node,
           state.hfield.empty() ? std::string("an hfield geom needs an 'hfield' attribute")
                                : "unknown hfield '" + state.hfield + "'");
    return false;
  }
  geom.terrain = hfield_terrain(field->second);
  return true;
}

// How many leading sizes must be positive (MuJoCo's mjGEOMINFO).
int required_sizes(MjcfGeomType type) {
  switch (type) {
    case MjcfGeomType::Sphere:
      return 1;
    case MjcfGeomType::Capsule:
    case MjcfGeomType::Cylinder:
      return 2;
    case MjcfGeomType::Ellipsoid:
    case MjcfGeomType::Box:
      return 3;
    default:
      return 0;
  }
}

bool check_geom_sizes(ReaderContext& ctx, const XmlNode& node, MjcfGeomType type,
                      const Vec3& size) {
  if (type == MjcfGeomType::Plane && !(size[2] > 0)) {
    report(ctx.diag, node, "a plane's third size (grid spacing) must be positive, as in MuJoCo");
    return false;
  }
  for (int i = 0; i < required_sizes(type); ++i)
    if (!(size[i] > 0)) {
      report(ctx.diag, node, "geom sizes must be positive (size has zero length or is negative)");
      return false;
    }
  return true;
}

// Pose and size from fromto, or from pos and orientation.
bool place_geom(ReaderContext& ctx, const XmlNode& node, const GeomState& state, GeomSpec& geom) {
  geom.size = state.size;
  if (!state.fromto) {
    geom.pose.pos = state.pos;
    geom.pose.quat = resolve_frame(ctx, node, state.orientation);
    return true;
  }
  const MjcfGeomType t = state.type;
  if (t != MjcfGeomType::Capsule && t != MjcfGeomType::Cylinder && t != MjcfGeomType::Ellipsoid &&
      t != MjcfGeomType::Box) {
    report(ctx.diag, node, "fromto needs a capsule, cylinder, box or ellipsoid geom");
    return false;
  }
  if (!state.pos.isZero()) {
    report(ctx.diag, node, "give either 'pos' or 'fromto', not both");
    return false;
  }
  std::string why;
  const std::optional<Segment> segment = fromto_segment(*state.fromto, why);
  if (!segment) {
    report(ctx.diag, node, why);
    return false;
  }
  geom.pose = {segment->center, segment->quat};
  geom.size[1] = segment->half_length;
  if (t == MjcfGeomType::Ellipsoid || t == MjcfGeomType::Box) {
    geom.size[2] = geom.size[1];
    geom.size[1] = geom.size[0];
  }
  return true;
}

bool attach_mesh(ReaderContext& ctx, const XmlNode& node, const GeomState& state, GeomSpec& geom) {
  if (state.mesh.empty()) {
    if (state.type != MjcfGeomType::Mesh) return true;
    report(ctx.diag, node, "a mesh geom needs a 'mesh' attribute");
    return false;
  }
  const auto mesh = ctx.meshes.find(state.mesh);
  if (mesh == ctx.meshes.end()) {
    report(ctx.diag, node, "unknown mesh '" + state.mesh + "'");
    return false;
  }
  if (state.type != MjcfGeomType::Mesh) {
    report(ctx.diag, node, "unsupported: fitting a primitive geom to mesh '" + state.mesh + "'");
    return false;
  }
  if (mesh->second.file.empty()) {
    report(ctx.diag, node, "unsupported: mesh '" + state.mesh + "' has no file (inline vertices)");
    return false;
  }
  geom.mesh_file = mesh->second.file;
  geom.mesh_scale = mesh->second.scale;
  geom.hull_vertices = mesh->second.hull_vertices;
  return true;
}

// The volume of the box with the solid's principal moments w (per unit density) and
// volume V: half-sizes s_i = √(3 (w_j + w_k − w_i) / (2V)).
double equivalent_box_volume(const Vec3& w, double volume) {
  double product = 1;
  for (int i = 0; i < 3; ++i)
    product *= std::sqrt(std::max(0.0, 3 * (w.sum() - 2 * w[i]) / (2 * volume)));
  return 8 * product;
}

// A mesh geom's share of its body's mass as MuJoCo 2.2.2 computes it: the solid the mesh
// bounds gives the centroid, the principal axes and the moments per unit mass (w / V); the
// mass is explicit, or the density times the volume of the box with the solid's inertia
// (not the solid's own volume, which MuJoCo uses only from 3.1: equal for a box, 39 % more
// for a tetrahedron — the oracle's rule is kept, as for the capsule's caps).
GeomMass mesh_geom_mass(const mesh::MeshMass& solid, const Pose& pose, const GeomState& state) {
  const Eigen::SelfAdjointEigenSolver<Mat3> principal(solid.inertia_per_density);
  const Vec3 moments = principal.eigenvalues();
  const double mass =
      state.mass ? *state.mass : state.density * equivalent_box_volume(moments, solid.volume);
  Mat3 axes = principal.eigenvectors();
  if (axes.determinant() < 0) axes.col(2) *= -1;  // a rotation, not a reflection
  return {mass, pose.apply(solid.centroid), pose.quat * Quat(axes),
          moments * (mass / solid.volume)};
}

}  // namespace

void read_geom_element(ReaderContext& ctx, const XmlNode& node, int body, int body_class,
                       InertiaSources& inertia) {
  const std::size_t errors_before = ctx.diag.error_count();
  GeomState state = ctx.defaults[ctx.defaults.class_of(node, body_class, ctx.diag)].geom;
  apply_geom_attributes(node, state, ctx.diag);
  if (ctx.diag.error_count() > errors_before) return;  // one error per bad attribute is enough
  if (ctx.compiler.discardvisual && state.contype == 0 && state.conaffinity == 0) return;
  GeomSpec geom;
  read_string(node, "name", geom.name);
  geom.origin = origin_of(node);
  geom.body = body;
  geom.type = spec_geom_type(state.type);
  geom.friction = state.friction;
  geom.contype = state.contype;
  geom.conaffinity = state.conaffinity;
  geom.condim = state.condim;
  geom.priority = state.priority;
  if (state.type == MjcfGeomType::Hfield) {
    if (attach_hfield(ctx, node, state, geom) && place_geom(ctx, node, state, geom))
      ctx.spec.geoms.push_back(geom);
    return;
  }
  if (!attach_mesh(ctx, node, state, geom) || !place_geom(ctx, node, state, geom) ||
      !check_geom_sizes(ctx, node, state.type, geom.size))
    return;
  if ((state.mass && *state.mass < 0) || state.density < 0) {
    report(ctx.diag, node, "negative mass or density");
    return;
  }
  ctx.spec.geoms.push_back(geom);
  const int* group = ctx.compiler.inertia_group_range;
  if (body < 0 || state.group < group[0] || state.group > group[1]) return;
  if (state.type == MjcfGeomType::Mesh) {
    const MeshAsset& mesh = ctx.meshes.at(state.mesh);
    if (mesh.mass)
      inertia.geoms.push_back(mesh_geom_mass(*mesh.mass, geom.pose, state));
    else if (!mesh.no_solid.empty() && !inertia.meshless)  // (an unreadable file: reported)
      inertia.meshless = {&node, mesh.no_solid};
    return;
  }
  const double mass = geom_mass(state.type, geom.size, state.mass, state.density);
  inertia.geoms.push_back(
      {mass, geom.pose.pos, geom.pose.quat, geom_diag_inertia(state.type, geom.size, mass)});
}

}  // namespace talon::mjcf
