// MJCF height fields (frontend/mjcf/hfield.cpp) read as terrains, against MuJoCo 2.2.2's
// rules written out by hand: elevations from its binary file or a PNG image normalised to
// [0, 1], point (r, c) at x = −rx + 2 rx c/(ncol − 1), y = −ry + 2 ry r/(nrow − 1),
// z = ez · elevation, in the geom's frame; a PNG's top row is the field's last row (+y), its
// grey the red sample, 16-bit samples their high byte, alpha dropped. The PNGs are written
// here by libpng's writer.
#include <png.h>
#include <zlib.h>
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "frontend/compile.h"
#include "frontend/load.h"

using namespace talon;

namespace {

std::filesystem::path test_dir() {
  const auto dir = std::filesystem::temp_directory_path() / "talon-test-hfield";
  std::filesystem::create_directories(dir);
  return dir;
}

// MuJoCo's binary hfield file: int32 nrow, int32 ncol, float32 data, row major.
std::string write_hfield(const std::string& name, std::int32_t nrow, std::int32_t ncol,
                         const std::vector<float>& data) {
  const auto path = test_dir() / name;
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(&nrow), sizeof nrow);
  out.write(reinterpret_cast<const char*>(&ncol), sizeof ncol);
  out.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size() * 4));
  return path.string();
}

// A PNG image through libpng's simplified writer: `format` is a PNG_FORMAT_*, `pixels` row
// major, the top row first (a colour-mapped format takes its colours from `colormap`).
std::string write_png(const std::string& name, png_uint_32 width, png_uint_32 height,
                      png_uint_32 format, const void* pixels, const void* colormap = nullptr,
                      png_uint_32 colors = 0) {
  const std::string path = (test_dir() / name).string();
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = width;
  image.height = height;
  image.format = format;
  image.colormap_entries = colors;
  REQUIRE(png_image_write_to_file(&image, path.c_str(), 0, pixels, 0, colormap) != 0);
  return path;
}

std::vector<unsigned char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<unsigned char>((std::istreambuf_iterator<char>(in)), {});
}

std::string write_bytes(const std::string& name, const std::vector<unsigned char>& bytes) {
  const auto path = test_dir() / name;
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return path.string();
}

Expected<Model> load(const std::string& xml) {
  Expected<ModelSpec> spec = read_mjcf_string(xml, "hfield_test.xml", {});
  if (!spec) return spec.diagnostics();
  return compile_model(*spec);
}

}  // namespace

TEST_CASE("an MJCF hfield is a terrain: MuJoCo's grid, normalised elevations, the geom's frame",
          "[mjcf][terrain]") {
  // 3 rows × 4 columns of elevations from 2 to 6 (normalised: (e − 2)/4)
  const std::vector<float> data = {2, 3, 4, 5, 6, 2, 2, 2, 4, 4, 4, 4};
  const std::string file = write_hfield("ramp.bin", 3, 4, data);
  const Expected<Model> model =
      load("<mujoco><asset><hfield name='ramp' file='" + file +
           "' size='1.5 0.5 0.2 0.1'/></asset><worldbody><geom type='hfield' hfield='ramp' "
           "pos='1 2 0.3' euler='0 0 90'/></worldbody></mujoco>");
  INFO(model.diagnostics().format());
  REQUIRE(model.ok());
  REQUIRE(model->geom_type.size() == 1);
  CHECK(model->geom_type[0] == GeomType::Terrain);
  const mesh::TriangleMesh& terrain = model->geom_terrain[0];
  REQUIRE(terrain.vertices.size() == 12);
  CHECK(terrain.faces.size() == 2 * 2 * 3);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) {
      // in the geom's frame, then turned 90° about z and moved to (1, 2, 0.3)
      const Vec3 local(-1.5 + 3.0 * c / 3, -0.5 + 1.0 * r / 2, 0.2 * (data[r * 4 + c] - 2) / 4);
      const Vec3 world(1 - local.y(), 2 + local.x(), 0.3 + local.z());
      INFO("row " << r << ", column " << c);
      CHECK((terrain.vertices[r * 4 + c] - world).norm() < 1e-12);
    }
  for (const auto& f : terrain.faces) {  // counter-clockwise seen from above
    const Vec3& a = terrain.vertices[f[0]];
    CHECK((terrain.vertices[f[1]] - a).cross(terrain.vertices[f[2]] - a).z() > 0);
  }
}

