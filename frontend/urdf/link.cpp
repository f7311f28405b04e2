// <link>: <inertial> -> mass properties, <collision> -> geoms; <visual> is not simulated.
#include <string_view>

#include "frontend/mesh/convex_hull.h"
#include "frontend/mesh/triangle_mesh.h"
#include "frontend/urdf/elements.h"
#include "frontend/urdf/package_path.h"

namespace talon::urdf {
namespace {

// The inertia tensor of <inertia ixx ixy ixz iyy iyz izz> (about the COM, inertial-frame
// axes). All six attributes are required, as in urdfdom.
Mat3 read_inertia_tensor(const ParseContext& ctx, const XMLElement* inertia,
                         const std::string& owner) {
  static constexpr const char* kComponents[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
  double c[6] = {0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 6; ++i)
    read_number(ctx, inertia, kComponents[i], owner, c[i], Need::Required);
  Mat3 tensor;
  tensor << c[0], c[1], c[2],  //
      c[1], c[3], c[4],        //
      c[2], c[4], c[5];
  return tensor;
}

// <inertial>: the COM is the inertial frame's origin; the inertia, given in the inertial
// frame, is rotated into the link frame: I_link = R I R^T, R = Rz(y) Ry(p) Rx(r).
void read_inertial(const ParseContext& ctx, const XMLElement* inertial, const std::string& owner,
                   UrdfLink& link) {
  link.has_inertial = true;
  link.body.inertial_origin = {ctx.loc(inertial), owner};
  const Pose frame = read_origin(ctx, inertial, owner);
  link.body.com = frame.pos;
  if (const XMLElement* mass = unique_child(ctx, inertial, "mass", owner, Need::Required))
    read_number(ctx, mass, "value", owner, link.body.mass, Need::Required);
  if (const XMLElement* inertia = unique_child(ctx, inertial, "inertia", owner, Need::Required)) {
    const Mat3 rotation = frame.quat.toRotationMatrix();
    link.body.inertia = rotation * read_inertia_tensor(ctx, inertia, owner) * rotation.transpose();
  }
  note_unknown_children(ctx, inertial, {"origin", "mass", "inertia"}, owner);
}

bool read_mesh(const ParseContext& ctx, const XMLElement* mesh, const std::string& owner,
               const std::vector<std::string>& package_paths, GeomSpec& geom) {
  std::string uri;
  if (!read_string(ctx, mesh, "filename", owner, uri, Need::Required)) return false;
  if (!read_vec3(ctx, mesh, "scale", owner, geom.mesh_scale)) return false;
  const MeshLocation location = locate_mesh(uri, ctx.file, package_paths);
  if (!location.note.empty())
    ctx.diag.note_once("urdf-package-uri", ctx.loc(mesh), owner,
                       "mesh file '" + uri + "': " + location.note);
  if (!location.found) {
    ctx.error(mesh, owner, "mesh file '" + uri + "' " + describe_search(location));
    return false;
  }
  geom.type = GeomType::Mesh;
  geom.mesh_file = location.path;
  const Expected<mesh::TriangleMesh> read = mesh::read_triangle_mesh(location.path);
  if (!read) {
    ctx.error(mesh, owner, "mesh file '" + uri + "': " + read.diagnostics().items()[0].message);
    return false;
  }
  geom.hull_vertices = mesh::collision_hull(mesh::scaled(*read, geom.mesh_scale).vertices);
  return true;
}

// One URDF shape in MuJoCo's size convention (spec.h): box size is the full extents,
// MuJoCo's the half-sizes; a cylinder's length is its full height along z, MuJoCo's size
// is (radius, half-length) along z as well.
bool read_shape(const ParseContext& ctx, const XMLElement* shape, const std::string& owner,
                const std::vector<std::string>& package_paths, GeomSpec& geom) {
  const std::string_view tag = shape->Name();
  if (tag == "box") {
    Vec3 extents = Vec3::Zero();
    if (!read_vec3(ctx, shape, "size", owner, extents, Need::Required)) return false;
    geom.type = GeomType::Box;
    geom.size = extents / 2;
    return true;
  }
  if (tag == "sphere") {
    geom.type = GeomType::Sphere;
    return read_number(ctx, shape, "radius", owner, geom.size[0], Need::Required);
  }
  if (tag == "cylinder") {
    double length = 0;
    geom.type = GeomType::Cylinder;
    const bool ok = read_number(ctx, shape, "radius", owner, geom.size[0], Need::Required) &&
                    read_number(ctx, shape, "length", owner, length, Need::Required);
    geom.size[1] = length / 2;
    return ok;
  }
  if (tag == "mesh") return read_mesh(ctx, shape, owner, package_paths, geom);
  ctx.error(shape, owner,
            "unsupported geometry <" + std::string(tag) +
                "> (URDF geometry is one of <box>, <sphere>, <cylinder>, <mesh>)");
  return false;
}

bool read_geometry(const ParseContext& ctx, const XMLElement* geometry, const std::string& owner,
                   const std::vector<std::string>& package_paths, GeomSpec& geom) {
  const XMLElement* shape = geometry->FirstChildElement();
  if (!shape) {
    ctx.error(geometry, owner, "<geometry> has no shape");
    return false;
  }
  if (const XMLElement* extra = shape->NextSiblingElement()) {
    ctx.error(extra, owner, "<geometry> has more than one shape");
    return false;
  }
  return read_shape(ctx, shape, owner, package_paths, geom);
}

void read_collision(const ParseContext& ctx, const XMLElement* collision, const std::string& owner,
                    const std::vector<std::string>& package_paths, UrdfLink& link) {
  GeomSpec geom;
  if (const char* name = collision->Attribute("name")) geom.name = name;
  geom.origin = {ctx.loc(collision), owner};
  geom.pose = read_origin(ctx, collision, owner);
  note_unknown_children(ctx, collision, {"origin", "geometry"}, owner);
  const XMLElement* geometry = unique_child(ctx, collision, "geometry", owner, Need::Required);
  if (geometry && read_geometry(ctx, geometry, owner, package_paths, geom))
    link.geoms.push_back(std::move(geom));
}

}  // namespace

UrdfLink read_link(const ParseContext& ctx, const XMLElement* element,
                   const std::vector<std::string>& package_paths) {
  UrdfLink link;
  const std::string owner = describe(element);
  read_string(ctx, element, "name", owner, link.body.name, Need::Required);
  link.body.origin = {ctx.loc(element), owner};
  // A link without <inertial> has zero mass (URDF); compile decides whether that is fine.
  if (const XMLElement* inertial = unique_child(ctx, element, "inertial", owner))
    read_inertial(ctx, inertial, owner, link);
  for (const XMLElement* collision = element->FirstChildElement("collision"); collision;
       collision = collision->NextSiblingElement("collision"))
    read_collision(ctx, collision, owner, package_paths, link);
  note_unknown_children(ctx, element, {"inertial", "visual", "collision"}, owner);
  return link;
}

}  // namespace talon::urdf
