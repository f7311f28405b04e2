// <asset><hfield> and hfield geoms: MuJoCo's height fields, read as terrains (a static
// triangle mesh, GeomType::Terrain), as MuJoCo 2.2.2 reads them: the elevation of nrow × ncol
// points from MuJoCo's binary file (int32 nrow, int32 ncol, float32 data[nrow·ncol], row
// major) or, given nrow and ncol without a file, all zero; normalised to [0, 1]; point (r, c)
// at x = −size[0] + 2 size[0] c/(ncol − 1), y = −size[1] + 2 size[1] r/(nrow − 1),
// z = size[2] · elevation in the geom's frame. size[3] (the depth of the solid below) does
// not matter to a terrain, which geoms stand on from above.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "frontend/mjcf/attributes.h"
#include "frontend/mjcf/reader_context.h"

namespace talon::mjcf {
namespace {

// MuJoCo's binary hfield file into `field`; the reason it cannot be read, or "".
std::string read_hfield_file(const std::string& path, HfieldAsset& field) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot be opened";
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
  std::int32_t header[2];
  if (bytes.size() < sizeof header) return "has no header (int32 nrow, int32 ncol)";
  std::memcpy(header, bytes.data(), sizeof header);
  if (header[0] < 1 || header[1] < 1) return "has a non-positive nrow or ncol";
  const std::size_t count = std::size_t(header[0]) * std::size_t(header[1]);
  if (bytes.size() != sizeof header + count * sizeof(float))
    return "is not 8 + 4·nrow·ncol bytes long (nrow " + std::to_string(header[0]) + ", ncol " +
           std::to_string(header[1]) + ")";
  field.nrow = header[0];
  field.ncol = header[1];
  field.elevation.resize(count);
  std::memcpy(field.elevation.data(), bytes.data() + sizeof header, count * sizeof(float));
  return "";
}

// MuJoCo's normalisation: (e − min)/(max − min), all zero where the field is flat.
bool normalize(std::vector<float>& elevation) {
  if (!std::all_of(elevation.begin(), elevation.end(), [](float e) { return std::isfinite(e); }))
    return false;
  const auto [low, high] = std::minmax_element(elevation.begin(), elevation.end());
  const float min = *low, range = *high - *low;
  for (float& e : elevation) e = range > 0 ? (e - min) / range : 0;
  return true;
}

}  // namespace

void read_hfield(const XmlNode& node, ReaderContext& ctx) {
  HfieldAsset field;
  std::string name, file;
  read_string(node, "name", name);
  read_string(node, "file", file);
  if (name.empty()) name = std::filesystem::path(file).stem().string();
  if (name.empty()) {
    report(ctx.diag, node, "an hfield needs a 'name' or a 'file'");
    return;
  }
  const std::size_t errors = ctx.diag.error_count();
  read_exact(node, "size", field.size, 4, ctx.diag);
  if (ctx.diag.error_count() > errors) return;  // a malformed size: reported
  if (!std::all_of(field.size, field.size + 4, [](double s) { return s > 0; })) {
    report(ctx.diag, node, "hfield size (radius_x radius_y elevation_z base_z) must be positive");
    return;
  }
  if (!file.empty()) {
    const std::string path = resolve_mesh_file(ctx, file);
    if (std::filesystem::path(path).extension() == ".png" ||
        std::filesystem::path(path).extension() == ".PNG") {
      report(ctx.diag, node,
             "unsupported: PNG height fields (hfield '" + name +
                 "'): Talon reads MuJoCo's binary hfield file (int32 nrow, int32 ncol, float32 "
                 "data)");
      return;
    }
    if (const std::string why = read_hfield_file(path, field); !why.empty()) {
      report(ctx.diag, node, "hfield file '" + file + "' " + why + " (looked for '" + path + "')");
      return;
    }
  } else {
    read_int(node, "nrow", field.nrow, ctx.diag);
    read_int(node, "ncol", field.ncol, ctx.diag);
    if (field.nrow < 1 || field.ncol < 1) {
      report(ctx.diag, node, "hfield '" + name + "' needs a 'file' or positive 'nrow' and 'ncol'");
      return;
    }
    field.elevation.assign(std::size_t(field.nrow) * std::size_t(field.ncol), 0.0f);
  }
  if (field.nrow < 2 || field.ncol < 2) {
    report(ctx.diag, node, "hfield '" + name + "' needs at least 2 rows and 2 columns");
    return;
  }
  if (!normalize(field.elevation)) {
    report(ctx.diag, node, "hfield '" + name + "' has a non-finite elevation");
    return;
  }
  if (!ctx.hfields.emplace(name, std::move(field)).second)
    report(ctx.diag, node, "duplicate hfield name '" + name + "'");
}

mesh::TriangleMesh hfield_terrain(const HfieldAsset& field) {
  mesh::TriangleMesh out;
  for (int r = 0; r < field.nrow; ++r)
    for (int c = 0; c < field.ncol; ++c)
      out.vertices.emplace_back(-field.size[0] + 2 * field.size[0] * c / (field.ncol - 1),
                                -field.size[1] + 2 * field.size[1] * r / (field.nrow - 1),
                                field.size[2] * field.elevation[std::size_t(r) * field.ncol + c]);
  const auto at = [&](int r, int c) { return r * field.ncol + c; };
  for (int r = 0; r + 1 < field.nrow; ++r)  // counter-clockwise seen from above (+z)
    for (int c = 0; c + 1 < field.ncol; ++c) {
      out.faces.push_back({at(r, c), at(r, c + 1), at(r + 1, c + 1)});
      out.faces.push_back({at(r, c), at(r + 1, c + 1), at(r + 1, c)});
    }
  return out;
}

}  // namespace talon::mjcf
