// <asset><hfield> and hfield geoms: MuJoCo's height fields, read as terrains (a static
// triangle mesh, GeomType::Terrain), as MuJoCo 2.2.2 reads them: the elevation of nrow × ncol
// points from MuJoCo's binary file (int32 nrow, int32 ncol, float32 data[nrow·ncol], row
// major), from a PNG image (below), or, given nrow and ncol without a file, all zero;
// normalised to [0, 1]; point (r, c) at x = −size[0] + 2 size[0] c/(ncol − 1),
// y = −size[1] + 2 size[1] r/(nrow − 1), z = size[2] · elevation in the geom's frame.
// size[3] (the depth of the solid below) does not matter to a terrain, which geoms stand on
// from above.
//
// A PNG height field (a file name ending in ".png", any case) follows MuJoCo 2.2.2's
// mjCHField::LoadPNG (src/user/user_objects.cc), which decodes through lodepng to 8-bit
// grey: nrow = the image's height, ncol = its width, and the image's top row becomes the
// LAST row of the field (image row i is field row nrow − 1 − i), so that the image shows
// the terrain seen from above with +y up. lodepng's grey of a colour pixel is its red
// component (alpha is dropped, a palette index gives its colour's red, 16-bit samples their
// high byte), which the libpng transforms below reproduce; MuJoCo 2.2.2 itself agrees
// (checked against libmujoco 2.2.2 on grey, grey+alpha, RGB, 16-bit RGBA and palette
// images).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <png.h>

#include "frontend/mjcf/attributes.h"
#include "frontend/mjcf/reader_context.h"

namespace talon::mjcf {
namespace {

using Bytes = std::vector<unsigned char>;

// The whole file, or nothing when it cannot be opened.
std::optional<Bytes> read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return Bytes((std::istreambuf_iterator<char>(in)), {});
}

// MuJoCo's binary hfield file into `field`; the reason it cannot be read, or "".
std::string read_hfield_binary(const Bytes& bytes, HfieldAsset& field) {
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

// PNG images larger than this many pixels are refused, so that a hostile header cannot make
// Talon allocate gigabytes (2^26 pixels: 64 MiB of grey, 256 MiB of elevations).
constexpr std::uint64_t max_png_pixels = std::uint64_t(1) << 26;

// A PNG in memory for libpng's reader, and the message of libpng's last error.
struct PngInput {
  const unsigned char* data = nullptr;
  std::size_t size = 0, at = 0;
  char error[256] = "";
};

// libpng's callbacks. An error jumps back (png_longjmp) to the setjmp in read_png_header or
// read_png_rows, across libpng's C frames and these callbacks only: none of them holds an
// object with a destructor.
void png_read_bytes(png_structp png, png_bytep out, std::size_t count) {
  auto* in = static_cast<PngInput*>(png_get_io_ptr(png));
  if (count > in->size - in->at) png_error(png, "the file ends early (truncated)");
  std::memcpy(out, in->data + in->at, count);
  in->at += count;
}
void png_on_error(png_structp png, png_const_charp message) {
  auto* in = static_cast<PngInput*>(png_get_error_ptr(png));
  std::snprintf(in->error, sizeof in->error, "%s", message);
  png_longjmp(png, 1);
}
void png_on_warning(png_structp, png_const_charp) {}  // a damaged ancillary chunk: ignored

// libpng's read structures, freed whatever happens.
struct PngReader {
  PngInput input;
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~PngReader() { png_destroy_read_struct(&png, &info, nullptr); }
};

// The header, and the transforms to 8 bits a sample with no alpha: grey stays grey, a
// palette becomes RGB. The two functions that call setjmp hold only trivial locals, and
// everything they leave behind lives in the caller, as setjmp/longjmp require.
bool read_png_header(PngReader& r, png_uint_32& width, png_uint_32& height, int& channels) {
  if (setjmp(png_jmpbuf(r.png))) return false;
  png_set_read_fn(r.png, &r.input, png_read_bytes);
  png_read_info(r.png, r.info);
  width = png_get_image_width(r.png, r.info);
  height = png_get_image_height(r.png, r.info);
  const int type = png_get_color_type(r.png, r.info), depth = png_get_bit_depth(r.png, r.info);
  if (type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(r.png);
  if (type == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(r.png);
  if (depth == 16) png_set_strip_16(r.png);  // the high byte, as lodepng
  png_set_strip_alpha(r.png);
  png_set_interlace_handling(r.png);
  png_read_update_info(r.png, r.info);
  channels = png_get_channels(r.png, r.info);
  return true;
}
bool read_png_rows(PngReader& r, png_bytepp rows) {
  if (setjmp(png_jmpbuf(r.png))) return false;
  png_read_image(r.png, rows);
  png_read_end(r.png, nullptr);  // through IEND: a truncated file is an error, as in lodepng
  return true;
}

// A PNG height field into `field` (see the top of this file); the reason it cannot be read,
// or "".
std::string read_hfield_png(const Bytes& bytes, HfieldAsset& field) {
  if (bytes.size() < 8 || png_sig_cmp(bytes.data(), 0, 8) != 0)
    return "is not a PNG file (it does not start with the PNG signature)";
  PngReader r;
  r.input.data = bytes.data();
  r.input.size = bytes.size();
  r.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r.input, png_on_error, png_on_warning);
  if (r.png) r.info = png_create_info_struct(r.png);
  if (!r.png || !r.info) return "cannot be read (libpng could not start)";
  png_uint_32 width = 0, height = 0;
  int channels = 0;
  if (!read_png_header(r, width, height, channels))
    return std::string("is not a valid PNG file (libpng: ") + r.input.error + ")";
  if (std::uint64_t(width) * height > max_png_pixels)
    return "is " + std::to_string(width) + " × " + std::to_string(height) +
           " pixels, more than Talon reads (2^26)";
  if (channels < 1 || png_get_rowbytes(r.png, r.info) != std::size_t(width) * channels)
    return "has a pixel format Talon cannot convert to 8-bit grey";
  std::vector<unsigned char> pixels(std::size_t(width) * height * channels);
  std::vector<png_bytep> rows(height);
  for (png_uint_32 i = 0; i < height; ++i)
    rows[i] = pixels.data() + std::size_t(i) * width * channels;
  if (!read_png_rows(r, rows.data()))
    return std::string("is not a valid PNG file (libpng: ") + r.input.error + ")";
  field.nrow = int(height);
  field.ncol = int(width);
  field.elevation.resize(std::size_t(width) * height);
  for (png_uint_32 i = 0; i < height; ++i)   // image row i is field row nrow − 1 − i
    for (png_uint_32 c = 0; c < width; ++c)  // grey, or red: the first sample
      field.elevation[std::size_t(height - 1 - i) * width + c] = rows[i][std::size_t(c) * channels];
  return "";
}

// MuJoCo's rule: a file name whose last four characters are ".png" in any case.
bool is_png_name(const std::string& path) {
  if (path.size() < 4) return false;
  std::string tail = path.substr(path.size() - 4);
  for (char& ch : tail) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return tail == ".png";
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
    const std::optional<Bytes> bytes = read_file_bytes(path);
    const std::string why = !bytes              ? "cannot be opened"
                            : is_png_name(path) ? read_hfield_png(*bytes, field)
                                                : read_hfield_binary(*bytes, field);
    if (!why.empty()) {
      report(ctx.diag, node,
             "hfield file '" + file + "' " + why + " (hfield '" + name + "', looked for '" + path +
                 "')");
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
