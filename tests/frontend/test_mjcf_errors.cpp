// The must-fail suite of the MJCF reader: every file in tests/data/mjcf/bad is malformed
// or unsupported MJCF, and reading it must fail with a diagnostic that names the file, the
// line of the offending element and says what is wrong.
//
// Stage::Read errors come from read_mjcf itself; Stage::Compile errors are MJCF files the
// reader accepts and compile_model rejects (format-independent rules), checked through
// load_model.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/load.h"

namespace {

enum class Stage { Read, Compile };

struct BadFile {
  const char* file;        // in tests/data/mjcf/bad
  const char* error_file;  // the file the error points into (an include may differ)
  int line;
  Stage stage;
  const char* message;  // a substring of the error message
};

const BadFile kBadFiles[] = {
    {"bad_xml_syntax.xml", "bad_xml_syntax.xml", 3, Stage::Read, "XML syntax error"},
    {"bad_root.xml", "bad_root.xml", 2, Stage::Read,
     "root element of an MJCF file must be <mujoco>"},
    {"bad_deep_nesting.xml", "bad_deep_nesting.xml", 96, Stage::Read, "nested more than 96 levels"},
    {"bad_unknown_element.xml", "bad_unknown_element.xml", 6, Stage::Read,
     "unknown element <sensorr>"},
    {"bad_unknown_attribute.xml", "bad_unknown_attribute.xml", 5, Stage::Read,
     "unknown attribute 'colour'"},
    {"bad_repeated_inertial.xml", "bad_repeated_inertial.xml", 6, Stage::Read,
     "element <inertial> may appear only once"},
    {"bad_keyword.xml", "bad_keyword.xml", 4, Stage::Read,
     "attribute 'type': invalid value 'rotary'"},
    {"bad_unknown_class.xml", "bad_unknown_class.xml", 10, Stage::Read,
     "unknown default class 'leg'"},
    {"bad_duplicate_class.xml", "bad_duplicate_class.xml", 6, Stage::Read,
     "repeated default class name 'arm'"},
    {"bad_missing_include.xml", "bad_missing_include.xml", 7, Stage::Read,
     "cannot open included file 'parts/no_such_file.xml'"},
    {"bad_include_cycle.xml", "cycle_part.xml", 6, Stage::Read, "include cycle"},
    {"bad_include_twice.xml", "bad_include_twice.xml", 4, Stage::Read, "is already included"},
    {"bad_nonfinite.xml", "bad_nonfinite.xml", 3, Stage::Read, "non-finite number 'nan'"},
    {"bad_infinite.xml", "bad_infinite.xml", 5, Stage::Read, "non-finite number 'inf'"},
    {"bad_unparsable_number.xml", "bad_unparsable_number.xml", 5, Stage::Read,
     "cannot read '1/2' as a number"},
    {"bad_number_count.xml", "bad_number_count.xml", 3, Stage::Read,
     "attribute 'pos' needs 3 numbers, found 2"},
    {"bad_negative_mass.xml", "bad_negative_mass.xml", 6, Stage::Compile, "negative mass"},
    {"bad_negative_geom_mass.xml", "bad_negative_geom_mass.xml", 5, Stage::Read, "negative mass"},
    {"bad_non_pd_inertia.xml", "bad_non_pd_inertia.xml", 5, Stage::Compile,
     "not positive definite"},
    {"bad_triangle_inequality.xml", "bad_triangle_inequality.xml", 5, Stage::Compile,
     "triangle inequality"},
    {"bad_zero_axis.xml", "bad_zero_axis.xml", 4, Stage::Compile, "zero length"},
    {"bad_negative_armature.xml", "bad_negative_armature.xml", 4, Stage::Read, "negative armature"},
    {"bad_zero_quaternion.xml", "bad_zero_quaternion.xml", 3, Stage::Read, "zero length"},
    {"bad_multiple_orientations.xml", "bad_multiple_orientations.xml", 5, Stage::Read,
     "multiple orientation specifiers"},
    {"bad_range_order.xml", "bad_range_order.xml", 5, Stage::Read, "lower limit"},
    {"bad_autolimits.xml", "bad_autolimits.xml", 4, Stage::Read,
     "joint has 'range' but not 'limited'"},
    {"bad_geom_size.xml", "bad_geom_size.xml", 5, Stage::Read, "geom sizes must be positive"},
    {"bad_fromto_sphere.xml", "bad_fromto_sphere.xml", 5, Stage::Read,
     "fromto needs a capsule, cylinder, box or ellipsoid"},
    {"bad_duplicate_body.xml", "bad_duplicate_body.xml", 7, Stage::Compile,
     "duplicate body name 'twin'"},
    {"bad_duplicate_joint.xml", "bad_duplicate_joint.xml", 7, Stage::Compile,
     "duplicate joint name 'hinge'"},
    {"bad_world_joint.xml", "bad_world_joint.xml", 3, Stage::Read,
     "the world body cannot have <joint>"},
    {"bad_free_joint_nested.xml", "bad_free_joint_nested.xml", 7, Stage::Compile,
     "free joint is only allowed on a top-level body"},
    {"bad_unknown_joint_actuator.xml", "bad_unknown_joint_actuator.xml", 9, Stage::Read,
     "unknown joint 'hinje'"},
    {"bad_unknown_body_exclude.xml", "bad_unknown_body_exclude.xml", 9, Stage::Read,
     "unknown body 'b'"},
    {"bad_keyframe_qpos_length.xml", "bad_keyframe_qpos_length.xml", 9, Stage::Compile,
     "qpos has 3 values, the model needs 7"},
    {"bad_missing_mesh_file.xml", "bad_missing_mesh_file.xml", 5, Stage::Read,
     "mesh file 'no_such_mesh.stl' not found"},
    {"bad_mesh_empty_file.xml", "bad_mesh_empty_file.xml", 4, Stage::Read,
     "mesh file 'empty.stl': the mesh file holds no triangle"},
    {"bad_mesh_inconsistent_faces.xml", "bad_mesh_inconsistent_faces.xml", 9, Stage::Read,
     "the mesh's faces have inconsistent orientation, so it cannot give the body's inertia"},
    {"bad_tendon.xml", "bad_tendon.xml", 9, Stage::Read, "unsupported: tendons"},
    {"bad_equality.xml", "bad_equality.xml", 9, Stage::Read,
     "unsupported: equality constraints (<weld>)"},
    {"bad_plugin.xml", "bad_plugin.xml", 6, Stage::Read, "unsupported: <plugin>"},
    {"bad_composite.xml", "bad_composite.xml", 5, Stage::Read, "unsupported: <composite>"},
    {"bad_contact_pair.xml", "bad_contact_pair.xml", 10, Stage::Read,
     "unsupported: explicit contact pairs"},
    {"bad_hfield.xml", "bad_hfield.xml", 7, Stage::Read, "unsupported: an hfield geom in a body"},
    {"bad_hfield_png.xml", "bad_hfield_png.xml", 3, Stage::Read,
     "hfield file 'terrain.png' is not a PNG file"},
    {"bad_hfield_file.xml", "bad_hfield_file.xml", 3, Stage::Read,
     "hfield file 'no_such_terrain.bin' cannot be opened"},
    {"bad_coordinate_global.xml", "bad_coordinate_global.xml", 2, Stage::Read,
     "unsupported: coordinate='global'"},
    {"bad_general_dyntype.xml", "bad_general_dyntype.xml", 9, Stage::Read,
     "unsupported: actuator dyntype"},
    {"bad_tendon_transmission.xml", "bad_tendon_transmission.xml", 9, Stage::Read,
     "unsupported: actuator transmission 'tendon'"},
    {"bad_several_errors.xml", "bad_several_errors.xml", 13, Stage::Read,
     "unknown joint 'nowhere'"},
};

std::string bad_path(const std::string& file) {
  return std::string(TALON_TEST_DATA_DIR) + "/mjcf/bad/" + file;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The diagnostics of the stage that must reject the file.
talon::Diagnostics failure_of(const BadFile& bad) {
  const std::string path = bad_path(bad.file);
  const talon::Expected<talon::ModelSpec> spec = talon::read_mjcf(path, {});
  if (bad.stage == Stage::Read) {
    REQUIRE_FALSE(spec.ok());
    return spec.diagnostics();
  }
  INFO("the reader must accept the file: compile_model is the stage that rejects it\n"
       << spec.diagnostics().format());
  REQUIRE(spec.ok());
  const talon::Expected<talon::Model> model = talon::load_model(path);
  REQUIRE_FALSE(model.ok());
  return model.diagnostics();
}

bool has_error_at(const talon::Diagnostics& diag, const BadFile& bad) {
  return std::any_of(diag.items().begin(), diag.items().end(), [&](const talon::Diagnostic& d) {
    return d.severity == talon::Severity::Error && ends_with(d.loc.file, bad.error_file) &&
           d.loc.line == bad.line && d.message.find(bad.message) != std::string::npos;
  });
}

}  // namespace

TEST_CASE("every malformed MJCF file is rejected with file:line and the reason", "[mjcf][errors]") {
  for (const BadFile& bad : kBadFiles) {
    DYNAMIC_SECTION(bad.file) {
      const talon::Diagnostics diag = failure_of(bad);
      INFO("expected " << bad.error_file << ":" << bad.line << ": ... " << bad.message << "\ngot:\n"
                       << diag.format());
      CHECK(has_error_at(diag, bad));
      // The formatted form, as a user sees it, starts with file:line.
      CHECK(diag.format().find(std::string(bad.error_file) + ":" + std::to_string(bad.line) +
                               ": error: ") != std::string::npos);
    }
  }
}

TEST_CASE("the must-fail table covers every file of tests/data/mjcf/bad", "[mjcf][errors]") {
  std::set<std::string> listed;
  for (const BadFile& bad : kBadFiles) listed.insert(bad.file);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(bad_path(""))) {
    if (entry.path().extension() != ".xml") continue;
    ++files;
    INFO(entry.path().filename().string() << " has no entry in kBadFiles");
    CHECK(listed.count(entry.path().filename().string()) == 1);
  }
  CHECK(files == static_cast<int>(listed.size()));
  CHECK(files >= 25);
}

