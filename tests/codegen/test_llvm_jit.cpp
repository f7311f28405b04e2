// The LLVM ORC JIT against the reference interpreter (1e-15 relative), its IR, and its
// diagnostics.
#include <catch2/catch.hpp>

#include <cmath>

#include "codegen/codegen_fixtures.h"
#include "codegen/llvm_jit.h"
#include "ir/interpreter.h"
#include "ir/passes/schedule.h"

using namespace talon;
using namespace talon::codegen;
using namespace talon::codegen::testing;

namespace {

std::vector<double> call(const JitFunction& function, const std::vector<double>& inputs) {
  std::vector<double> out(function.num_outputs(), std::nan(""));
  function(inputs.data(), out.data());
  return out;
}

// f compiled without LLVM's optimisation passes, its LLVM IR kept.
JitModule compiled_with_ir(const ir::Function& f) {
  JitOptions options;
  options.capture_ir = true;
  options.optimize = false;
  Expected<JitModule> module = JitModule::compile(std::span(&f, 1), options);
  INFO(module.diagnostics().format());
  REQUIRE(module.ok());
  return std::move(*module);
}

}  // namespace

TEST_CASE("LLVM JIT matches the interpreter on every op", "[codegen][llvm]") {
  ir::Graph graph;
  const ir::Function f = every_op_function(graph);
  Expected<JitFunction> function = jit_compile(f);
  INFO(function.diagnostics().format());
  REQUIRE(function.ok());
  CHECK(function->name() == "every_op");
  CHECK(function->num_inputs() == 3);
  CHECK(function->num_outputs() == static_cast<int>(f.outputs.size()));
  for (const std::vector<double>& inputs : every_op_inputs()) {
    INFO("inputs " << inputs[0] << ", " << inputs[1] << ", " << inputs[2]);
    CHECK(first_mismatch(call(*function, inputs), ir::evaluate(f, inputs), 1e-15) == "");
  }
}

TEST_CASE("LLVM JIT matches the interpreter on random functions, optimised or not",
          "[codegen][llvm]") {
  const FunctionSet set = random_function_set(8);
  for (bool optimize : {true, false}) {
    JitOptions options;
    options.optimize = optimize;
    Expected<JitModule> module = JitModule::compile(set.functions, options);
    INFO(module.diagnostics().format());
    REQUIRE(module.ok());
    std::mt19937 rng(5);
    int finite = 0, total = 0;
    for (const ir::Function& f : set.functions) {
      Expected<JitFunction> function = module->function(f.name);
      REQUIRE(function.ok());
      for (int trial = 0; trial < 5; ++trial) {
        const std::vector<double> inputs = random_inputs(f.inputs.size(), rng);
        const std::vector<double> want = ir::evaluate(f, inputs);
        INFO(f.name << " trial " << trial << " optimised " << optimize);
        CHECK(first_mismatch(call(*function, inputs), want, 1e-15) == "");
        for (double v : want) finite += std::isfinite(v) ? 1 : 0;
        total += static_cast<int>(want.size());
      }
    }
    CHECK(finite * 4 > total * 3);
  }
}

TEST_CASE("LLVM JIT functions outlive their module object", "[codegen][llvm]") {
  ir::Graph graph;
  ir::Expr x = graph.variable("x");
  ir::Function f{"square_plus_one", {x}, {x * x + 1.0}};
  Expected<JitFunction> function = [&] {
    Expected<JitModule> module = JitModule::compile(std::span(&f, 1));
    REQUIRE(module.ok());
    return module->function("square_plus_one");
  }();
  REQUIRE(function.ok());
  const double in = 3.0;
  double out = 0.0;
  (*function)(&in, &out);
  CHECK(out == 10.0);
}

TEST_CASE("LLVM JIT emits noalias pointers, the sqrt intrinsic and libm calls", "[codegen][llvm]") {
  ir::Graph graph;
  ir::Expr x = graph.variable("x"), y = graph.variable("y");
  ir::Function f{"shape", {x, y}, {ir::sqrt(x * x + y * y), ir::atan2(y, x), ir::tanh(x)}};
  const JitModule module = compiled_with_ir(f);
  const std::string& ir_text = module.llvm_ir();
  CHECK(ir_text.find("define void @shape(double* noalias nocapture readonly %in, "
                     "double* noalias nocapture %out)") != std::string::npos);
  CHECK(ir_text.find("@llvm.sqrt.f64") != std::string::npos);
  CHECK(ir_text.find("@atan2(") != std::string::npos);
  CHECK(ir_text.find("@tanh(") != std::string::npos);
  // Without capture_ir nothing is kept.
  Expected<JitModule> quiet = JitModule::compile(std::span(&f, 1));
  REQUIRE(quiet.ok());
  CHECK(quiet->llvm_ir().empty());
}

