// The in-process C compiler (codegen/clang_compiler.h) generates code for this CPU: its cache
// identity names the CPU, and the code computes the same bits as code for the baseline target.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "codegen/c_renderer.h"
#include "codegen/clang_compiler.h"
#include "codegen/codegen_fixtures.h"
#include "codegen/object_code.h"

using namespace talon;
using namespace talon::codegen;
using namespace talon::codegen::testing;

namespace {

using DoubleKernel = void(const double*, double*);

// The default options without -march=native: code for the target's baseline CPU.
InProcessCompilerOptions baseline_target() {
  InProcessCompilerOptions options;
  std::erase(options.flags, std::string("-march=native"));
  return options;
}

ObjectCode compile_and_load(const std::string& source, const InProcessCompilerOptions& options) {
  Expected<std::string> object = compile_c_object(source, "functions.c", options);
  INFO(object.diagnostics().format());
  REQUIRE(object.ok());
  Expected<ObjectCode> code = ObjectCode::load(*object, "functions.c");
  INFO(code.diagnostics().format());
  REQUIRE(code.ok());
  return std::move(*code);
}

}  // namespace

TEST_CASE("the in-process compiler's identity names this CPU and its code target",
          "[codegen][clang]") {
  const std::string identity = in_process_compiler_identity();
  const std::string cpu = host_cpu_description();
  INFO(cpu);
  CHECK(cpu.find(" +") != std::string::npos);  // a name and its features
  CHECK(identity.find(cpu) != std::string::npos);
  CHECK(identity.find("-march=native") != std::string::npos);
  CHECK(in_process_compiler_identity(baseline_target()) != identity);
}

// -ffp-contract=off and no fast-math: a wider vector unit may not change a single rounding.
TEST_CASE("code for this CPU computes the bits of code for the baseline CPU", "[codegen][clang]") {
  const FunctionSet set = random_function_set(4);
  CRenderOptions options;
  options.exported = true;
  options.prefix = "test_";
  Expected<RenderedSource> source = render_c(set.functions, options);
  REQUIRE(source.ok());
  const ObjectCode native = compile_and_load(source->code, InProcessCompilerOptions{});
  const ObjectCode baseline = compile_and_load(source->code, baseline_target());
  std::mt19937 rng(7);
  int compared = 0;
  for (std::size_t i = 0; i < set.functions.size(); ++i) {
    const std::string& symbol = source->functions[i].symbol;
    Expected<void*> native_kernel = native.symbol(symbol);
    Expected<void*> baseline_kernel = baseline.symbol(symbol);
    REQUIRE(native_kernel.ok());
    REQUIRE(baseline_kernel.ok());
    for (int trial = 0; trial < 5; ++trial) {
      const std::vector<double> inputs = random_inputs(set.functions[i].inputs.size(), rng);
      std::vector<double> a(set.functions[i].outputs.size()), b(a.size());
      reinterpret_cast<DoubleKernel*> (*native_kernel)(inputs.data(), a.data());
      reinterpret_cast<DoubleKernel*> (*baseline_kernel)(inputs.data(), b.data());
      INFO(symbol << " trial " << trial);
      CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
      compared += static_cast<int>(
          std::count_if(a.begin(), a.end(), [](double v) { return std::isfinite(v); }));
    }
  }
  CHECK(compared > 100);  // the functions compute numbers, not only inf/NaN
}