TEST_CASE("a file with several independent errors reports all of them in one run",
          "[mjcf][errors]") {
  const talon::Expected<talon::ModelSpec> spec =
      talon::read_mjcf(bad_path("bad_several_errors.xml"), {});
  REQUIRE_FALSE(spec.ok());
  const talon::Diagnostics& diag = spec.diagnostics();
  INFO(diag.format());
  CHECK(diag.error_count() == 4);
  const std::string text = diag.format();
  CHECK(text.find("bad_several_errors.xml:3: error: <body name='a'>: attribute 'pos' needs 3 "
                  "numbers, found 2") != std::string::npos);
  CHECK(text.find("bad_several_errors.xml:5: error: <geom>: unknown attribute 'colour'") !=
        std::string::npos);
  CHECK(text.find("bad_several_errors.xml:7: error: <body name='b'>: attribute 'euler': cannot "
                  "read 'x' as a number") != std::string::npos);
}

TEST_CASE("reading a missing MJCF file is an error, not an exception", "[mjcf][errors]") {
  const talon::Expected<talon::ModelSpec> spec = talon::read_mjcf(bad_path("no_such.xml"), {});
  REQUIRE_FALSE(spec.ok());
  CHECK(spec.diagnostics().format().find("no_such.xml: error: cannot open file") !=
        std::string::npos);
}

