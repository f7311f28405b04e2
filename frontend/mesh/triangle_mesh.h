// Triangle meshes read from STL, OBJ and DAE files (assimp: the formats robot descriptions
// ship, binary and ASCII STL included, without a parser of our own), and their mass
// properties as MuJoCo 2.2.2 computes them for a mesh geom (a solid of uniform density
// bounded by the mesh).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "common/expected.h"
#include "common/math.h"

namespace talon::mesh {

struct TriangleMesh {
  std::vector<Vec3> vertices;
  std::vector<std::array<int, 3>> faces;  // vertex indices, counter-clockwise seen from outside
};

// Every mesh of the file, triangulated, with the file's node transforms applied (a DAE's
// scene graph), in the file's units. Errors: the file cannot be read or parsed, holds no
// triangle, or holds a non-finite vertex; the diagnostic names `path` (line 0: assimp
// reports no line).
Expected<TriangleMesh> read_triangle_mesh(const std::string& path);

// The mesh with every vertex multiplied componentwise by `scale` (MJCF's mesh scale, URDF's
// <mesh scale>). A negative component mirrors the mesh: the faces are reversed so that
// they still point outwards.
TriangleMesh scaled(const TriangleMesh& mesh, const Vec3& scale);

// The solid's volume, centroid and inertia about the centroid per unit density (the
// integral of (|r|² I − r rᵀ) over the solid), in the mesh frame.
struct MeshMass {
  double volume = 0;
  Vec3 centroid = Vec3::Zero();
  Mat3 inertia_per_density = Mat3::Zero();
};

// As MuJoCo 2.2.2 computes them (user_mesh.cc): one tetrahedron per face with its apex at
// the area-weighted mean of the face centroids, each counted with its unsigned volume (so a
// mesh whose faces all point inwards weighs the same). For a closed mesh that is star-shaped
// about that apex (every convex mesh) this is the solid exactly. Returns the reason instead
// when two faces run along a shared edge the same way (inconsistent orientation; MuJoCo
// refuses it too), the mesh is flat, or it is not star-shaped about the apex: MuJoCo then
// counts overlapping tetrahedra, which this does not reproduce ("unsupported").
struct MeshMassResult {
  MeshMass mass;
  std::string error;  // empty on success
};
MeshMassResult mesh_mass(const TriangleMesh& mesh);

}  // namespace talon::mesh