TEST_CASE("an hfield given by nrow and ncol without a file is flat, as in MuJoCo",
          "[mjcf][terrain]") {
  const Expected<Model> model = load(
      "<mujoco><asset><hfield name='pad' nrow='3' ncol='3' size='1 1 0.5 0.1'/></asset>"
      "<worldbody><geom type='hfield' hfield='pad'/></worldbody></mujoco>");
  INFO(model.diagnostics().format());
  REQUIRE(model.ok());
  for (const Vec3& v : model->geom_terrain[0].vertices) CHECK(v.z() == 0);
}

TEST_CASE("a malformed hfield is an error saying what is wrong", "[mjcf][terrain][errors]") {
  struct Case {
    std::string asset, message;
  };
  const std::string short_file = write_hfield("short.bin", 3, 3, {1, 2, 3});
  const std::string nan_file =
      write_hfield("nan.bin", 2, 2, {0, 1, std::numeric_limits<float>::quiet_NaN(), 1});
  const Case cases[] = {
      {"<hfield name='t' file='" + short_file + "' size='1 1 1 1'/>",
       "is not 8 + 4·nrow·ncol bytes long (nrow 3, ncol 3)"},
      {"<hfield name='t' file='" + nan_file + "' size='1 1 1 1'/>",
       "hfield 't' has a non-finite elevation"},
      {"<hfield name='t' nrow='3' ncol='3' size='1 1 0 1'/>",
       "hfield size (radius_x radius_y elevation_z base_z) must be positive"},
      {"<hfield name='t' nrow='1' ncol='3' size='1 1 1 1'/>",
       "hfield 't' needs at least 2 rows and 2 columns"},
      {"<hfield name='t' size='1 1 1 1'/>", "hfield 't' needs a 'file' or positive 'nrow'"},
  };
  for (const Case& c : cases) {
    INFO(c.asset);
    const Expected<Model> model = load("<mujoco><asset>" + c.asset +
                                       "</asset><worldbody><geom type='hfield' hfield='t'/>"
                                       "</worldbody></mujoco>");
    REQUIRE_FALSE(model.ok());
    CHECK(model.diagnostics().format().find(c.message) != std::string::npos);
    CHECK(model.diagnostics().format().find("hfield_test.xml:1") != std::string::npos);
  }
  const Expected<Model> unknown =
      load("<mujoco><worldbody><geom type='hfield' hfield='nowhere'/></worldbody></mujoco>");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.diagnostics().format().find("unknown hfield 'nowhere'") != std::string::npos);
}

namespace {

// The hfield 't' of `file` at size 1 1 1 1, its geom at the origin: the elevations in the
// field's row-major order (z of point (r, c) is its elevation), or empty if it is refused.
std::vector<double> png_elevations(const std::string& file) {
  const Expected<Model> model =
      load("<mujoco><asset><hfield name='t' file='" + file +
           "' size='1 1 1 1'/></asset><worldbody><geom type='hfield' hfield='t'/></worldbody>"
           "</mujoco>");
  INFO(model.diagnostics().format());
  if (!model.ok()) return {};
  std::vector<double> z;
  for (const Vec3& v : model->geom_terrain[0].vertices) z.push_back(v.z());
  return z;
}

}  // namespace

