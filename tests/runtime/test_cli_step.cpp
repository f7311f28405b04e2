// `talon simulate` and `talon compile`, control CSV files, and the freestanding C step
// against `talon simulate`.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "cli/isolated_cache.h"
#include "cli/run_cli.h"
#include "ir/lower/lower.h"
#include "runtime/control_table.h"
#include "runtime/runtime_fixtures.h"
#include "scratch_directory.h"

namespace talon {
namespace {

codegen::TemporaryDirectory scratch() {
  return testing::scratch_directory("talon-cli-step-test-");
}

std::string model_path(const char* file) {
  return std::string(TALON_MODELS_DIR) + "/" + file;
}

// Every simulate run of the tests uses the test kernel cache.
CliResult simulate(const std::string& args) {
  return run_talon("simulate " + args);
}

std::vector<std::vector<double>> read_csv_numbers(const std::string& text, bool header) {
  std::vector<std::vector<double>> rows;
  std::istringstream in(text);
  std::string line;
  if (header) std::getline(in, line);
  while (std::getline(in, line)) {
    std::vector<double> row;
    std::istringstream fields(line);
    std::string field;
    while (std::getline(fields, field, ',')) row.push_back(std::stod(field));
    rows.push_back(row);
  }
  return rows;
}

// The numbers of the first array after "key": in a JSON text.
// The numbers of the array `key` at or after `from` (the first one by default).
std::vector<double> json_array(const std::string& json, const std::string& key,
                               std::size_t from = 0) {
  const std::size_t at = json.find("\"" + key + "\":[", from);
  if (at == std::string::npos) return {};
  const std::size_t begin = json.find('[', at) + 1;
  std::vector<double> numbers;
  std::istringstream fields(json.substr(begin, json.find(']', begin) - begin));
  std::string field;
  while (std::getline(fields, field, ',')) numbers.push_back(std::stod(field));
  return numbers;
}

// The numbers of every array `key` (each body's "com", say), one after the other.
std::vector<double> json_arrays(const std::string& json, const std::string& key) {
  std::vector<double> out;
  for (std::size_t at = json.find("\"" + key + "\":["); at != std::string::npos;
       at = json.find("\"" + key + "\":[", at + 1)) {
    const std::vector<double> numbers = json_array(json, key, at);
    out.insert(out.end(), numbers.begin(), numbers.end());
  }
  return out;
}

}  // namespace

TEST_CASE("talon simulate reports the run as JSON", "[runtime][cli]") {
  ::setenv("TALON_CACHE_DIR", testing::test_cache_directory().c_str(), 1);
  const CliResult r =
      simulate(model_path("sliding_box.xml") + " --keyframe launched --time 1 --dt 0.05 --json");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(json_number(r.out, "dt") == 0.05);
  CHECK(json_number(r.out, "steps") == 20);
  CHECK(json_number(r.out, "worlds") == 1);
  CHECK(json_number(r.out, "nan_worlds") == 0);
  // The compliant normal rows sink each contact by κ_n h² w F (docs/design.md): a corner of
  // the 1 kg, 0.2 m cube has w = 1/m + 3/m, and while the box slides (μ = 0.5) the friction's
  // moment loads each front corner with F = m g (1 + μ) / 4, so the deepest corner sinks
  // κ_n h² g (1 + μ) = 3.68 µm at h = 0.05. Measured: 3.707 µm.
  const double friction = 0.5, h = 0.05;
  const double sliding_sink = ir::LowerOptions{}.contact_compliance * h * h * 9.81 * (1 + friction);
  CHECK(json_number(r.out, "max_penetration") == Approx(sliding_sink).epsilon(0.02));
  CHECK(json_number(r.out, "final_residual") < 1e-6);
  CHECK(r.out.find("\"wall_seconds\":") != std::string::npos);  // reported; its value is bench's
  // Sliding steps take a few Newton updates; once the box rests the warm start is the root.
  CHECK(json_number(r.out, "mean") > 0);
  CHECK(json_number(r.out, "mean") <= 8);
  CHECK(r.out.find("\"bodies\":[{\"name\":\"box\",\"pos\":[0.3") != std::string::npos);
  CHECK(r.out.find("\"joints\":[{\"name\":\"box_free\",\"type\":\"free\",\"qpos\":[0.3") !=
        std::string::npos);
}

// The README's position conventions: --out's CSV (the state layout) holds each body's centre
// of mass, --json gives the frame origin as pos and the centre of mass as com. The double
// pendulum's first link hangs from its frame origin at z = 2 m with its centre of mass
// 0.25 m below it, and stays there for one step.
TEST_CASE("simulate: --out and com are centres of mass, pos the frame origin", "[runtime][cli]") {
  ::setenv("TALON_CACHE_DIR", testing::test_cache_directory().c_str(), 1);
  codegen::TemporaryDirectory dir = scratch();
  const std::string csv = (dir.path() / "pendulum.csv").string();
  const CliResult r =
      simulate(model_path("double_pendulum.urdf") + " --steps 1 --json --out " + csv);
  INFO(r.err);
  REQUIRE(r.status == 0);
  REQUIRE(r.out.find("\"bodies\":[{\"name\":\"link1\"") != std::string::npos);
  const std::vector<double> pos = json_array(r.out, "pos"), com = json_array(r.out, "com");
  REQUIRE(pos.size() == 3);
  REQUIRE(com.size() == 3);
  CHECK(pos[2] == Approx(2).margin(1e-6));
  CHECK(com[2] == Approx(1.75).margin(1e-6));
  const std::string text = slurp(csv);
  CHECK(text.rfind("step,time,link1.x,link1.y,link1.z,", 0) == 0);
  const auto rows = read_csv_numbers(text, true);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0][2 + 2] == Approx(com[2]).margin(1e-12));  // step, time, then link1's x, y, z
}

