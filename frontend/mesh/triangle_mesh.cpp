#include "frontend/mesh/triangle_mesh.h"

#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <assimp/Importer.hpp>
#include <cmath>
#include <map>
#include <set>
#include <utility>

namespace talon::mesh {
namespace {

Diagnostics mesh_error(const std::string& path, const std::string& message) {
  Diagnostics d;
  d.error({path, 0}, "", message);
  return d;
}

// Vertices welded by position: STL repeats each vertex per face (with the face's normal, so
// assimp's own joining keeps them apart), and a surface's edges are shared only between
// faces that share vertex indices.
class VertexWelder {
 public:
  explicit VertexWelder(TriangleMesh& mesh) : mesh_(mesh) {}
  int index(const aiVector3D& p) {
    const auto [it, added] =
        index_.try_emplace({p.x, p.y, p.z}, static_cast<int>(mesh_.vertices.size()));
    if (added) mesh_.vertices.emplace_back(p.x, p.y, p.z);
    return it->second;
  }

 private:
  TriangleMesh& mesh_;
  std::map<std::array<double, 3>, int> index_;
};

// Appends the triangles of `node` and its children, with the accumulated node transform.
void collect(const aiScene& scene, const aiNode& node, const aiMatrix4x4& parent,
             VertexWelder& welder, TriangleMesh& out) {
  const aiMatrix4x4 transform = parent * node.mTransformation;
  for (unsigned m = 0; m < node.mNumMeshes; ++m) {
    const aiMesh& mesh = *scene.mMeshes[node.mMeshes[m]];
    for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
      const aiFace& face = mesh.mFaces[f];
      if (face.mNumIndices != 3) continue;  // points and lines left by triangulation
      std::array<int, 3> triangle;
      for (int i = 0; i < 3; ++i)
        triangle[i] = welder.index(transform * mesh.mVertices[face.mIndices[i]]);
      out.faces.push_back(triangle);
    }
  }
  for (unsigned c = 0; c < node.mNumChildren; ++c)
    collect(scene, *node.mChildren[c], transform, welder, out);
}

std::size_t face_count(const aiScene& scene) {
  std::size_t faces = 0;
  for (unsigned m = 0; m < scene.mNumMeshes; ++m) faces += scene.mMeshes[m]->mNumFaces;
  return faces;
}

}  // namespace

Expected<TriangleMesh> read_triangle_mesh(const std::string& path) {
  Assimp::Importer importer;
  // Points and lines are dropped: they bound no solid.
  importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE,
                              aiPrimitiveType_POINT | aiPrimitiveType_LINE);
  const aiScene* scene = importer.ReadFile(path, 0);
  if (!scene || !scene->mRootNode)
    return mesh_error(path, std::string("cannot read the mesh: ") + importer.GetErrorString());
  if (face_count(*scene) == 0) return mesh_error(path, "the mesh file holds no triangle");
  scene = importer.ApplyPostProcessing(aiProcess_Triangulate | aiProcess_SortByPType);
  if (!scene)
    return mesh_error(path, std::string("cannot read the mesh: ") + importer.GetErrorString());
  TriangleMesh mesh;
  VertexWelder welder(mesh);
  collect(*scene, *scene->mRootNode, aiMatrix4x4(), welder, mesh);
  if (mesh.faces.empty()) return mesh_error(path, "the mesh file holds no triangle");
  for (const Vec3& v : mesh.vertices)
    if (!v.allFinite()) return mesh_error(path, "the mesh has a non-finite vertex coordinate");
  return mesh;
}

TriangleMesh scaled(const TriangleMesh& mesh, const Vec3& scale) {
  TriangleMesh out = mesh;
  for (Vec3& v : out.vertices) v = v.cwiseProduct(scale);
  if (scale.prod() < 0)
    for (auto& face : out.faces) std::swap(face[1], face[2]);
  return out;
}

namespace {

// Whether some directed edge a→b belongs to two faces: in a consistently oriented surface
// each edge is walked once in each direction.
bool inconsistently_oriented(const TriangleMesh& mesh) {
  std::set<std::pair<int, int>> edges;
  for (const auto& face : mesh.faces)
    for (int i = 0; i < 3; ++i)
      if (!edges.emplace(face[i], face[(i + 1) % 3]).second) return true;
  return false;
}

double diagonal_length(const TriangleMesh& mesh) {
  Vec3 low = mesh.vertices[0], high = mesh.vertices[0];
  for (const Vec3& v : mesh.vertices) {
    low = low.cwiseMin(v);
    high = high.cwiseMax(v);
  }
  return (high - low).norm();
}

}  // namespace

MeshMassResult mesh_mass(const TriangleMesh& mesh) {
  MeshMassResult result;
  if (inconsistently_oriented(mesh)) {
    result.error = "the mesh's faces have inconsistent orientation";
    return result;
  }
  // The apex: the faces' centroids weighted by their areas.
  Vec3 apex = Vec3::Zero();
  double area = 0;
  for (const auto& face : mesh.faces) {
    const Vec3 &a = mesh.vertices[face[0]], &b = mesh.vertices[face[1]],
               &c = mesh.vertices[face[2]];
    const double face_area = (b - a).cross(c - a).norm() / 2;
    apex += face_area * (a + b + c) / 3;
    area += face_area;
  }
  if (!(area > 0)) {
    result.error = "the mesh's faces have no area";
    return result;
  }
  apex /= area;
  // Per tetrahedron (apex, a, b, c), edge vectors e relative to the apex and V = |det|/6:
  // centroid apex + (a + b + c)/4, second moment ∫ r rᵀ = V/20 (Σ e_i e_iᵀ + (Σ e_i)(Σ e_i)ᵀ)
  // (Tonon, "Explicit exact formulas for the 3-D tetrahedron inertia tensor", 2004).
  double volume = 0, signed_volume = 0;
  Vec3 first_moment = Vec3::Zero();
  Mat3 second_moment = Mat3::Zero();
  for (const auto& face : mesh.faces) {
    const Vec3 a = mesh.vertices[face[0]] - apex, b = mesh.vertices[face[1]] - apex,
               c = mesh.vertices[face[2]] - apex;
    const double tet = std::abs(a.dot(b.cross(c))) / 6;
    const Vec3 sum = a + b + c;
    volume += tet;
    signed_volume += a.dot(b.cross(c)) / 6;
    first_moment += tet / 4 * sum;
    second_moment +=
        tet / 20 *
        (a * a.transpose() + b * b.transpose() + c * c.transpose() + sum * sum.transpose());
  }
  const double extent = diagonal_length(mesh);
  if (!(volume > 1e-12 * extent * extent * extent)) {
    result.error = "the mesh encloses no volume (a flat surface)";
    return result;
  }
  // Tetrahedra of both signs: the surface folds back as seen from the apex (a mug's cavity),
  // where MuJoCo's overlapping count is not reproduced exactly (0.2 % off for its mug).
  if (std::abs(std::abs(signed_volume) - volume) > 1e-9 * volume) {
    result.error =
        "unsupported: the mass properties of a mesh that is not star-shaped about its "
        "surface centroid (a non-convex mesh)";
    return result;
  }
  const Vec3 offset = first_moment / volume;  // centroid relative to the apex
  // About the centroid: ∫ r rᵀ shifted by the parallel-axis rule, then J = tr(S) I − S.
  const Mat3 centred = second_moment - volume * offset * offset.transpose();
  result.mass.volume = volume;
  result.mass.centroid = apex + offset;
  result.mass.inertia_per_density = centred.trace() * Mat3::Identity() - centred;
  return result;
}

}  // namespace talon::mesh
