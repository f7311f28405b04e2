// The CUDA renderer's text, and NVRTC compiling it to PTX and CUBIN. NVRTC needs no GPU, so
// these run wherever the CUDA toolkit is installed; without it the [cuda] tests say so.
#include <catch2/catch.hpp>

#include <algorithm>

#include "codegen/codegen_fixtures.h"
#include "codegen/cuda_renderer.h"
#include "codegen/nvrtc_compiler.h"
#include "skip.h"

using namespace talon;
using namespace talon::codegen;
using namespace talon::codegen::testing;

TEST_CASE("CUDA renderer re-qualifies the C-style text", "[codegen][cuda-text]") {
  ir::Graph graph;
  ir::Expr x = graph.variable("x"), y = graph.variable("y");
  ir::Function f{"norm", {x, y}, {ir::sqrt(x * x + y * y), graph.constant(INFINITY)}};
  CudaRenderOptions options;
  options.prefix = "m_";
  Expected<RenderedSource> source = render_cuda(std::span(&f, 1), options);
  REQUIRE(source.ok());
  const std::string& code = source->code;
  CHECK(code.find("__device__ __forceinline__ void m_norm(const double* __restrict__ in, "
                  "double* __restrict__ out)") != std::string::npos);
  CHECK(code.find("static") == std::string::npos);
  CHECK(code.find(" restrict ") == std::string::npos);
  CHECK(code.find("#include") == std::string::npos);
  CHECK(code.find("#define INFINITY") != std::string::npos);
  CHECK(code.find("extern \"C\" __global__ void m_norm_kernel(") != std::string::npos);
  CHECK(code.find("m_norm(in + world * 2, out + world * 2);") != std::string::npos);
  CHECK(cuda_kernel_name(source->functions[0]) == "m_norm_kernel");
  const std::vector<std::string> symbols = {"m_norm", "m_norm_kernel"};
  CHECK(source->symbols == symbols);

  options.kernels = false;
  Expected<RenderedSource> bare = render_cuda(std::span(&f, 1), options);
  REQUIRE(bare.ok());
  CHECK(bare->code.find("__global__") == std::string::npos);
}

TEST_CASE("CUDA renderer rejects a kernel name that collides with a function",
          "[codegen][cuda-text]") {
  ir::Graph graph;
  ir::Expr x = graph.variable("x");
  std::vector<ir::Function> functions = {{"f", {x}, {x}}, {"f_kernel", {x}, {-x}}};
  Expected<RenderedSource> source = render_cuda(functions);
  REQUIRE_FALSE(source.ok());
  CHECK(source.diagnostics().format().find("symbol 'f_kernel'") != std::string::npos);
  CudaRenderOptions no_kernels;
  no_kernels.kernels = false;
  CHECK(render_cuda(functions, no_kernels).ok());
}

#ifdef TALON_HAVE_CUDA

namespace {

FunctionSet cuda_test_functions() {
  FunctionSet set;
  set.functions.push_back(every_op_function(*set.graph));
  RandomFunctionOptions random;
  random.seed = 3;
  set.functions.push_back(random_function(*set.graph, "random3", random));
  set.functions.push_back({"constant_only", {}, {set.graph->constant(2.0)}});
  return set;
}

}  // namespace

TEST_CASE("NVRTC compiles every op to PTX in every precision and storage", "[codegen][cuda]") {
  const FunctionSet set = cuda_test_functions();
  const std::vector<std::pair<CStorage, int>> storages = {
      {CStorage::Locals, 0}, {CStorage::WorkArray, 0}, {CStorage::WorkArray, 7}};
  for (ir::CPrecision precision : {ir::CPrecision::Double, ir::CPrecision::Float}) {
    for (const auto& [storage, per_chunk] : storages) {
      CudaRenderOptions options;
      options.precision = precision;
      options.storage = storage;
      options.statements_per_chunk = per_chunk;
      options.prefix = "talon_";
      Expected<RenderedSource> source = render_cuda(set.functions, options);
      REQUIRE(source.ok());
      Expected<std::string> ptx = nvrtc_compile(source->code);
      INFO(ptx.diagnostics().format());
      INFO("float " << (precision == ir::CPrecision::Float) << ", chunk " << per_chunk);
      REQUIRE(ptx.ok());
      CHECK(ptx->find(".target sm_90") != std::string::npos);
      for (const RenderedFunction& f : source->functions) {
        CHECK(ptx->find(".entry " + cuda_kernel_name(f)) != std::string::npos);
      }
    }
  }
}

TEST_CASE("NVRTC compiles to a CUBIN for a real architecture", "[codegen][cuda]") {
  const FunctionSet set = cuda_test_functions();
  Expected<RenderedSource> source = render_cuda(set.functions);
  REQUIRE(source.ok());
  NvrtcOptions options;
  options.output = NvrtcOutput::Cubin;
  options.compute_capability = 90;
  Expected<std::string> cubin = nvrtc_compile(source->code, options);
  INFO(cubin.diagnostics().format());
  REQUIRE(cubin.ok());
  REQUIRE(cubin->size() > 4);
  CHECK(cubin->substr(0, 4) ==
        "\x7f"
        "ELF");
  CHECK(cubin->find("every_op_kernel") != std::string::npos);  // in the ELF symbol table
}

TEST_CASE("NVRTC failures carry NVRTC's log", "[codegen][cuda]") {
  Expected<std::string> broken = nvrtc_compile(
      "extern \"C\" __global__ void k(double* out) { out[0] = undefined_identifier; }");
  REQUIRE_FALSE(broken.ok());
  const std::string message = broken.diagnostics().format();
  CHECK(message.find("talon_kernels.cu") != std::string::npos);
  CHECK(message.find("compilation failed") != std::string::npos);
  CHECK(message.find("undefined_identifier") != std::string::npos);  // NVRTC's own words

  NvrtcOptions ancient;
  ancient.compute_capability = 10;
  Expected<std::string> unsupported = nvrtc_compile("__global__ void k() {}", ancient);
  REQUIRE_FALSE(unsupported.ok());
  CHECK(unsupported.diagnostics().format().find("compute capability 10 is not supported") !=
        std::string::npos);

  NvrtcOptions bad_option;
  bad_option.extra_options = {"--no-such-nvrtc-option"};
  Expected<std::string> rejected = nvrtc_compile("__global__ void k() {}", bad_option);
  REQUIRE_FALSE(rejected.ok());
  CHECK(rejected.diagnostics().format().find("NVRTC") != std::string::npos);
}

TEST_CASE("NVRTC reports its version and architectures", "[codegen][cuda]") {
  CHECK(nvrtc_version().find('.') != std::string::npos);
  const std::vector<int> archs = nvrtc_supported_architectures();
  REQUIRE_FALSE(archs.empty());
  CHECK(std::is_sorted(archs.begin(), archs.end()));
  CHECK(std::find(archs.begin(), archs.end(), 90) != archs.end());
}

#else

TEST_CASE("NVRTC tests (skipped: built without the CUDA toolkit)", "[codegen][cuda]") {
  TALON_SKIP("Talon was built without the CUDA toolkit, so there is no NVRTC to test");
}

#endif