TEST_CASE("talon simulate --trace-step prints the Newton iterates of one step", "[runtime][cli]") {
  ::setenv("TALON_CACHE_DIR", testing::test_cache_directory().c_str(), 1);
  const std::string run = model_path("sliding_box.xml") + " --keyframe launched --steps 3 --dt 0.1";
  const CliResult text = simulate(run + " --trace-step 2");
  INFO(text.err);
  REQUIRE(text.status == 0);
  CHECK(text.out.find("newton trace, world 0, step 2") != std::string::npos);
  CHECK(text.out.find("contact_normal") != std::string::npos);
  CHECK(text.out.find("merit     alpha       eta") != std::string::npos);
  const CliResult json = simulate(run + " --trace-step 2 --json");
  REQUIRE(json.status == 0);
  CHECK(json.out.find("\"newton_trace\":{\"step\":2,\"dropped\":0,\"iterates\":[{\"h\":0.1") !=
        std::string::npos);
  CHECK(json.out.find(",\"k\":0,\"merit\":") != std::string::npos);
  CHECK(json.out.find(",\"step\":0,\"forcing\":0,\"blocks\":") != std::string::npos);
  CHECK(json.out.find("\"bodies\":[{\"name\":\"box\",\"linear\":") != std::string::npos);
  const CliResult beyond = simulate(run + " --trace-step 4");
  CHECK(beyond.status == 2);  // a usage error, found before compiling
  CHECK(beyond.err.find("--trace-step 4 is beyond the run's 3 steps") != std::string::npos);
}

