// Published robot files load (issue #17): mass and inertia are checked on the simulated,
// welded bodies; a positive-definite inertia that violates the triangle inequality is a note
// for URDF (an error for MJCF, as in MuJoCo); package:/// is read as package://. The robot
// files are unmodified copies from example-robot-data (tests/data/urdf/robots/README.md).
#include <catch2/catch.hpp>

#include <tinyxml2.h>
#include <string>

#include "frontend/compile.h"
#include "frontend/load.h"

using namespace talon;

namespace {

const std::string kRobots = std::string(TALON_TEST_DATA_DIR) + "/urdf/robots/";

// What the file itself says, read independently of Talon's reader: the sum of its links'
// <mass value> and the number of joints that move (revolute, continuous, prismatic).
struct FileCounts {
  double mass = 0;
  int moving_joints = 0;
};

FileCounts count_in_file(const std::string& path) {
  tinyxml2::XMLDocument doc;
  REQUIRE(doc.LoadFile(path.c_str()) == tinyxml2::XML_SUCCESS);
  FileCounts counts;
  const tinyxml2::XMLElement* robot = doc.FirstChildElement("robot");
  for (auto* link = robot->FirstChildElement("link"); link; link = link->NextSiblingElement("link"))
    if (auto* inertial = link->FirstChildElement("inertial"))
      counts.mass += inertial->FirstChildElement("mass")->DoubleAttribute("value");
  for (auto* joint = robot->FirstChildElement("joint"); joint;
       joint = joint->NextSiblingElement("joint")) {
    const std::string type = joint->Attribute("type");
    counts.moving_joints += type == "revolute" || type == "continuous" || type == "prismatic";
  }
  return counts;
}

double total_mass(const Model& model) {
  double mass = 0;
  for (double m : model.body_mass) mass += m;
  return mass;
}

std::size_t notes_containing(const Diagnostics& diag, const std::string& text) {
  std::size_t n = 0;
  for (const Diagnostic& d : diag.items())
    n += d.severity == Severity::Note && d.format().find(text) != std::string::npos;
  return n;
}

Expected<Model> load_text(const std::string& xml, bool floating_base = false) {
  LoadOptions options;
  options.floating_base = floating_base;
  const Expected<ModelSpec> spec = read_urdf_string(xml, "inline.urdf", options);
  REQUIRE(spec.ok());
  Expected<Model> model = compile_model(*spec);
  Diagnostics all = spec->notes;
  all.append(model.diagnostics());
  if (!model) return all;
  return Expected<Model>(std::move(*model), all);
}

// A trunk moved by `joint` (free with floating_base) and a `second` link welded to it.
std::string trunk_with_welded_link(const std::string& second_inertia) {
  return "<robot name='r'>"
         "<link name='base'><inertial><mass value='1e-6'/>" +
         second_inertia +
         "</inertial></link>"
         "<joint name='weld' type='fixed'><parent link='base'/><child link='trunk'/></joint>"
         "<link name='trunk'><inertial><mass value='5'/>"
         "<inertia ixx='0.1' ixy='0' ixz='0' iyy='0.2' iyz='0' izz='0.25'/></inertial></link>"
         "</robot>";
}

// A base and an `arm` link moved by a continuous joint; the arm's <link> starts line 2 and
// holds `arm_inertial` (empty: no <inertial>).
std::string arm_on_base(const std::string& arm_inertial) {
  return "<robot name='r'><link name='base'/><joint name='j' type='continuous'>"
         "<parent link='base'/><child link='arm'/><axis xyz='0 1 0'/></joint>\n"
         "<link name='arm'>" +
         arm_inertial + "</link></robot>";
}

std::string unit_mass_inertial(double ixx, double iyy, double izz) {
  return "<inertial><mass value='1'/><inertia ixx='" + std::to_string(ixx) +
         "' ixy='0' ixz='0' iyy='" + std::to_string(iyy) + "' iyz='0' izz='" + std::to_string(izz) +
         "'/></inertial>";
}

}  // namespace