TEST_CASE("a PNG hfield is its grey image, flipped so that the top row is at +y, as in MuJoCo",
          "[mjcf][terrain][png]") {
  // 3 columns × 2 rows; grey 5 to 255, normalised (g − 5)/250
  const std::array<unsigned char, 6> image = {255, 155, 205,   // top row: y = +ry
                                              5,   55,  105};  // bottom row: y = −ry
  const std::string file = write_png("ramp.png", 3, 2, PNG_FORMAT_GRAY, image.data());
  const Expected<Model> model =
      load("<mujoco><asset><hfield name='ramp' file='" + file +
           "' size='1.5 0.5 0.2 0.1'/></asset><worldbody><geom type='hfield' hfield='ramp'/>"
           "</worldbody></mujoco>");
  INFO(model.diagnostics().format());
  REQUIRE(model.ok());
  const mesh::TriangleMesh& terrain = model->geom_terrain[0];
  REQUIRE(terrain.vertices.size() == 6);  // nrow 2 (the height), ncol 3 (the width)
  CHECK(terrain.faces.size() == 2 * 1 * 2);
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c) {
      const double grey = image[std::size_t((1 - r) * 3 + c)];  // field row r: image row 1 − r
      const Vec3 expected(-1.5 + 3.0 * c / 2, -0.5 + 1.0 * r, 0.2 * (grey - 5) / 250);
      INFO("row " << r << ", column " << c);
      CHECK((terrain.vertices[std::size_t(r * 3 + c)] - expected).norm() < 1e-6);
    }
  // the white top row of the image is the high edge at y = +ry
  CHECK(terrain.vertices[3].y() == Approx(0.5));
  CHECK(terrain.vertices[3].z() == Approx(0.2));
}

TEST_CASE("a colour, 16-bit, alpha or palette PNG hfield reads as MuJoCo 2.2.2 reads it",
          "[mjcf][terrain][png]") {
  // MuJoCo decodes to 8-bit grey through lodepng: a colour's red sample, the high byte of a
  // 16-bit sample, alpha ignored. Each image is 2 × 2; expected: field rows, bottom row first.
  SECTION("RGB: the red sample") {
    const std::array<unsigned char, 12> rgb = {255, 0, 0,   0,   255, 0,     // red, green
                                               0,   0, 255, 128, 128, 128};  // blue, grey 128
    const std::vector<double> z =
        png_elevations(write_png("rgb.Png", 2, 2, PNG_FORMAT_RGB, rgb.data()));
    REQUIRE(z.size() == 4);
    CHECK(z[0] == Approx(0));
    CHECK(z[1] == Approx(128.0 / 255));
    CHECK(z[2] == Approx(1));
    CHECK(z[3] == Approx(0));
  }
  SECTION("RGBA: the red sample, alpha ignored") {
    const std::array<unsigned char, 16> rgba = {10, 90, 90, 0,   200, 0, 0, 255,  // top
                                                0,  50, 50, 128, 255, 9, 9, 7};   // bottom
    const std::vector<double> z =
        png_elevations(write_png("rgba.png", 2, 2, PNG_FORMAT_RGBA, rgba.data()));
    REQUIRE(z.size() == 4);
    CHECK(z[0] == Approx(0));
    CHECK(z[1] == Approx(1));
    CHECK(z[2] == Approx(10.0 / 255));
    CHECK(z[3] == Approx(200.0 / 255));
  }
  SECTION("16-bit grey: the high byte") {
    const std::array<png_uint_16, 4> grey = {0x0000, 0x80ff,   // top: 0, 128
                                             0x01ff, 0xffff};  // bottom: 1, 255
    const std::vector<double> z =
        png_elevations(write_png("grey16.png", 2, 2, PNG_FORMAT_LINEAR_Y, grey.data()));
    REQUIRE(z.size() == 4);
    CHECK(z[0] == Approx(1.0 / 255));
    CHECK(z[1] == Approx(1));
    CHECK(z[2] == Approx(0));
    CHECK(z[3] == Approx(128.0 / 255));
  }
  SECTION("a palette: the colour's red sample") {
    const std::array<unsigned char, 12> colors = {255, 0, 0,   0,   255, 0,     // 0 red, 1 green
                                                  0,   0, 255, 100, 100, 100};  // 2 blue, 3 grey
    const std::array<unsigned char, 4> index = {1, 0, 3, 2};
    const std::vector<double> z = png_elevations(
        write_png("palette.png", 2, 2, PNG_FORMAT_RGB_COLORMAP, index.data(), colors.data(), 4));
    REQUIRE(z.size() == 4);
    CHECK(z[0] == Approx(100.0 / 255));
    CHECK(z[1] == Approx(0));
    CHECK(z[2] == Approx(0));
    CHECK(z[3] == Approx(1));
  }
}