TEST_CASE("talon simulate checks its arguments", "[runtime][cli]") {
  ::setenv("TALON_CACHE_DIR", testing::test_cache_directory().c_str(), 1);
  CHECK(simulate(model_path("sphere_drop.xml")).status == 2);  // neither --time nor --steps
  CHECK(simulate(model_path("sphere_drop.xml") + " --time 1 --steps 3").status == 2);
  const CliResult bad_key = simulate(model_path("sphere_drop.xml") + " --steps 1 --keyframe x");
  CHECK(bad_key.status == 1);
  CHECK(bad_key.err.find("no keyframe named 'x'") != std::string::npos);
  codegen::TemporaryDirectory dir = scratch();
  const std::string ctrl = (dir.path() / "ctrl.csv").string();
  std::ofstream(ctrl) << "left_motor,nonexistent\n1,2\n";
  const CliResult bad_ctrl =
      simulate(model_path("three_wheeler_scene.xml") + " --steps 1 --ctrl " + ctrl);
  CHECK(bad_ctrl.status == 1);
  CHECK(bad_ctrl.err.find("ctrl.csv:1: error: no actuator named 'nonexistent'") !=
        std::string::npos);
}

// Everything but the two timing lines ("wall time", "compile").
std::string without_timings(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("wall time", 0) != 0 && line.rfind("compile", 0) != 0) out += line + "\n";
  return out;
}

TEST_CASE("talon simulate --threads: the worlds' result does not depend on it", "[runtime][cli]") {
  const std::string run = model_path("push_box.xml") + " --steps 10 --worlds 7";
  const CliResult one = simulate(run + " --threads 1");
  const CliResult three = simulate(run + " --threads 3");
  INFO(one.err << three.err);
  REQUIRE(one.status == 0);
  REQUIRE(three.status == 0);
  CHECK(one.out.find("7 worlds") != std::string::npos);
  CHECK(without_timings(one.out) == without_timings(three.out));
  // The unit's build jobs do not enter its key: the second run finds the first one's unit.
  CHECK(three.out.find("compile           kernel cache hit") != std::string::npos);
  const CliResult negative = simulate(run + " --threads -1");
  CHECK(negative.status == 2);
  CHECK(negative.err.find("--threads: must be a number >= 0, not -1") != std::string::npos);
}

TEST_CASE("talon simulate: per-type contact code (the default) runs as --no-pair-templates",
          "[runtime][cli]") {
  const std::string run = model_path("box_stack.xml") + " --steps 10 --json";
  const CliResult unrolled = simulate(run + " --no-pair-templates");
  const CliResult templated = simulate(run);
  INFO(unrolled.err << templated.err);
  REQUIRE(unrolled.status == 0);
  REQUIRE(templated.status == 0);
  const std::vector<double> expected = json_array(unrolled.out, "com");
  const std::vector<double> got = json_array(templated.out, "com");
  REQUIRE(expected.size() == 3);
  REQUIRE(got.size() == 3);
  for (int i = 0; i < 3; ++i) CHECK(got[i] == Approx(expected[i]).margin(1e-12));
}

TEST_CASE("talon simulate: per-type joint code (the default) runs as --no-templates",
          "[runtime][cli]") {
  // Every kind of joint set, driven by a motor (clamped), a position and a velocity servo and
  // a general actuator with a force range, through the unit's template loops. (The joint
  // sets' share of the mass kernel's ũ does not move a converged step; it is checked with the
  // other kernels in tests/ir/test_pair_templates.cpp.)
  const std::string scenes = std::string(TALON_TEST_DATA_DIR) + "/scenes/";
  const std::string run =
      scenes + "joint_kinds.xml --dt 0.02 --steps 10 --json --ctrl " + scenes + "joint_kinds.csv";
  const CliResult unrolled = simulate(run + " --no-templates");
  const CliResult templated = simulate(run);
  INFO(unrolled.err << templated.err);
  REQUIRE(unrolled.status == 0);
  REQUIRE(templated.status == 0);
  for (const char* key : {"com", "quat", "linvel"}) {
    INFO(key);
    const std::vector<double> expected = json_arrays(unrolled.out, key);
    const std::vector<double> got = json_arrays(templated.out, key);
    REQUIRE(expected.size() == got.size());
    REQUIRE(expected.size() >= 8 * 3);  // eight bodies
    for (std::size_t i = 0; i < expected.size(); ++i)
      CHECK(got[i] == Approx(expected[i]).margin(1e-10));
  }
}