TEST_CASE("garbage and empty input never crash the MJCF reader", "[mjcf][errors]") {
  const char* inputs[] = {"",
                          "   ",
                          "not xml at all",
                          "<mujoco>",
                          "<mujoco><worldbody><body><body></worldbody></mujoco>",
                          "<mujoco><worldbody><body pos='1 2 3' pos='4 5 6'/></worldbody></mujoco>",
                          "<mujoco><include/></mujoco>",
                          "<mujoco><default><default/></default></mujoco>",
                          "<mujoco><worldbody><body><geom type='box' size='-1 2 3'/></body>"
                          "</worldbody></mujoco>",
                          "<!-- only a comment -->"};
  for (const char* text : inputs) {
    INFO("input: " << text);
    const talon::Expected<talon::ModelSpec> spec = talon::read_mjcf_string(text, "garbage.xml", {});
    CHECK_FALSE(spec.ok());
    CHECK(spec.diagnostics().error_count() >= 1);
    for (const talon::Diagnostic& d : spec.diagnostics().items())
      CHECK(d.loc.file == "garbage.xml");
  }
}

TEST_CASE("randomly corrupted models never crash or throw", "[mjcf][errors]") {
  // Byte-level mutations of a real model: deletions, duplications and replacements by
  // characters that matter to XML and to numbers. Every outcome must be a value.
  std::ifstream file(std::string(TALON_MODELS_DIR) + "/three_wheeler_scene.xml");
  std::stringstream buffer;
  buffer << file.rdbuf();
  const std::string original = buffer.str();
  REQUIRE(original.size() > 1000);
  std::mt19937 rng(12345);
  const std::string alphabet = "<>/=\"' -.e0123456789abcxyz";
  int failures = 0;
  for (int round = 0; round < 300; ++round) {
    std::string text = original;
    const int edits = 1 + static_cast<int>(rng() % 8);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const std::size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text.erase(at, 1 + rng() % 20);
          break;
        case 1:
          text.insert(at, text.substr(at, 1 + rng() % 40));
          break;
        default:
          text[at] = alphabet[rng() % alphabet.size()];
          break;
      }
    }
    INFO("round " << round);
    bool read_ok = true;
    CHECK_NOTHROW(read_ok = talon::read_mjcf_string(text, "mutated.xml", {}).ok());
    if (!read_ok) ++failures;
  }
  CHECK(failures > 0);  // the mutations do break models
}
