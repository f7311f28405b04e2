// `talon compile --target cuda`: NAME.cu and its PTX by NVRTC (no GPU needed), which ptxas
// (the CUDA toolkit's assembler) must accept; without the toolkit, one clear error.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cli/run_cli.h"
#include "scratch_directory.h"
#include "skip.h"

namespace talon {
namespace {

codegen::TemporaryDirectory scratch() {
  return testing::scratch_directory("talon-compile-cuda-test-");
}

// The smallest model with a control and every solver loop (5 joint rows, no contact): its
// PTX is what ptxas takes in seconds, not the minute the sliding box's takes.
const std::string kCart = std::string(TALON_TEST_DATA_DIR) + "/scenes/pushed_cart.xml";

#ifdef TALON_HAVE_CUDA
// The entry points of a unit with its backward step (codegen/model_unit.h).
const char* const kEntries[] = {"cart_step_batch", "cart_reset_batch", "cart_step_backward_batch",
                                "cart_contact_gaps_batch"};

// Runs `talon compile --target cuda` into DIR/out and checks what it wrote; the output
// directory.
std::string compile_and_check(const codegen::TemporaryDirectory& dir) {
  const std::string out = (dir.path() / "out").string();
  const CliResult r = run_talon("compile " + kCart + " --target cuda -o " + out);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(std::filesystem::exists(out + "/cart.cu"));
  CHECK_FALSE(std::filesystem::exists(out + "/cart.c"));  // the C target's files
  CHECK_FALSE(std::filesystem::exists(out + "/libcart.so"));
  const std::string ptx = slurp(out + "/cart.ptx");
  CHECK(ptx.find(".target sm_90") != std::string::npos);  // the default --arch
  for (const char* entry : kEntries) {
    INFO(entry);
    CHECK(ptx.find(".entry " + std::string(entry) + "(") != std::string::npos);
  }
  CHECK(r.err.find("warning") == std::string::npos);  // NVRTC's warnings come as notes
  CHECK(r.out.find("cart_step_batch(q, u, ctrl, params, h, ws, status, count)") !=
        std::string::npos);
  return out;
}

// One compile for both checks: under the sanitizers the CLI takes ~30 s to lower the cart and
// NVRTC-compile it.
#ifdef TALON_PTXAS_PATH
TEST_CASE("talon compile --target cuda writes NAME.cu and NAME.ptx, which ptxas accepts",
          "[runtime][cli][cuda]") {
  const codegen::TemporaryDirectory dir = scratch();
  const std::string out = compile_and_check(dir), log = out + "/ptxas.log";
  const int status = std::system((std::string(TALON_PTXAS_PATH) + " -arch=sm_90 -v " + out +
                                  "/cart.ptx -o " + out + "/cart.cubin > " + log + " 2>&1")
                                     .c_str());
  INFO(slurp(log));
  CHECK(status == 0);
  CHECK(std::filesystem::file_size(out + "/cart.cubin") > 0);
  for (const char* entry : kEntries)
    CHECK(slurp(log).find(std::string("entry function '") + entry + "'") != std::string::npos);
}
#else
TEST_CASE("talon compile --target cuda writes NAME.cu and NAME.ptx", "[runtime][cli][cuda]") {
  const codegen::TemporaryDirectory dir = scratch();
  compile_and_check(dir);
}

TEST_CASE("ptxas accepts the PTX of talon compile --target cuda", "[runtime][cli][cuda]") {
  TALON_SKIP("the CUDA toolkit had no ptxas at configure time: the PTX is not assembled");
}
#endif

TEST_CASE("talon compile --target cuda refuses an architecture NVRTC does not compile for",
          "[runtime][cli][cuda]") {
  const codegen::TemporaryDirectory dir = scratch();
  for (const char* arch : {"sm_7", "sm_x", "90", "gfx90a"}) {
    INFO(arch);
    const CliResult r = run_talon("compile " + kCart + " --target cuda --arch " + arch + " -o " +
                                  (dir.path() / "out").string());
    CHECK(r.status == 1);
    CHECK(r.err.find(std::string("--arch ") + arch + ": not an architecture") != std::string::npos);
    CHECK(r.err.find("sm_90") != std::string::npos);           // the list it takes
    CHECK_FALSE(std::filesystem::exists(dir.path() / "out"));  // checked before any work
  }
}
#else
TEST_CASE("talon compile --target cuda without the CUDA toolkit is one clear error",
          "[runtime][cli][cuda]") {
  const codegen::TemporaryDirectory dir = scratch();
  const CliResult r =
      run_talon("compile " + kCart + " --target cuda -o " + (dir.path() / "out").string());
  CHECK(r.status == 1);
  CHECK(r.err.find("built without the CUDA toolkit") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "out"));
}
#endif

// --arch names a GPU: with the C target (the default) it would be ignored, so it is refused.
TEST_CASE("talon compile refuses --arch without --target cuda", "[runtime][cli][cuda]") {
  const codegen::TemporaryDirectory dir = scratch();
  for (const char* target : {"", " --target c"}) {
    INFO(target);
    const CliResult r = run_talon("compile " + kCart + target + " --arch sm_80 -o " +
                                  (dir.path() / "out").string());
    CHECK(r.status == 1);
    CHECK(r.err.find("--arch sm_80 names a GPU architecture, which only --target cuda") !=
          std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir.path() / "out"));
  }
}

}  // namespace
}  // namespace talon