TEST_CASE("control CSV files", "[runtime][cli]") {
  const Model m = testing::shipped_model("three_wheeler_scene.xml");
  Expected<runtime::ControlTable> t =
      runtime::parse_control_csv("right_motor, left_motor\n1, 2\n\n3,4\n", "c.csv", m);
  REQUIRE(t.ok());
  std::vector<double> ctrl(2);
  runtime::controls_at(*t, 0, ctrl);
  CHECK(ctrl == std::vector<double>{2, 1});
  runtime::controls_at(*t, 5, ctrl);  // the last row is held
  CHECK(ctrl == std::vector<double>{4, 3});
  Expected<runtime::ControlTable> bad =
      runtime::parse_control_csv("left_motor\n1\n1,2\nx\nnan\n", "c.csv", m);
  REQUIRE_FALSE(bad.ok());
  const std::string errors = bad.diagnostics().format();
  CHECK(errors.find("c.csv:3: error: 2 values, the header names 1 actuators") != std::string::npos);
  CHECK(errors.find("c.csv:4: error: 'x' is not a finite number") != std::string::npos);
  CHECK(errors.find("c.csv:5: error: 'nan' is not a finite number") != std::string::npos);
  CHECK_FALSE(runtime::parse_control_csv("", "c.csv", m).ok());
  CHECK_FALSE(runtime::parse_control_csv("left_motor,left_motor\n", "c.csv", m).ok());
}

TEST_CASE("control files that are not CSV, or broken throughout, give few errors",
          "[runtime][cli]") {
  const Model m = testing::shipped_model("three_wheeler_scene.xml");
  const auto errors = [&](const std::string& text) {
    Expected<runtime::ControlTable> t = runtime::parse_control_csv(text, "c.csv", m);
    REQUIRE_FALSE(t.ok());
    return t.diagnostics().format();
  };
  const std::string xml = errors("\n<mujoco model=\"x\">\n  <worldbody/>\n</mujoco>\n");
  CHECK(xml ==
        "c.csv:2: error: not a CSV control file (it looks like XML or binary data): "
        "expected a header of actuator names, then one row of numbers per step\n");
  CHECK(errors(std::string("left_motor\n\0\x01", 14)).find("c.csv:2: error: '") !=
        std::string::npos);
  CHECK(errors(std::string("\x7f"
                           "ELF\0\0,\n",
                           8))
            .find("not a CSV control file") != std::string::npos);
  // A bad header: its errors only, no row checked against it.
  const std::string header = errors("speed;steer\n1;2\n3;4\n");
  CHECK(header ==
        "c.csv:1: error: no actuator named 'speed;steer' in the model (its actuators: "
        "left_motor right_motor)\n");
  // Ten bad rows are listed, the rest counted.
  std::string rows = "left_motor\n";
  for (int i = 0; i < 25; ++i) rows += "x\n";
  const std::string many = errors(rows);
  CHECK(std::count(many.begin(), many.end(), '\n') == 11);
  CHECK(many.find("c.csv:11: error: 'x' is not a finite number") != std::string::npos);
  CHECK(many.find("c.csv:12:") == std::string::npos);
  CHECK(many.find("c.csv: error: 15 more rows with errors not shown") != std::string::npos);
}

TEST_CASE("talon compile --precision f32 says where its bar comes from and how a miss shows",
          "[runtime][cli][f32]") {
  ::setenv("TALON_CACHE_DIR", testing::test_cache_directory().c_str(), 1);
  codegen::TemporaryDirectory scratch_dir = scratch();
  const std::string base = "compile " + model_path("sphere_drop.xml") + " --name ball -o ";
  const CliResult f32 =
      run_talon(base + (scratch_dir.path() / "f32").string() + " --precision f32");
  INFO(f32.err);
  REQUIRE(f32.status == 0);
  CHECK(f32.out.find("note: f32: a step converges at its residual's round-off floor") !=
        std::string::npos);
  CHECK(f32.out.find("ball_STEP_OK with stats.converged = 0") != std::string::npos);
  const CliResult f64 = run_talon(base + (scratch_dir.path() / "f64").string());
  REQUIRE(f64.status == 0);
  CHECK(f64.out.find("note: f32") == std::string::npos);
}