TEST_CASE("real robots: published files load with the file's DOF and mass", "[urdf][robots]") {
  struct Case {
    std::string file;
    bool floating_base;
  };
  for (const Case& c :
       {Case{"go1.urdf", true}, Case{"go1.urdf", false}, Case{"panda_collision.urdf", false},
        Case{"allegro_right_hand.urdf", false}}) {
    INFO(c.file << (c.floating_base ? " (floating base)" : ""));
    LoadOptions options;
    options.floating_base = c.floating_base;
    const Expected<Model> model = load_model(kRobots + c.file, options);
    INFO(model.diagnostics().format());
    REQUIRE(model.ok());
    const FileCounts expected = count_in_file(kRobots + c.file);
    CHECK(model->nv == expected.moving_joints + (c.floating_base ? 6 : 0));
    CHECK(total_mass(*model) == Approx(expected.mass).epsilon(1e-12));
    CHECK(expected.mass > 0.1);
  }
}

TEST_CASE("real robots: a triangle-inequality violation is a note naming the link and its size",
          "[urdf][robots]") {
  const Expected<Model> hand = load_model(kRobots + "allegro_right_hand.urdf");
  INFO(hand.diagnostics().format());
  REQUIRE(hand.ok());
  // link_1.0's principal moments are 1.29605e-05, 7.10574e-05, 9.98217e-05: A + B = 0.84168 C.
  CHECK(notes_containing(hand.diagnostics(),
                         "allegro_right_hand.urdf:84: note: <link name='link_1.0'>: inertia of "
                         "moving body 'link_1.0' violates the triangle inequality: A + B = "
                         "0.84168 C, 15.832 % short") == 1);
  const Expected<Model> model = load_text(arm_on_base(unit_mass_inertial(1, 1, 3)));
  REQUIRE(model.ok());
  CHECK(notes_containing(model.diagnostics(), "A + B = 0.666667 C, 33.3333 % short") == 1);
}

TEST_CASE("real robots: inertia is checked after welding", "[urdf][robots]") {
  SECTION("a root link of near-zero inertia welded to the trunk (go1, anymal, hyq)") {
    const Expected<Model> model = load_text(
        trunk_with_welded_link("<inertia ixx='1e-22' ixy='0' ixz='0' iyy='-1e-22' iyz='0' "
                               "izz='3e-6'/>"),
        true);
    INFO(model.diagnostics().format());
    REQUIRE(model.ok());
    CHECK(model->nsim == 1);
    CHECK(model->sim_mass[0] == Approx(5.000001));
  }
  SECTION("an indefinite link welded into its parent (tiago's antenna) is a note") {
    const Expected<Model> model =
        load_text(trunk_with_welded_link("<inertia ixx='-3e-2' ixy='0' ixz='0' iyy='3e-2' iyz='0' "
                                         "izz='9e-2'/>"),
                  true);
    INFO(model.diagnostics().format());
    REQUIRE(model.ok());
    CHECK(notes_containing(model.diagnostics(),
                           "inline.urdf:1: note: <link name='base'>: inertia of 'base' is not "
                           "positive semi-definite (principal moments -0.03  0.03  0.09); it is "
                           "welded into moving body 'base'") == 1);
  }
  SECTION("an indefinite simulated body is an error at its link's <inertial>") {
    const Expected<Model> model = load_text(arm_on_base(unit_mass_inertial(-1, 1, 1)));
    REQUIRE_FALSE(model.ok());
    CHECK_THAT(model.diagnostics().format(),
               Catch::Contains("inline.urdf:2: error: <link name='arm'>: inertia of moving body "
                               "'arm' is not positive definite"));
  }
  SECTION("a zero-mass link moved by a joint still fails") {
    const Expected<Model> model = load_text(arm_on_base(""));
    REQUIRE_FALSE(model.ok());
    CHECK_THAT(model.diagnostics().format(), Catch::Contains("has zero mass"));
  }
}
