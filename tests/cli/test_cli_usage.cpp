// The CLI's rough edges (issue #18): one-line usage errors for bad numbers, --ctrl and --out
// checked before anything is compiled, `talon cache`, and no progress text off a terminal.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "isolated_cache.h"
#include "run_cli.h"
#include "skip.h"

namespace {

const std::string kModels = TALON_MODELS_DIR;

long lines(const std::string& text) {
  return std::count(text.begin(), text.end(), '\n');
}

}  // namespace

TEST_CASE("bad numbers are one-line usage errors, before the model is read") {
  const std::string model = kModels + "/sliding_box.xml";
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"simulate " + model + " --steps 3 --dt 0", "--dt: must be a positive number, not 0"},
      {"simulate " + model + " --steps 3 --dt -0.1", "--dt: must be a positive number, not -0.1"},
      {"simulate " + model + " --steps 3 --dt nan", "--dt: must be a positive number, not nan"},
      {"simulate " + model + " --time -1", "--time: must be a number >= 0, not -1"},
      {"simulate " + model + " --steps -2", "--steps: must be a number >= 0, not -2"},
      {"simulate " + model + " --steps 1 --convergence-tolerance 0",
       "--convergence-tolerance: must be a positive number, not 0"},
      {"gradient " + model + " --ctrl x.csv --steps 2 --loss final-pos:box:x --dt 0",
       "--dt: must be a positive number, not 0"},
      {"gradcheck " + model + " --steps 2 --dt -1", "--dt: must be a positive number, not -1"},
  };
  for (const Case& c : cases) {
    INFO(c.args);
    const CliResult r = run_talon(c.args);
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find(c.message) != std::string::npos);
    CHECK(r.err.size() < 200);  // no 309-digit bounds
  }
  const CliResult r = run_talon("simulate " + model + " --time -1");
  CHECK(r.err.rfind("talon simulate: error: ", 0) == 0);
}

TEST_CASE("a run too long to count is a usage error") {
  const IsolatedCache cache;
  const CliResult r = run_talon("simulate " + kModels + "/sliding_box.xml --time 1e300");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("at most 1000000000 steps") != std::string::npos);
  CHECK(cache.libraries() == 0);
}

TEST_CASE("a model file given to --ctrl is one error, before compiling") {
  const IsolatedCache cache;
  const std::string model = kModels + "/three_wheeler_scene.xml";
  for (const std::string command : {"simulate", "gradient", "gradcheck"}) {
    INFO(command);
    const CliResult r = run_talon(command + " " + model + " --steps 2 --ctrl " + model +
                                  (command == "gradient" ? " --loss final-pos:base_link:x" : ""));
    INFO(r.err);
    CHECK(r.status == 1);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find("three_wheeler_scene.xml:1: error: not a CSV control file") !=
          std::string::npos);
  }
  CHECK(cache.libraries() == 0);
}

TEST_CASE("an unwritable --out or -o fails before compiling") {
  const IsolatedCache cache;
  const std::string model = kModels + "/sliding_box.xml";
  const CliResult missing_dir = run_talon("simulate " + model + " --steps 2 --out " +
                                          (cache.dir / "no/such/traj.csv").string());
  INFO(missing_dir.err);
  CHECK(missing_dir.status == 1);
  CHECK(lines(missing_dir.err) == 1);
  CHECK(missing_dir.err.find("traj.csv: error: cannot write: no directory") != std::string::npos);
  const CliResult a_directory =
      run_talon("simulate " + model + " --steps 2 --out " + cache.dir.string());
  CHECK(a_directory.status == 1);
  CHECK(a_directory.err.find("cannot write: it is a directory") != std::string::npos);
  CHECK(cache.libraries() == 0);

  const std::filesystem::path file = cache.dir / "a_file";
  std::ofstream(file) << "x";
  const CliResult under_a_file = run_talon("compile " + model + " -o " + (file / "out").string());
  INFO(under_a_file.err);
  CHECK(under_a_file.status == 1);
  CHECK(lines(under_a_file.err) == 1);
  CHECK(under_a_file.err.find("cannot write: " + file.string() + " is not a directory") !=
        std::string::npos);
  CHECK(slurp(file.string()) == "x");
}

const char* const kCompileProgress = "talon: compiling the model...";

std::string progress_run() {
  return "simulate " + kModels + "/sliding_box.xml --steps 1 --json";
}

