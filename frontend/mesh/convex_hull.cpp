#include "frontend/mesh/convex_hull.h"

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <set>
#include <string>

extern "C" {
#include <libqhull_r/qhull_ra.h>
}

namespace talon::mesh {
namespace {

// qhull's messages go to a memory stream, so that they become the error's text instead of
// stderr output.
class MessageStream {
 public:
  MessageStream() : file_(open_memstream(&text_, &size_)) {}
  ~MessageStream() {
    if (file_) std::fclose(file_);
    std::free(text_);
  }
  MessageStream(const MessageStream&) = delete;
  MessageStream& operator=(const MessageStream&) = delete;
  FILE* file() const { return file_; }
  std::string text() {
    if (file_) std::fflush(file_);
    return text_ ? std::string(text_, size_) : std::string();
  }

 private:
  char* text_ = nullptr;
  std::size_t size_ = 0;
  FILE* file_;
};

}  // namespace

HullResult convex_hull_vertices(const std::vector<Vec3>& points, int max_vertices) {
  HullResult result;
  if (points.size() < 4) {
    result.error = "a convex hull needs at least 4 points";
    return result;
  }
  std::vector<coordT> coordinates;
  coordinates.reserve(3 * points.size());
  for (const Vec3& p : points) coordinates.insert(coordinates.end(), {p.x(), p.y(), p.z()});
  MessageStream messages;
  qhT state;
  qhT* qh = &state;
  qh_zero(qh, messages.file());
  // Triangulated output (only the vertex set is used); TA: stop after that many points
  // beyond the initial simplex.
  std::string flags = "qhull Qt";
  if (static_cast<std::size_t>(max_vertices) < points.size())
    flags += " TA" + std::to_string(std::max(max_vertices, 4) - 4);
  const int code = qh_new_qhull(qh, 3, static_cast<int>(points.size()), coordinates.data(), False,
                                flags.data(), nullptr, messages.file());
  if (code == 0) {
    std::set<int> ids;
    vertexT* vertex;
    FORALLvertices ids.insert(qh_pointid(qh, vertex->point));
    for (int id : ids) result.vertices.push_back(points[static_cast<std::size_t>(id)]);
  } else {
    result.error = "qhull could not build the convex hull (are all points in one plane?): " +
                   messages.text().substr(0, 200);
  }
  qh_freeqhull(qh, !qh_ALL);
  int long_bytes = 0, long_blocks = 0;
  qh_memfreeshort(qh, &long_blocks, &long_bytes);
  return result;
}

std::vector<Vec3> collision_hull(const std::vector<Vec3>& points) {
  return convex_hull_vertices(points, kCollisionHullVertices).vertices;
}

}  // namespace talon::mesh
