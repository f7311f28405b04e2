// The URDF reader's must-fail suite: each malformed file in tests/data/urdf/bad/ must be
// rejected with a message naming the problem at the right file:line. Problems any format
// can have (mass, inertia, axis, limit order) are caught by compile_model, so those files
// go through load_model.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "frontend/load.h"

using namespace talon;

namespace {

const std::string kBadDir = std::string(TALON_TEST_DATA_DIR) + "/urdf/bad/";

// Requires that `result` failed with an error at `file:line` whose text contains `text`.
template <class T>
void require_error_at(const Expected<T>& result, const std::string& file, int line,
                      const std::string& text) {
  REQUIRE_FALSE(result.ok());
  // Diagnostic::format() leaves out the line when it is unknown (0).
  const std::string where =
      "/" + file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": error: ";
  bool found = false;
  for (const Diagnostic& diagnostic : result.diagnostics().items()) {
    const std::string message = diagnostic.format();
    found = found ||
            (message.find(where) != std::string::npos && message.find(text) != std::string::npos);
  }
  INFO("expected '" << where << "... " << text << "' in:\n" << result.diagnostics().format());
  CHECK(found);
}

// Errors the URDF reader itself reports; each bad file has one problem, and it must not
// cascade into follow-on errors.
void require_reader_error(const std::string& file, int line, const std::string& text,
                          const LoadOptions& options = {}) {
  const Expected<ModelSpec> result = read_urdf(kBadDir + file, options);
  require_error_at(result, file, line, text);
  CHECK(result.diagnostics().error_count() == 1);
}

// Errors compile_model reports for a URDF file (read, then compiled).
void require_load_error(const std::string& file, int line, const std::string& text) {
  REQUIRE(read_urdf(kBadDir + file, {}).ok());  // the reader itself accepts it
  const Expected<Model> result = load_model(kBadDir + file);
  require_error_at(result, file, line, text);
  CHECK(result.diagnostics().error_count() == 1);
}

}  // namespace

TEST_CASE("urdf error: malformed XML") {
  require_reader_error("bad_xml_syntax.urdf", 4, "malformed XML");
}

TEST_CASE("urdf error: the root element is not <robot>") {
  require_reader_error("bad_not_robot.urdf", 3, "the root element must be <robot>");
}

TEST_CASE("urdf error: <robot> without a name") {
  require_reader_error("bad_robot_no_name.urdf", 3, "<robot> has no name attribute");
}

TEST_CASE("urdf error: <link> without a name") {
  require_reader_error("bad_link_no_name.urdf", 5, "<link> has no name attribute");
}

TEST_CASE("urdf error: a robot without links") {
  require_reader_error("bad_no_links.urdf", 3, "<robot> has no <link>");
}

TEST_CASE("urdf error: a joint names an unknown link") {
  require_reader_error("bad_unknown_link.urdf", 7, "<child> names unknown link 'arm'");
}

TEST_CASE("urdf error: a joint without <child>") {
  require_reader_error("bad_missing_child.urdf", 5, "<joint> has no <child> element");
}

TEST_CASE("urdf error: two root links") {
  require_reader_error("bad_two_roots.urdf", 10, "two root links 'a' and 'b'");
}

TEST_CASE("urdf error: a link with two parents") {
  require_reader_error("bad_two_parents.urdf", 17, "link 'c' has two parents");
}

TEST_CASE("urdf error: joints that form a cycle") {
  require_reader_error("bad_cycle.urdf", 8, "joints form a cycle: 'c' -> 'd' -> 'b' -> 'c'");
}

TEST_CASE("urdf error: a cycle and no root at all") {
  require_reader_error("bad_cycle_no_root.urdf", 6, "joints form a cycle");
}

TEST_CASE("urdf error: a joint from a link to itself") {
  require_reader_error("bad_self_joint.urdf", 7, "connects link 'base' to itself");
}

TEST_CASE("urdf error: duplicate link names") {
  require_reader_error("bad_duplicate_link.urdf", 6, "duplicate link name 'base'");
}

TEST_CASE("urdf error: duplicate joint names") {
  require_reader_error("bad_duplicate_joint.urdf", 11, "duplicate joint name 'j'");
}

TEST_CASE("urdf error: unknown joint type") {
  require_reader_error("bad_joint_type.urdf", 6, "unknown joint type 'hinge'");
}

TEST_CASE("urdf error: a number with a unit suffix") {
  require_reader_error("bad_number.urdf", 6, "'1.5kg' is not a finite number");
}

TEST_CASE("urdf error: NaN") {
  require_reader_error("bad_nan.urdf", 9, "'nan' is not a finite number");
}

TEST_CASE("urdf error: a number that overflows to infinity") {
  require_reader_error("bad_infinite.urdf", 7, "'1e999' is not a finite number");
}

TEST_CASE("urdf error: xyz with two numbers") {
  require_reader_error("bad_xyz_count.urdf", 9, "expected 3 numbers, found 2");
}

