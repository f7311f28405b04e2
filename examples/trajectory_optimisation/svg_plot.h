// A two-panel SVG figure without a plotting library: the loss per iteration (log scale) and
// the robot's path in the ground plane (first and last iterate, the obstacle, the target).
#pragma once

#include <array>
#include <string>
#include <vector>

namespace talon::examples {

struct PathPlot {
  std::vector<std::array<double, 2>> first_path, final_path;  // (x, y) per step, metres
  std::array<double, 4> obstacle{};                           // x_min, y_min, x_max, y_max
  bool has_obstacle = false;                                  // none on a terrain
  std::array<double, 2> target{};
};

// Writes the figure to `path`; false when the file cannot be written.
bool write_svg(const std::string& path, const std::vector<double>& losses, const PathPlot& plot);

}  // namespace talon::examples