TEST_CASE("talon compile writes a library whose freestanding step matches talon simulate",
          "[runtime][cli]") {
  ::setenv("TALON_CACHE_DIR", testing::test_cache_directory().c_str(), 1);
  codegen::TemporaryDirectory scratch_dir = scratch();
  const std::string written = (scratch_dir.path() / "written").string();
  const CliResult compiled =
      run_talon("compile " + model_path("sliding_box.xml") + " -o " + written + " --name box");
  INFO(compiled.err);
  REQUIRE(compiled.status == 0);
  // The output directory is relocatable: everything below uses it where it was moved to.
  const std::filesystem::path dir = scratch_dir.path() / "moved";
  std::filesystem::rename(written, dir);
  const std::string out = dir.string();
  for (const char* file : {"box.h", "box.c", "libbox.so", "box.pc"})
    CHECK(std::filesystem::exists(dir / file));
  const std::string pc = slurp(out + "/box.pc");
  CHECK(pc.find("prefix=${pcfiledir}\n") != std::string::npos);
  CHECK(pc.find("Libs: -L${libdir} -Wl,-rpath,${libdir} -lbox -lm") != std::string::npos);
  CHECK(pc.find(written) == std::string::npos);
  const std::string flags_file = out + "/flags.txt";
  REQUIRE(std::system(("PKG_CONFIG_PATH=" + out + " pkg-config --cflags --libs box > " + flags_file)
                          .c_str()) == 0);
  const std::string flags = slurp(flags_file);
  CHECK(flags.find("-I" + out) != std::string::npos);
  CHECK(flags.find("-L" + out) != std::string::npos);
  CHECK(flags.find("-Wl,-rpath," + out) != std::string::npos);

  // A C driver linked against the library: launched at 2 m/s, 60 steps of 0.01 s.
  std::ofstream(dir / "main.c") << R"(#include <stdio.h>
#include "box.h"
static box_workspace ws; /* static: zero-initialised, no heap */
int main(void) {
  box_real q[box_NQ], u[box_NV];
  int k, i;
  box_initial_state(q, u);
  u[0] = 2;
  for (k = 0; k < 60; ++k) {
    if (box_step(q, u, 0, 0.01, &ws) != box_STEP_OK) return 1;
    printf("%d", k + 1);
    for (i = 0; i < box_NQ; ++i) printf(",%.17g", q[i]);
    printf("\n");
  }
  { /* the backward of the first step: sliding, dv+/dv- = 1 exactly */
    box_real q0[box_NQ], u0[box_NV], dq[box_NQ] = {0}, du[box_NV] = {0}, warm[box_NWARM];
    FILE* grad = fopen("grad.txt", "w");
    box_initial_state(q0, u0);
    u0[0] = 2;
    box_workspace_init(&ws);
    box_warm_start(&ws, warm);
    du[0] = 1;
    if (!grad || box_step_backward(q0, u0, 0, 0, 0.01, warm, dq, du, 0, 0, &ws) != box_STEP_OK)
      return 2;
    fprintf(grad, "%.17g\n", du[0]);
    fclose(grad);
  }
  return 0;
}
)";
  const std::string driver = out + "/driver";
  REQUIRE(std::system(("cc -std=c99 -pedantic -Wall -Wextra -Werror -o " + driver + " " + out +
                       "/main.c $(PKG_CONFIG_PATH=" + out + " pkg-config --cflags --libs box) > " +
                       out + "/build.log 2>&1")
                          .c_str()) == 0);
  REQUIRE(std::system(("cd " + out + " && " + driver + " > " + out + "/c.csv").c_str()) == 0);
  CHECK(std::stod(slurp(out + "/grad.txt")) == Approx(1).epsilon(1e-6));  // NAME_step_backward
  const CliResult sim =
      simulate(model_path("sliding_box.xml") + " --keyframe launched --steps 60 --dt 0.01 --out " +
               out + "/talon.csv");
  INFO(sim.err);
  REQUIRE(sim.status == 0);
  const auto c_rows = read_csv_numbers(slurp(out + "/c.csv"), false);
  const auto talon_rows = read_csv_numbers(slurp(out + "/talon.csv"), true);
  REQUIRE(c_rows.size() == 60);
  REQUIRE(talon_rows.size() == 60);
  for (int k = 0; k < 60; ++k)
    for (int i = 0; i < 7; ++i)  // talon.csv: step, time, then the body's q
      CHECK(c_rows[k][1 + i] == Approx(talon_rows[k][2 + i]).margin(1e-12));
  CHECK(c_rows.back()[1] == Approx(0.3978).margin(1e-3));  // it slid and stopped
}

}  // namespace talon

