// The generated model unit: strict C99, freestanding (no heap, no stdio), checked names, and
// the CUDA rendering through NVRTC where the toolkit exists.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "codegen/model_unit.h"
#include "frontend/compile.h"
#include "frontend/load.h"
#include "ir/lower/lower.h"
#include "ir/lower/pair_templates.h"
#include "runtime/runtime_fixtures.h"
#include "scratch_directory.h"
#include "skip.h"
#ifdef TALON_HAVE_CUDA
#include "codegen/nvrtc_compiler.h"
#endif

namespace talon {
namespace {

struct Generated {
  Model model;
  ir::ResidualProgram program;
  codegen::ModelUnit unit;
};

Generated generate(const std::string& file, const codegen::ModelUnitOptions& options,
                   const ir::LowerOptions& lower = {}) {
  Generated g{testing::shipped_model(file), {}, {}};
  Expected<ir::ResidualProgram> program = ir::lower_model(g.model, lower);
  INFO(program.diagnostics().format());
  REQUIRE(program.ok());
  g.program = std::move(*program);
  Expected<codegen::ModelUnit> unit = codegen::generate_model_unit(g.model, g.program, options);
  INFO(unit.diagnostics().format());
  REQUIRE(unit.ok());
  g.unit = std::move(*unit);
  return g;
}

codegen::TemporaryDirectory scratch() {
  return testing::scratch_directory("talon-unit-test-");
}

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Runs a shell command; returns its exit status and output.
int shell(const std::string& command, std::string& output) {
  const std::string log = (std::filesystem::temp_directory_path() /
                           ("talon-unit-shell-" + std::to_string(::getpid()) + ".txt"))
                              .string();
  const int status = std::system((command + " > '" + log + "' 2>&1").c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  output = text.str();
  std::filesystem::remove(log);
  return status;
}

const char* kStrict = "cc -std=c99 -pedantic -Wall -Wextra -Werror -O1 -c ";

// `count` bodies of one 10 cm geom (`geom`: MJCF attributes), apart in a row, on a floor
// plane (MJCF text; a terrain comes from LoadOptions).
std::string bodies_in_a_row(int count, const std::string& geom, bool floor) {
  std::string xml =
      "<mujoco><compiler meshdir=\"assets\"/><asset><mesh name=\"cube\" file=\"cube.obj\" "
      "scale=\"0.1 0.1 0.1\"/></asset><worldbody>";
  if (floor) xml += "<geom type=\"plane\" size=\"0 0 1\" friction=\"0.8\"/>";
  for (int i = 0; i < count; ++i)
    xml += "<body pos=\"" + std::to_string(0.3 * i) + " 0 0.05\"><freejoint/><geom " + geom +
           " mass=\"1\" friction=\"0.8\"/></body>";
  return xml + "</worldbody></mujoco>";
}

}  // namespace

TEST_CASE("model units are strict C99 in double and single precision", "[runtime][unit]") {
  // (file, f32, with the Newton trace, contact pairs and joint sets as templates with the
  // backward step)
  const auto [file, floating, traced, templates] =
      GENERATE(table<const char*, bool, bool, bool>({{"sphere_drop.xml", false, false, false},
                                                     {"sliding_box.xml", false, false, false},
                                                     {"double_pendulum.urdf", false, false, false},
                                                     {"cartpole.urdf", false, true, false},
                                                     {"sliding_box.xml", true, true, false},
                                                     {"push_box.xml", false, false, true},
                                                     {"double_pendulum.urdf", false, false, true},
                                                     {"push_box.xml", true, true, true}}));
  codegen::ModelUnitOptions options;
  options.name = "unit_under_test";
  if (floating) options.precision = ir::CPrecision::Float;
  if (traced) options.solver.trace_capacity = 40;
  ir::LowerOptions lower;
  lower.set_templates(templates);
  if (templates) options.solver.adjoint_iterations = 16;
  const Generated g = generate(file, options, lower);
  CHECK((g.unit.source.find("talon_pair0_residual_add") != std::string::npos) == templates);
  codegen::TemporaryDirectory dir = scratch();
  write(dir.path() / "unit_under_test.c", g.unit.source);
  write(dir.path() / "unit_under_test.h", g.unit.header);
  // The header alone also compiles, as C and as C++ (extern "C").
  write(dir.path() / "use.c", "#include \"unit_under_test.h\"\nint main(void) { return 0; }\n");
  write(dir.path() / "use.cpp",
        "#include \"unit_under_test.h\"\nint main() { unit_under_test_workspace ws; (void)ws; }\n");
  std::string output;
  INFO(file << (floating ? " f32" : " f64") << (traced ? " traced" : "")
            << (templates ? " templates" : ""));
  CHECK((g.unit.header.find("unit_under_test_trace(") != std::string::npos) == traced);
  CHECK(shell(kStrict + (dir.path() / "unit_under_test.c").string() + " -o " +
                  (dir.path() / "unit.o").string(),
              output) == 0);
  INFO(output);
  CHECK(shell(kStrict + (dir.path() / "use.c").string() + " -o " + (dir.path() / "use.o").string(),
              output) == 0);
  CHECK(shell("c++ -std=c++17 -Wall -Wextra -Werror -c " + (dir.path() / "use.cpp").string() +
                  " -o " + (dir.path() / "use_cpp.o").string(),
              output) == 0);
}

TEST_CASE("the embedded unit references no heap or stdio symbol, only libm", "[runtime][unit]") {
  codegen::ModelUnitOptions options;
  options.name = "embedded";
  const Generated g = generate("sliding_box.xml", options);
  codegen::TemporaryDirectory dir = scratch();
  write(dir.path() / "embedded.c", g.unit.source);
  std::string output;
  REQUIRE(shell(kStrict + (dir.path() / "embedded.c").string() + " -o " +
                    (dir.path() / "embedded.o").string(),
                output) == 0);
  REQUIRE(shell("nm -u " + (dir.path() / "embedded.o").string(), output) == 0);
  const std::set<std::string> libm = {"sqrt",  "sin",   "cos",   "sincos", "exp",   "log",
                                      "tanh",  "atan2", "fmin",  "fmax",   "fabs",  "sqrtf",
                                      "sinf",  "cosf",  "expf",  "logf",   "tanhf", "atan2f",
                                      "fminf", "fmaxf", "fabsf", "sincosf"};
  std::istringstream lines(output);
  std::string kind, symbol;
  int undefined = 0;
  while (lines >> kind >> symbol) {
    INFO("undefined symbol " << symbol);
    CHECK(libm.count(symbol) == 1);
    ++undefined;
  }
  CHECK(undefined > 0);  // sqrt at least: the check above ran on real output
  CHECK(output.find("malloc") == std::string::npos);
  CHECK(output.find("printf") == std::string::npos);
}

TEST_CASE("the header documents the state layout and sizes", "[runtime][unit]") {
  codegen::ModelUnitOptions options;
  options.name = "box";
  const Generated g = generate("sliding_box.xml", options);
  CHECK(g.unit.nq == 7);
  CHECK(g.unit.nv == 6);
  CHECK(g.unit.nctrl == 0);
  CHECK(g.unit.ncontacts == 8);
  CHECK(g.unit.header.find("#define box_NQ 7 ") != std::string::npos);
  CHECK(g.unit.header.find("#define box_NV 6 ") != std::string::npos);
  CHECK(g.unit.header.find("'box'  q[0..6]  u[0..5]") != std::string::npos);
  CHECK(g.unit.header.find("world position of its centre of mass") != std::string::npos);
  CHECK(g.unit.header.find("typedef double box_real;") != std::string::npos);
  CHECK(g.unit.header.find("int box_step(box_real q[], box_real u[], const box_real ctrl[], "
                           "box_real h, box_workspace* ws);") != std::string::npos);
  CHECK(g.unit.block_names.front() == "dynamics");
}

TEST_CASE("model unit names must be usable C identifiers", "[runtime][unit]") {
  const Model model = testing::shipped_model("sphere_drop.xml");
  Expected<ir::ResidualProgram> program = ir::lower_model(model);
  REQUIRE(program.ok());
  for (const char* bad : {"3d", "my-robot", "a b", "", "__x"}) {
    codegen::ModelUnitOptions options;
    options.name = bad;
    Expected<codegen::ModelUnit> unit = codegen::generate_model_unit(model, *program, options);
    INFO(bad);
    CHECK_FALSE(unit.ok());
  }
}

// A program lowered without the backward kernels (what a Simulator without a backward step
// lowers) makes units without one, and a unit with one is refused with a message, not an
// internal assertion.
TEST_CASE("a unit's backward step needs the backward kernels", "[runtime][unit]") {
  const Model model = testing::shipped_model("push_box.xml");
  ir::LowerOptions lower;
  lower.backward_kernels = false;
  Expected<ir::ResidualProgram> program = ir::lower_model(model, lower);
  REQUIRE(program.ok());
  CHECK(program->find_kernel("vjp_exact") == nullptr);
  CHECK(program->find_kernel("jvp_exact") != nullptr);
  codegen::ModelUnitOptions options;
  CHECK(codegen::generate_model_unit(model, *program, options).ok());
  options.solver.adjoint_iterations = 16;
  Expected<codegen::ModelUnit> unit = codegen::generate_model_unit(model, *program, options);
  REQUIRE_FALSE(unit.ok());
  CHECK_THAT(unit.diagnostics().format(), Catch::Contains("backward_kernels"));
  // What the Simulator and `talon compile` lower: the backward kernels only for a unit that
  // calls them.
  CHECK_FALSE(codegen::unit_lower_options({}, codegen::SolverOptions{}).backward_kernels);
  CHECK(codegen::unit_lower_options({}, options.solver).backward_kernels);
}

// Issue #16's size bar: the generated code grows with the set of contact types, not with the
// number of instances (the pairs are per-type templates looped over tables, the default).
// Issue #17's: so do mesh hulls (a template per hull) and terrain contacts (a template per
// geom type on the terrain, its probes a table).
TEST_CASE(
    "a unit of 8 bodies is within 15 % of one of 2: boxes on a floor, mesh cubes on a "
    "terrain",
    "[runtime][unit]") {
  const bool meshes = GENERATE(false, true);
  LoadOptions options;
  if (meshes) options.terrain = std::string(TALON_MODELS_DIR) + "/bumps.obj";
  std::size_t bytes[2];
  const int counts[2] = {2, 8};
  for (int i = 0; i < 2; ++i) {
    const std::string xml = bodies_in_a_row(
        counts[i], meshes ? "type=\"mesh\" mesh=\"cube\"" : "type=\"box\" size=\"0.05 0.05 0.05\"",
        !meshes);
    const Model model = testing::model_from_mjcf(
        xml, std::string(TALON_TEST_DATA_DIR) + "/mjcf/bodies.xml", &options);
    Expected<ir::ResidualProgram> program = ir::lower_model(model);
    REQUIRE(program.ok());
    REQUIRE(program->pairs != nullptr);
    CHECK(program->terrain_probes.size() == (meshes ? counts[i] : 0u));
    Expected<codegen::ModelUnit> unit = codegen::generate_model_unit(model, *program);
    REQUIRE(unit.ok());
    bytes[i] = unit->source.size();
  }
  INFO((meshes ? "mesh cubes on a terrain" : "boxes on a floor")
       << ": 2 bodies " << bytes[0] << " bytes of C, 8 bodies " << bytes[1]);
  CHECK(bytes[1] <= 1.15 * bytes[0]);
}

// The instance tables (codegen/model_unit_pairs.cpp): equal constants are stored once, and an
// instance's gathers are a few runs of consecutive indices, not one index per input.
TEST_CASE("instance tables: equal boxes share their constants, gathers are runs",
          "[runtime][unit]") {
  std::map<std::string, std::size_t> sizes[2];  // table name -> entries, for 2 and 8 boxes
  std::size_t instances[2] = {0, 0}, inputs = 0;
  const int counts[2] = {2, 8};
  for (int i = 0; i < 2; ++i) {
    const Model model = testing::model_from_mjcf(
        bodies_in_a_row(counts[i], "type=\"box\" size=\"0.05 0.05 0.05\"", true),
        std::string(TALON_TEST_DATA_DIR) + "/mjcf/bodies.xml");
    Expected<ir::ResidualProgram> program = ir::lower_model(model);
    REQUIRE(program.ok());
    REQUIRE(program->pairs != nullptr);
    REQUIRE(program->pairs->templates[0].name.find("plane-box") != std::string::npos);
    for (const ir::PairInstance& instance : program->pairs->instances)
      instances[i] += instance.template_index == 0;
    Expected<codegen::ModelUnit> unit = codegen::generate_model_unit(model, *program);
    REQUIRE(unit.ok());
    const std::regex table(R"(TALON_TABLE \w+ (talon_pair0_\w+)\[(\d+)\])");
    for (std::sregex_iterator m(unit->source.begin(), unit->source.end(), table), end; m != end;
         ++m)
      sizes[i][(*m)[1]] = std::stoul((*m)[2]);
    std::smatch tin;
    REQUIRE(std::regex_search(
        unit->source, tin,
        std::regex(R"(talon_pair0_residual_add\(.*\n  talon_real tin\[(\d+)\])")));
    inputs = std::stoul(tin[1]);
  }
  CHECK(instances[0] == 2);
  CHECK(instances[1] == 8);
  CHECK(sizes[1].at("talon_pair0_constants") == sizes[0].at("talon_pair0_constants"));
  for (int i = 0; i < 2; ++i) {
    CHECK(sizes[i].at("talon_pair0_constant_row") == instances[i]);
    const std::size_t runs = sizes[i].at("talon_pair0_residual_gather") / instances[i];
    INFO(runs << " runs per instance for " << inputs << " inputs");
    CHECK(sizes[i].at("talon_pair0_residual_gather") % instances[i] == 0);
    CHECK(runs * 4 <= inputs);
  }
}

TEST_CASE("the CUDA rendering of a unit compiles with NVRTC", "[runtime][unit][cuda]") {
#ifndef TALON_HAVE_CUDA
  TALON_SKIP("no CUDA toolkit at configure time: no NVRTC to compile the unit with");
#else
  const bool floating = GENERATE(false, true);
  // Contact pairs and joint sets as templates (issue #16): the pushed box has both.
  const bool templates = GENERATE(false, true);
  codegen::ModelUnitOptions options;
  options.name = "box";
  options.target = codegen::UnitTarget::Cuda;
  if (floating) options.precision = ir::CPrecision::Float;
  ir::LowerOptions lower;
  lower.set_templates(templates);
  const Generated g = generate(templates ? "push_box.xml" : "sliding_box.xml", options, lower);
  CHECK((g.unit.source.find("talon_pair0_residual_add") != std::string::npos) == templates);
  Expected<std::string> ptx = codegen::nvrtc_compile(g.unit.source);
  INFO(ptx.diagnostics().format());
  REQUIRE(ptx.ok());
  CHECK(ptx->find(".entry box_step_batch") != std::string::npos);
  CHECK(ptx->find(".entry box_contact_gaps_batch") != std::string::npos);
#endif
}

}  // namespace talon

namespace talon {
namespace {

// Steps a unit (compiled by the system C compiler with a small driver) `steps` times at h and
// returns what the driver printed: the Schur operator's coupled rows in the last
// linearisation (the workspace's schur_nrows), NAME_NROWS, NAME_NCONTACTS (normal rows) and
// the first body's height.
std::string schur_rows_after(const std::string& xml, int steps, double h) {
  const Model model = testing::model_from_mjcf(xml);
  Expected<ir::ResidualProgram> program = ir::lower_model(model);
  REQUIRE(program.ok());
  codegen::ModelUnitOptions options;
  options.name = "unit_under_test";
  Expected<codegen::ModelUnit> unit = codegen::generate_model_unit(model, *program, options);
  REQUIRE(unit.ok());
  codegen::TemporaryDirectory dir = scratch();
  write(dir.path() / "unit_under_test.c", unit->source);
  write(dir.path() / "unit_under_test.h", unit->header);
  write(dir.path() / "drive.c",
        "#include <stdio.h>\n#include \"unit_under_test.h\"\n"
        "static unit_under_test_workspace ws;\n"
        "int main(void) {\n"
        "  double q[unit_under_test_NQ], u[unit_under_test_NV];\n"
        "  int s;\n"
        "  unit_under_test_initial_state(q, u);\n"
        "  for (s = 0; s < " +
            std::to_string(steps) +
            "; ++s)\n"
            "    if (unit_under_test_step(q, u, 0, " +
            std::to_string(h) +
            ", &ws) != 0) return 1;\n"
            "  printf(\"%d %d %d %.17g\\n\", ws.schur_nrows, unit_under_test_NROWS,\n"
            "         unit_under_test_NCONTACTS, q[2]);\n"
            "  return 0;\n}\n");
  std::string output;
  const int status =
      shell("cc -O1 -I" + dir.path().string() + " " + (dir.path() / "drive.c").string() + " " +
                (dir.path() / "unit_under_test.c").string() + " -lm -o " +
                (dir.path() / "drive").string() + " && " + (dir.path() / "drive").string(),
            output);
  INFO(output);
  REQUIRE(status == 0);
  return output;
}

}  // namespace

// The Schur operator leaves out the rows whose diagonal is their compliance alone at working
// precision (codegen/solver/talon_schur.h, talon_schur_select): a separated contact's normal
// row. A box in the air leaves out every normal row and falls as backward Euler says,
// z_k = z_0 − g h² k(k+1)/2; a box resting on the floor keeps its pressed corners' rows.
TEST_CASE("the Schur operator runs over the coupled rows only", "[runtime][unit]") {
  const std::string box = "<geom type=\"box\" size=\"0.05 0.05 0.05\" mass=\"1\"/>";
  const auto scene = [&](const char* height) {
    return "<mujoco><worldbody><geom type=\"plane\" size=\"0 0 1\"/><body pos=\"0 0 " +
           std::string(height) + "\"><freejoint/>" + box + "</body></worldbody></mujoco>";
  };
  int coupled = 0, rows = 0, normals = 0;
  double z = 0;
  std::istringstream(schur_rows_after(scene("1"), 4, 0.05)) >> coupled >> rows >> normals >> z;
  CHECK(normals > 0);
  CHECK(coupled <= rows - normals);
  CHECK_THAT(z, Catch::WithinAbs(1 - 9.81 * 0.05 * 0.05 * 10, 1e-12));
  std::istringstream(schur_rows_after(scene("0.05"), 20, 0.05)) >> coupled >> rows >> normals >> z;
  CHECK(coupled > 0);
  CHECK(coupled < rows);
  CHECK_THAT(z, Catch::WithinAbs(0.05, 1e-5));
}

}  // namespace talon
