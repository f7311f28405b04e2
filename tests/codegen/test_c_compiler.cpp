// The C backend end to end: render -> system C compiler -> dlopen -> call, against the
// reference interpreter (1e-15 relative in double, 1e-5 in float).
#include <catch2/catch.hpp>

#include <cmath>

#include "codegen/c_compiler.h"
#include "codegen/c_renderer.h"
#include "codegen/codegen_fixtures.h"
#include "ir/interpreter.h"
#include "ir/passes/schedule.h"

using namespace talon;
using namespace talon::codegen;
using namespace talon::codegen::testing;

namespace {

using DoubleKernel = void(const double*, double*);
using DoubleWorkKernel = void(const double*, double*, double*);
using FloatKernel = void(const float*, float*);

// Renders `functions` exported, builds them into `directory`/`file` and opens the library.
SharedLibrary build(std::span<const ir::Function> functions, const CRenderOptions& options,
                    const std::filesystem::path& library_path) {
  Expected<RenderedSource> source = render_c(functions, options);
  REQUIRE(source.ok());
  Expected<std::filesystem::path> built = compile_shared_library(source->code, library_path);
  INFO(built.diagnostics().format());
  REQUIRE(built.ok());
  Expected<SharedLibrary> library = SharedLibrary::open(*built);
  INFO(library.diagnostics().format());
  REQUIRE(library.ok());
  return std::move(*library);
}

CRenderOptions exported(ir::CPrecision precision = ir::CPrecision::Double,
                        CStorage storage = CStorage::Locals) {
  CRenderOptions options;
  options.exported = true;
  options.precision = precision;
  options.storage = storage;
  options.prefix = "test_";
  return options;
}

std::vector<double> call(DoubleKernel* kernel, const ir::Function& f,
                         const std::vector<double>& inputs) {
  std::vector<double> out(f.outputs.size(), std::nan(""));
  kernel(inputs.data(), out.data());
  return out;
}

}  // namespace

TEST_CASE("C library matches the interpreter on every op (double)", "[codegen][c]") {
  TemporaryDirectory scratch = scratch_directory();
  ir::Graph graph;
  const ir::Function f = every_op_function(graph);
  SharedLibrary library = build(std::span(&f, 1), exported(), scratch.path() / "every_op.so");
  Expected<DoubleKernel*> kernel = library.function<DoubleKernel>("test_every_op");
  REQUIRE(kernel.ok());
  for (const std::vector<double>& inputs : every_op_inputs()) {
    const std::vector<double> want = ir::evaluate(f, inputs);
    INFO("inputs " << inputs[0] << ", " << inputs[1] << ", " << inputs[2]);
    CHECK(first_mismatch(call(*kernel, f, inputs), want, 1e-15) == "");
  }
}

TEST_CASE("C library matches the interpreter on random functions (double)", "[codegen][c]") {
  TemporaryDirectory scratch = scratch_directory();
  const FunctionSet set = random_function_set(6);
  // Locals, one work-array function each, and work arrays split into 50-statement helpers.
  const std::vector<std::pair<CStorage, int>> storages = {
      {CStorage::Locals, 0}, {CStorage::WorkArray, 0}, {CStorage::WorkArray, 50}};
  for (const auto& [storage, per_chunk] : storages) {
    const bool work = storage == CStorage::WorkArray;
    CRenderOptions options = exported(ir::CPrecision::Double, storage);
    options.statements_per_chunk = per_chunk;
    Expected<RenderedSource> source = render_c(set.functions, options);
    REQUIRE(source.ok());
    // One library name per variant: dlopen would hand back an already-open library.
    const std::string name = "random" + std::to_string(source->symbols.size()) + ".so";
    SharedLibrary library = build(set.functions, options, scratch.path() / name);
    std::mt19937 rng(99);
    int finite = 0, total = 0;
    for (std::size_t i = 0; i < set.functions.size(); ++i) {
      const ir::Function& f = set.functions[i];
      const RenderedFunction& rendered = source->functions[i];
      for (int trial = 0; trial < 5; ++trial) {
        const std::vector<double> inputs = random_inputs(f.inputs.size(), rng);
        const std::vector<double> want = ir::evaluate(f, inputs);
        std::vector<double> got(f.outputs.size(), std::nan(""));
        if (work) {
          std::vector<double> scratch_values(rendered.work_size, std::nan(""));
          Expected<DoubleWorkKernel*> kernel = library.function<DoubleWorkKernel>(rendered.symbol);
          REQUIRE(kernel.ok());
          (*kernel)(inputs.data(), got.data(), scratch_values.data());
        } else {
          Expected<DoubleKernel*> kernel = library.function<DoubleKernel>(rendered.symbol);
          REQUIRE(kernel.ok());
          (*kernel)(inputs.data(), got.data());
        }
        INFO(rendered.symbol << " trial " << trial << " work array " << work << " chunk "
                             << per_chunk);
        CHECK(first_mismatch(got, want, 1e-15) == "");
        for (double v : want) finite += std::isfinite(v) ? 1 : 0;
        total += static_cast<int>(want.size());
      }
    }
    // Guard against a generator whose outputs are all inf/NaN, which would compare trivially.
    CHECK(finite * 4 > total * 3);
  }
}