TEST_CASE("LLVM JIT takes a sine and a cosine of one argument from one sincos call",
          "[codegen][llvm]") {
  ir::Graph graph;
  ir::Expr x = graph.variable("x"), y = graph.variable("y");
  ir::Function f{"turn", {x, y}, {ir::cos(x * 0.5), ir::sin(x * 0.5), ir::sin(y)}};
  const JitModule module = compiled_with_ir(f);
  const std::string& ir_text = module.llvm_ir();
  CHECK(ir_text.find("@sincos(") != std::string::npos);
  CHECK(ir_text.find("@sin(") != std::string::npos);  // y's sine has no cosine beside it
  CHECK(ir_text.find("@cos(") == std::string::npos);
  Expected<JitFunction> function = module.function("turn");
  REQUIRE(function.ok());
  for (double v : {0.0, -0.0, 0.3, -2.9, 1e-300, 7.5e5, -3.1e17, 1e300}) {
    INFO("x = " << v);
    const std::vector<double> out = call(*function, {v, v});
    CHECK(out[0] == std::cos(v * 0.5));  // the same bits as cos and sin: compared with ==
    CHECK(out[1] == std::sin(v * 0.5));
    CHECK(out[2] == std::sin(v));
    CHECK(std::signbit(out[1]) == std::signbit(std::sin(v * 0.5)));
  }
}

TEST_CASE("LLVM JIT reports bad and unknown function names", "[codegen][llvm]") {
  ir::Graph graph;
  ir::Expr x = graph.variable("x");
  // A function named `sin` would capture the JIT'd code's own calls to libm's sin.
  ir::Function sin_named{"sin", {x}, {ir::sin(x)}};
  Expected<JitFunction> shadowing = jit_compile(sin_named);
  REQUIRE_FALSE(shadowing.ok());
  CHECK(shadowing.diagnostics().format().find("shadow the libm function") != std::string::npos);

  std::vector<ir::Function> twice = {{"f", {x}, {x}}, {"f", {x}, {-x}}};
  Expected<JitModule> duplicate = JitModule::compile(twice);
  REQUIRE_FALSE(duplicate.ok());
  CHECK(duplicate.diagnostics().format().find("defined twice") != std::string::npos);

  Expected<JitModule> module = JitModule::compile(std::span(twice.data(), 1));
  REQUIRE(module.ok());
  Expected<JitFunction> absent = module->function("g");
  REQUIRE_FALSE(absent.ok());
  CHECK(absent.diagnostics().format().find("no function 'g'") != std::string::npos);
}

TEST_CASE("LLVM JIT handles degenerate functions", "[codegen][llvm]") {
  ir::Graph graph;
  ir::Expr x = graph.variable("x");
  std::vector<ir::Function> functions = {{"constant_only", {}, {graph.constant(-0.5)}},
                                         {"no_outputs", {x}, {}},
                                         {"identity_twice", {x}, {x, x}}};
  Expected<JitModule> module = JitModule::compile(functions);
  REQUIRE(module.ok());
  double out[2] = {0.0, 0.0};
  const double in = 4.25;
  (*module->function("constant_only"))(nullptr, out);
  CHECK(out[0] == -0.5);
  (*module->function("no_outputs"))(&in, out);
  (*module->function("identity_twice"))(&in, out);
  CHECK(out[0] == 4.25);
  CHECK(out[1] == 4.25);
}

// How long the JIT takes is bench/bench_codegen's to measure, not a test's.
TEST_CASE("LLVM JIT compiles a 20000-instruction function", "[codegen][llvm][large]") {
  FunctionSet set;
  RandomFunctionOptions random;
  random.num_ops = 20000;
  random.num_outputs = 16;
  random.seed = 11;
  const ir::Function f = random_function(*set.graph, "large", random);
  Expected<JitFunction> function = jit_compile(f);
  REQUIRE(function.ok());
  std::mt19937 rng(4);
  const std::vector<double> inputs = random_inputs(f.inputs.size(), rng);
  CHECK(first_mismatch(call(*function, inputs), ir::evaluate(f, inputs), 1e-15) == "");
}

// Runs of consecutive outputs that take one value (codegen/c_style.h, kStoreLoopRun): +0 by a
// memset, any other value (a constant too) by a loop, shorter runs one store each; the
// values as the interpreter's.
TEST_CASE("LLVM JIT stores runs of one output value by a memset or a loop", "[codegen][llvm]") {
  ir::Graph graph;
  ir::Expr x = graph.variable("x"), y = graph.variable("y");
  const ir::Expr zero = graph.constant(0.0), two = graph.constant(2.0);
  const ir::Expr sum = y + graph.constant(1.0);
  std::vector<ir::Expr> outputs;
  for (const auto& [value, count] : std::vector<std::pair<ir::Expr, int>>{
           {zero, 5}, {x, 4}, {sum, 6}, {two, 4}, {zero, 3}, {x, 1}, {sum, 2}})
    outputs.insert(outputs.end(), count, value);
  const ir::Function f{"runs", {x, y}, outputs};
  const JitModule module = compiled_with_ir(f);
  CHECK(module.llvm_ir().find("@llvm.memset") != std::string::npos);
  CHECK(module.llvm_ir().find("store_run") != std::string::npos);
  const std::vector<double> inputs = {-2.5, 0.75};
  const std::vector<double> out = call(*module.function("runs"), inputs);
  const std::vector<double> expected = ir::evaluate(f, inputs);
  REQUIRE(out.size() == expected.size());
  for (std::size_t k = 0; k < out.size(); ++k) {
    INFO("out[" << k << "]");
    CHECK(out[k] == expected[k]);
  }
  CHECK(out[15] == 2.0);
}