TEST_CASE("urdf error: two <origin> elements") {
  require_reader_error("bad_duplicate_origin.urdf", 10, "more than one <origin>");
}

TEST_CASE("urdf error: <inertia> missing a component") {
  require_reader_error("bad_inertia_attribute.urdf", 7, "<inertia> has no izz attribute");
}

TEST_CASE("urdf error: geometry that is not URDF") {
  require_reader_error("bad_geometry.urdf", 7, "unsupported geometry <capsule>");
}

TEST_CASE("urdf error: revolute joint without <limit>") {
  require_reader_error("bad_missing_limit.urdf", 11, "revolute joint has no <limit>");
}

TEST_CASE("urdf error: mimic of an unknown joint") {
  require_reader_error("bad_mimic.urdf", 11, "<mimic> names unknown joint 'finger'");
}

TEST_CASE("urdf error: a package:// mesh that no package path provides") {
  LoadOptions options;
  options.package_paths = {std::string(TALON_TEST_DATA_DIR) + "/urdf/pkgroot"};
  require_reader_error("bad_missing_mesh.urdf", 7,
                       "mesh file 'package://no_such_package/meshes/base.stl' not found", options);
  require_reader_error("bad_missing_mesh.urdf", 7,
                       "searched: " + options.package_paths[0] + "/no_such_package/meshes/base.stl",
                       options);
}

TEST_CASE("urdf error: a relative mesh path that does not exist") {
  require_reader_error(
      "bad_missing_relative_mesh.urdf", 7,
      "mesh file 'meshes/missing.stl' not found; searched: " + kBadDir + "meshes/missing.stl");
}

TEST_CASE("urdf error: a mesh URI with an unsupported scheme") {
  require_reader_error("bad_mesh_uri_scheme.urdf", 7, "uses an unsupported URI scheme 'https://'");
}

TEST_CASE("urdf error: XML nested deeper than the limit") {
  require_reader_error("bad_deep_nesting.urdf", 68, "nested deeper than 64 levels");
}

TEST_CASE("urdf error: negative mass (compile)") {
  require_load_error("bad_negative_mass.urdf", 11, "negative mass");
}

TEST_CASE("urdf error: inertia not positive definite (compile)") {
  require_load_error("bad_inertia_not_pd.urdf", 11, "not positive definite");
}

TEST_CASE("urdf error: zero-length joint axis (compile)") {
  require_load_error("bad_zero_axis.urdf", 11, "zero length");
}

TEST_CASE("urdf error: lower limit above upper limit (compile)") {
  require_load_error("bad_limit_order.urdf", 11, "lower limit");
}

TEST_CASE("urdf error: a moving link without <inertial> (compile)") {
  require_load_error("bad_zero_mass.urdf", 5, "zero mass");
}

TEST_CASE("urdf error: a file that cannot be opened") {
  const Expected<ModelSpec> result = read_urdf(kBadDir + "no_such_file.urdf", {});
  require_error_at(result, "no_such_file.urdf", 0, "cannot open file");
}

TEST_CASE("urdf error: in-memory documents") {
  const LoadOptions options;
  SECTION("100 000 nested elements are refused before tinyxml2 recurses") {
    std::string xml = "<robot name='r'>\n<link name='a'/>\n";
    for (int i = 0; i < 100000; ++i) xml += "<x>";
    for (int i = 0; i < 100000; ++i) xml += "</x>";
    xml += "\n</robot>\n";
    require_error_at(read_urdf_string(xml, "/deep.urdf", options), "deep.urdf", 3,
                     "nested deeper than 64 levels");
  }
  SECTION("an empty document") {
    require_error_at(read_urdf_string("", "/empty.urdf", options), "empty.urdf", 0,
                     "empty document");
  }
  SECTION("a document without any element") {
    require_error_at(
        read_urdf_string("<?xml version='1.0'?>\n<!-- nothing -->\n", "/none.urdf", options),
        "none.urdf", 0, "no XML element");
  }
  SECTION("a second element after </robot>") {
    require_error_at(
        read_urdf_string("<robot name='r'>\n<link name='a'/>\n</robot>\n<robot name='s'/>\n",
                         "/two.urdf", options),
        "two.urdf", 4, "element after the closing </robot>");
  }
  SECTION("several problems are all reported") {
    const Expected<ModelSpec> result = read_urdf_string(
        "<robot name='r'>\n<link name='a'>\n<inertial><mass value='x'/>\n"
        "<inertia ixx='1' ixy='0' ixz='0' iyy='1' iyz='0' izz='y'/></inertial>\n</link>\n"
        "<joint name='j' type='bogus'><parent link='a'/><child link='b'/></joint>\n</robot>\n",
        "/many.urdf", options);
    require_error_at(result, "many.urdf", 3, "'x' is not a finite number");
    require_error_at(result, "many.urdf", 4, "'y' is not a finite number");
    require_error_at(result, "many.urdf", 6, "unknown joint type 'bogus'");
    require_error_at(result, "many.urdf", 6, "<child> names unknown link 'b'");
  }
}
