// A height field z = height(x, y) as a triangle mesh, for the terrain tests: nx × ny square
// cells of side `cell` from (x0, y0), two triangles each, counter-clockwise seen from above.
#pragma once

#include <array>
#include <vector>

#include "common/math.h"

namespace talon::testing {

template <class Height>
void height_field(int nx, int ny, double x0, double y0, double cell, Height height,
                  std::vector<Vec3>& vertices, std::vector<std::array<int, 3>>& faces) {
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) {
      const double x = x0 + i * cell, y = y0 + j * cell;
      vertices.emplace_back(x, y, height(x, y));
    }
  const auto at = [&](int i, int j) { return j * (nx + 1) + i; };
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      faces.push_back({at(i, j), at(i + 1, j), at(i + 1, j + 1)});
      faces.push_back({at(i, j), at(i + 1, j + 1), at(i, j + 1)});
    }
}

}  // namespace talon::testing