TEST_CASE("progress lines: none off a terminal") {
  const IsolatedCache cache;                    // a fresh cache: the model is compiled
  ::setenv("TALON_PROGRESS_DELAY_MS", "0", 1);  // would show a line at once on a terminal
  const CliResult piped = run_talon(progress_run());
  ::unsetenv("TALON_PROGRESS_DELAY_MS");
  INFO(piped.err);
  REQUIRE(piped.status == 0);
  CHECK(piped.err.find('\r') == std::string::npos);
  CHECK(piped.err.find(kCompileProgress) == std::string::npos);
  CHECK(json_number(piped.out, "build_seconds") > 0);
}

TEST_CASE("progress lines: on a terminal, once the work takes longer than the delay") {
  if (std::system("command -v script >/dev/null 2>&1") != 0)
    TALON_SKIP("script(1) (bsdutils) is not installed: no pseudo-terminal to test with");
  const IsolatedCache cache;
  const std::string output = (cache.dir / "tty.txt").string();
  // script(1) runs the command on a pseudo-terminal and copies what it printed. With the
  // delay at 0 the compile's line appears however fast the machine compiles.
  const std::string command = "TALON_PROGRESS_DELAY_MS=0 script -qec '" +
                              std::string(TALON_CLI_PATH) + " " + progress_run() + "' /dev/null >" +
                              output;
  REQUIRE(std::system(command.c_str()) == 0);
  const std::string tty = slurp(output);
  INFO(tty);
  CHECK(tty.find(kCompileProgress) != std::string::npos);
  CHECK(json_number(tty, "build_seconds") > 0);
}

TEST_CASE(
    "the scene flags' mistakes are one line each: usage errors before the model is read, "
    "a joint the model lacks when it is read") {
  const IsolatedCache cache;
  const std::string urdf = kModels + "/three_wheeler.urdf";
  struct Case {
    std::string command, flags, message;
    int status;
  };
  const Case cases[] = {
      {"simulate", "--base-pos 0,0,0.08", "--base-pos requires --floating-base", 2},
      {"compile", "--floating-base --base-pos 0,0",
       "--base-pos: must be three numbers X,Y,Z (m), not '0,0'", 2},
      {"gradcheck", "--floating-base --base-pos 0,0,high",
       "--base-pos: must be three numbers X,Y,Z (m), not '0,0,high'", 2},
      {"simulate", "--actuate left_wheel_joint",
       "--actuate left_wheel_joint: expected JOINT=velocity:KV or JOINT=position:KP", 2},
      {"gradient", "--actuate left_wheel_joint=torque:3",
       "--actuate left_wheel_joint=torque:3: unknown servo 'torque' (velocity or position)", 2},
      {"inspect", "--actuate left_wheel_joint=velocity:-10",
       "--actuate left_wheel_joint=velocity:-10: the gain must be a positive number, not '-10'", 2},
      {"simulate", "--actuate left_wheel_joint=velocity:10 --actuate left_wheel_joint=position:5",
       "--actuate left_wheel_joint=position:5: joint 'left_wheel_joint' is given a servo more "
       "than once",
       2},
      {"simulate", "--floating-base --actuate front_wheel=velocity:10",
       "three_wheeler.urdf: error: --actuate front_wheel=velocity:10: no joint 'front_wheel' in "
       "the model (joints a servo can drive: left_wheel_joint, right_wheel_joint)",
       1},
      {"inspect", "--floating-base --actuate caster_joint=position:10",
       "three_wheeler.urdf: error: --actuate caster_joint=position:10: joint 'caster_joint' is "
       "fixed (it does not move)",
       1},
      {"simulate", "--base-pos 0,0,1 --floating-base",
       "three_wheeler_scene.xml: error: --base-pos is for URDF files", 1},
  };
  for (const Case& c : cases) {
    const std::string model =
        c.message.find(".xml") != std::string::npos ? kModels + "/three_wheeler_scene.xml" : urdf;
    // Each command's other required options, so that only the flags under test are wrong.
    const std::string rest = c.command == "simulate"  ? " --steps 2"
                             : c.command == "compile" ? " -o " + (cache.dir / "out").string()
                             : c.command == "gradient"
                                 ? " --ctrl x.csv --steps 2 --loss final-pos:base_link:x"
                                 : "";
    const std::string args = c.command + " " + model + " " + c.flags + rest;
    INFO(args);
    const CliResult r = run_talon(args);
    INFO(r.err);
    CHECK(r.status == c.status);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find(c.message) != std::string::npos);
  }
  CHECK(cache.libraries() == 0);  // nothing was compiled
}
