#include "svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace talon::examples {
namespace {

constexpr double kPanel = 360, kMargin = 50;

// Maps data coordinates onto one panel's pixels (y grows downwards in SVG).
struct Axes {
  double x0, x1, y0, y1, left, top;
  double px(double x) const {
    return left + kMargin + (x - x0) / (x1 - x0) * (kPanel - 2 * kMargin);
  }
  double py(double y) const {
    return top + kPanel - kMargin - (y - y0) / (y1 - y0) * (kPanel - 2 * kMargin);
  }
};

std::string label(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

std::string polyline(const Axes& a, const std::vector<std::array<double, 2>>& points,
                     const char* colour) {
  std::ostringstream out;
  out << "<polyline fill='none' stroke='" << colour << "' stroke-width='2' points='";
  for (const auto& p : points) out << a.px(p[0]) << ',' << a.py(p[1]) << ' ';
  out << "'/>\n";
  return out.str();
}

std::string frame(const Axes& a, const std::string& title, const std::string& xlabel,
                  const std::string& ylabel) {
  std::ostringstream out;
  const double l = a.px(a.x0), r = a.px(a.x1), b = a.py(a.y0), t = a.py(a.y1);
  out << "<rect x='" << l << "' y='" << t << "' width='" << r - l << "' height='" << b - t
      << "' fill='none' stroke='black'/>\n"
      << "<text x='" << (l + r) / 2 << "' y='" << t - 10 << "' text-anchor='middle'>" << title
      << "</text>\n<text x='" << (l + r) / 2 << "' y='" << b + 35 << "' text-anchor='middle'>"
      << xlabel << "</text>\n<text x='" << l - 35 << "' y='" << (t + b) / 2
      << "' text-anchor='middle' transform='rotate(-90 " << l - 35 << ' ' << (t + b) / 2 << ")'>"
      << ylabel << "</text>\n";
  const auto tick = [&](double x, double y, const std::string& label, bool horizontal) {
    out << "<text x='" << x << "' y='" << y << "' font-size='10' text-anchor='"
        << (horizontal ? "middle" : "end") << "'>" << label << "</text>\n";
  };
  tick(l, b + 14, label(a.x0), true);
  tick(r, b + 14, label(a.x1), true);
  tick(l - 4, b, label(a.y0), false);
  tick(l - 4, t + 8, label(a.y1), false);
  return out.str();
}

std::string loss_panel(const std::vector<double>& losses) {
  std::vector<std::array<double, 2>> points;
  double lo = 1e300, hi = -1e300;
  for (std::size_t i = 0; i < losses.size(); ++i) {
    const double y = std::log10(std::max(losses[i], 1e-12));
    points.push_back({static_cast<double>(i), y});
    lo = std::min(lo, y), hi = std::max(hi, y);
  }
  const Axes a{0, std::max<double>(1, losses.size() - 1), std::floor(lo), std::ceil(hi) + 1e-9, 0,
               0};
  return frame(a, "loss per iteration", "Adam iteration", "log10 loss (m^2)") +
         polyline(a, points, "#1f77b4");
}

std::string path_panel(const PathPlot& p) {
  // the target, and the obstacle where there is one
  const std::array<double, 4> box =
      p.has_obstacle ? p.obstacle : std::array{p.target[0], p.target[1], p.target[0], p.target[1]};
  double x0 = std::min(box[0], p.target[0]), x1 = std::max(box[2], p.target[0]);
  double y0 = std::min(box[1], p.target[1]), y1 = std::max(box[3], p.target[1]);
  for (const auto* path : {&p.first_path, &p.final_path})
    for (const auto& q : *path)
      x0 = std::min(x0, q[0]), x1 = std::max(x1, q[0]), y0 = std::min(y0, q[1]),
      y1 = std::max(y1, q[1]);
  const double span = std::max(x1 - x0, y1 - y0) + 0.2;  // equal scales on both axes
  const double cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
  const Axes a{cx - span / 2, cx + span / 2, cy - span / 2, cy + span / 2, kPanel, 0};
  std::ostringstream out;
  out << frame(a, "chassis path (top view)", "x (m)", "y (m)");
  if (p.has_obstacle)
    out << "<rect x='" << a.px(p.obstacle[0]) << "' y='" << a.py(p.obstacle[3]) << "' width='"
        << a.px(p.obstacle[2]) - a.px(p.obstacle[0]) << "' height='"
        << a.py(p.obstacle[1]) - a.py(p.obstacle[3]) << "' fill='#ddd' stroke='#888'/>\n";
  out << polyline(a, p.first_path, "#aaa") << polyline(a, p.final_path, "#d62728");
  out << "<circle cx='" << a.px(p.target[0]) << "' cy='" << a.py(p.target[1])
      << "' r='5' fill='none' stroke='green' stroke-width='2'/>\n";
  out << "<text x='" << kPanel + kMargin << "' y='" << kPanel - 5
      << "' font-size='10'>grey: first iterate, red: optimised, green: target"
      << (p.has_obstacle ? ", box: obstacle" : "") << "</text>\n";
  return out.str();
}

}  // namespace

bool write_svg(const std::string& path, const std::vector<double>& losses, const PathPlot& plot) {
  std::ofstream out(path);
  out << "<svg xmlns='http://www.w3.org/2000/svg' width='" << 2 * kPanel << "' height='" << kPanel
      << "' font-family='sans-serif' font-size='12'>\n<rect width='100%' "
      << "height='100%' fill='white'/>\n"
      << loss_panel(losses) << path_panel(plot) << "</svg>\n";
  return static_cast<bool>(out);
}

}  // namespace talon::examples