namespace talon {

// The runtime compiles model units in process (codegen/clang_compiler.h): `talon simulate`
// needs no C compiler on PATH (issue #16). A fresh cache, so the unit is compiled, not found.
TEST_CASE("talon simulate compiles and runs with an empty PATH", "[runtime][cli]") {
  const IsolatedCache cache;
  const CliResult r = run_talon_with_path(
      "", "simulate " + model_path("sphere_drop.xml") + " --time 1 --dt 0.05 --json");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("\"kernel_cache_hit\":false") != std::string::npos);
  CHECK(cache.libraries() == 1);
  CHECK(json_number(r.out, "nan_worlds") == 0);
  const std::size_t com = r.out.find("\"com\":[");
  REQUIRE(com != std::string::npos);
  // The ball rests on the floor: its centre one radius (0.1 m) up.
  CHECK(std::stod(r.out.substr(r.out.find(',', r.out.find(',', com) + 1) + 1)) ==
        Approx(0.1).margin(1e-3));
}

// TALON_PERF_JIT announces the linked unit to perf (docs/development.md, "Profiling"): LLVM's
// perf listener writes its jit-PID.dump under JITDUMPDIR, which `perf inject --jit` reads.
TEST_CASE("TALON_PERF_JIT writes the dump perf names the unit's functions from", "[runtime][cli]") {
  const codegen::TemporaryDirectory dumps = scratch();
  const CliResult r =
      run_talon_with_environment("TALON_PERF_JIT=1 JITDUMPDIR='" + dumps.path().string() + "' ",
                                 "simulate " + model_path("sphere_drop.xml") + " --steps 2");
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::vector<std::filesystem::path> found;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dumps.path()))
    if (entry.path().filename().string().starts_with("jit-") && entry.path().extension() == ".dump")
      found.push_back(entry.path());
  REQUIRE(found.size() == 1);
  // The dump's header, then a record per function: the unit's step among them.
  std::ifstream file(found.front(), std::ios::binary);
  const std::string dump((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  CHECK(dump.find("talon_solve") != std::string::npos);
}

// clang's frontend is a module opened on the first compilation (codegen/clang_module.h): the
// command's start does not load libclang-cpp, which a cache hit and --help never use.
// LD_TRACE_LOADED_OBJECTS has the dynamic loader list what it loads, as ldd does, and run
// nothing. That a cold build finds the module, the test above shows.
TEST_CASE("the talon command does not load clang's frontend at start", "[runtime][cli]") {
  const CliResult r = run_talon_with_environment("LD_TRACE_LOADED_OBJECTS=1 ", "--help");
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("libLLVM") != std::string::npos);  // the listing is there
  CHECK(r.out.find("libclang-cpp") == std::string::npos);
}

}  // namespace talon