TEST_CASE("C library matches the interpreter in float precision to 1e-5", "[codegen][c]") {
  TemporaryDirectory scratch = scratch_directory();
  ir::Graph graph;
  const ir::Function f = every_op_function(graph);
  SharedLibrary library = build(std::span(&f, 1), exported(ir::CPrecision::Float),
                                scratch.path() / "every_op_float.so");
  Expected<FloatKernel*> kernel = library.function<FloatKernel>("test_every_op");
  REQUIRE(kernel.ok());
  for (const std::vector<double>& inputs : every_op_inputs()) {
    // The interpreter sees the float-rounded inputs, so only float arithmetic differs.
    std::vector<float> in_float(inputs.begin(), inputs.end());
    const std::vector<double> rounded(in_float.begin(), in_float.end());
    std::vector<double> want = ir::evaluate(f, rounded);
    std::vector<float> out(f.outputs.size(), std::nanf(""));
    (*kernel)(in_float.data(), out.data());
    const std::vector<double> got(out.begin(), out.end());
    // x * 1e-300 underflows to 0 in float (1e-300 is below float's range): an absolute floor
    // at float's smallest normal number covers exactly that.
    INFO("inputs " << inputs[0] << ", " << inputs[1] << ", " << inputs[2]);
    CHECK(first_mismatch(got, want, 1e-5, 1.2e-38) == "");
  }
}

TEST_CASE("C library reports compiler errors with the compiler's output", "[codegen][c]") {
  TemporaryDirectory scratch = scratch_directory();
  const std::filesystem::path library = scratch.path() / "broken.so";
  Expected<std::filesystem::path> built =
      compile_shared_library("void f(double* out) { out[0] = not_declared_anywhere; }", library);
  REQUIRE_FALSE(built.ok());
  const std::string message = built.diagnostics().format();
  CHECK(message.find("the C compiler failed") != std::string::npos);
  CHECK(message.find("not_declared_anywhere") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(library));
  // Nothing is left behind: the temporary build directory is gone.
  CHECK(std::distance(std::filesystem::directory_iterator(scratch.path()),
                      std::filesystem::directory_iterator()) == 0);
}

TEST_CASE("C library reports a missing compiler, directory, library and symbol", "[codegen][c]") {
  TemporaryDirectory scratch = scratch_directory();
  CCompilerOptions options;
  options.compiler = "talon-no-such-compiler";
  Expected<std::filesystem::path> built =
      compile_shared_library("void f(void) {}", scratch.path() / "f.so", options);
  REQUIRE_FALSE(built.ok());
  CHECK(built.diagnostics().format().find("cannot run `talon-no-such-compiler") !=
        std::string::npos);

  Expected<std::filesystem::path> nowhere =
      compile_shared_library("void f(void) {}", scratch.path() / "no_such_dir" / "f.so");
  REQUIRE_FALSE(nowhere.ok());
  CHECK(nowhere.diagnostics().format().find("cannot create a temporary directory") !=
        std::string::npos);

  Expected<SharedLibrary> missing = SharedLibrary::open(scratch.path() / "absent.so");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.diagnostics().format().find("absent.so") != std::string::npos);

  Expected<std::filesystem::path> ok =
      compile_shared_library("void f(void) {}", scratch.path() / "f.so");
  REQUIRE(ok.ok());
  Expected<SharedLibrary> library = SharedLibrary::open(*ok);
  REQUIRE(library.ok());
  CHECK(library->symbol("f").ok());
  Expected<void*> absent = library->symbol("g");
  REQUIRE_FALSE(absent.ok());
  CHECK(absent.diagnostics().format().find("no symbol 'g'") != std::string::npos);
}

TEST_CASE("C library replaces an existing file atomically", "[codegen][c]") {
  TemporaryDirectory scratch = scratch_directory();
  const std::filesystem::path target = scratch.path() / "lib.so";
  write_file(target, "old contents");
  Expected<std::filesystem::path> built =
      compile_shared_library("int talon_answer(void) { return 42; }", target);
  REQUIRE(built.ok());
  Expected<SharedLibrary> library = SharedLibrary::open(target);
  REQUIRE(library.ok());
  Expected<int (*)()> answer = library->function<int()>("talon_answer");
  REQUIRE(answer.ok());
  CHECK((*answer)() == 42);
  // Only the library remains in the directory (the build directory was removed).
  CHECK(std::distance(std::filesystem::directory_iterator(scratch.path()),
                      std::filesystem::directory_iterator()) == 1);
}

// Very large functions use the work array, whose chunking keeps the C compiler's time linear.
// How long rendering and compiling take is bench/bench_codegen's to measure, not a test's.
TEST_CASE("A 100000-instruction function renders, compiles and matches the interpreter",
          "[codegen][c][large]") {
  FunctionSet set;
  RandomFunctionOptions random;
  random.num_ops = 125000;  // hash-consing and folding merge about a fifth
  random.num_outputs = 16;
  random.seed = 7;
  const ir::Function f = random_function(*set.graph, "large", random);
  CHECK(ir::schedule(f).instrs.size() >= 100000);

  Expected<RenderedSource> source =
      render_c(std::span(&f, 1), exported(ir::CPrecision::Double, CStorage::WorkArray));
  REQUIRE(source.ok());
  TemporaryDirectory scratch = scratch_directory();
  Expected<std::filesystem::path> built =
      compile_shared_library(source->code, scratch.path() / "large.so");
  INFO(built.diagnostics().format());
  REQUIRE(built.ok());

  Expected<SharedLibrary> library = SharedLibrary::open(*built);
  REQUIRE(library.ok());
  Expected<DoubleWorkKernel*> kernel = library->function<DoubleWorkKernel>("test_large");
  REQUIRE(kernel.ok());
  std::mt19937 rng(3);
  const std::vector<double> inputs = random_inputs(f.inputs.size(), rng);
  std::vector<double> work(source->functions[0].work_size), out(f.outputs.size());
  (*kernel)(inputs.data(), out.data(), work.data());
  CHECK(first_mismatch(out, ir::evaluate(f, inputs), 1e-15) == "");
}