TEST_CASE("an unreadable PNG hfield is an error naming the hfield and the file",
          "[mjcf][terrain][png][errors]") {
  std::array<unsigned char, 64> grey{};
  for (std::size_t i = 0; i < grey.size(); ++i) grey[i] = static_cast<unsigned char>(i * 4);
  const std::string good = write_png("good.png", 8, 8, PNG_FORMAT_GRAY, grey.data());
  const std::vector<unsigned char> bytes = read_bytes(good);
  REQUIRE(bytes.size() > 60);
  // a byte of the image data changed: the IDAT chunk's CRC no longer matches
  std::vector<unsigned char> corrupt = bytes;
  corrupt[bytes.size() - 20] ^= 0x55;
  // a header claiming 100000 × 100000 pixels (IHDR, then an empty IDAT)
  std::vector<unsigned char> huge(bytes.begin(), bytes.begin() + 8);  // the signature
  const auto chunk = [&huge](const char* type, std::vector<unsigned char> data) {
    const auto be32 = [&huge](std::uint32_t v) {
      for (int shift = 24; shift >= 0; shift -= 8) huge.push_back((v >> shift) & 0xff);
    };
    be32(std::uint32_t(data.size()));
    std::vector<unsigned char> typed(type, type + 4);
    typed.insert(typed.end(), data.begin(), data.end());
    huge.insert(huge.end(), typed.begin(), typed.end());
    be32(std::uint32_t(crc32(0, typed.data(), uInt(typed.size()))));
  };
  chunk("IHDR", {0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0, 8, 0, 0, 0, 0});
  chunk("IDAT", {});
  struct Case {
    std::string file, message;
  };
  const std::array<unsigned char, 3> column = {0, 100, 200};
  const Case cases[] = {
      {write_bytes("text.png", {'h', 'e', 'l', 'l', 'o', '\n'}),
       "is not a PNG file (it does not start with the PNG signature)"},
      {write_bytes("truncated.png", {bytes.begin(), bytes.begin() + bytes.size() / 2}),
       "is not a valid PNG file (libpng: "},
      {write_bytes("no_end.png", {bytes.begin(), bytes.end() - 12}),
       "is not a valid PNG file (libpng: "},
      {write_bytes("corrupt.png", corrupt), "is not a valid PNG file (libpng: "},
      {write_bytes("huge.png", huge), "is 100000 × 100000 pixels, more than Talon reads"},
      {(test_dir() / "no_such.png").string(), "cannot be opened"},
      {write_png("column.png", 1, 3, PNG_FORMAT_GRAY, column.data()),
       "hfield 't' needs at least 2 rows and 2 columns"},
  };
  for (const Case& c : cases) {
    INFO(c.file);
    const Expected<Model> model =
        load("<mujoco><asset><hfield name='t' file='" + c.file +
             "' size='1 1 1 1'/></asset><worldbody><geom type='hfield' hfield='t'/></worldbody>"
             "</mujoco>");
    REQUIRE_FALSE(model.ok());
    const std::string text = model.diagnostics().format();
    INFO(text);
    CHECK(text.find(c.message) != std::string::npos);
    CHECK(text.find("hfield_test.xml:1") != std::string::npos);
    CHECK(text.find("hfield 't'") != std::string::npos);
    if (c.message.find("needs at least") == std::string::npos)
      CHECK(text.find("hfield file '" + c.file + "'") != std::string::npos);
  }
}
