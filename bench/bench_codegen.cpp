// bench_codegen: how long the code generators take on very large functions — the timings the
// codegen tests used to assert (tests/codegen: test_c_compiler.cpp, test_llvm_jit.cpp check
// the same functions for correctness only). Prints, for the same random functions as those
// tests:
//   * C backend, 10^5 instructions (work-array storage): render CPU seconds, the system C
//     compiler's CPU seconds (children's rusage: unlike wall time it does not grow when other
//     jobs share the machine) and its wall seconds;
//   * LLVM ORC JIT, 2·10^4 instructions: wall and CPU seconds of jit_compile.
//
//   bench_codegen
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <span>

#include "codegen/c_compiler.h"
#include "codegen/c_renderer.h"
#include "codegen/codegen_fixtures.h"
#include "codegen/llvm_jit.h"
#include "ir/passes/schedule.h"

namespace {

using namespace talon;
using namespace talon::codegen;
using Clock = std::chrono::steady_clock;

double children_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double process_cpu_seconds() {
  return static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The function of the test of the same size (same options, same seed).
ir::Function large_function(ir::Graph& graph, int ops, uint32_t seed) {
  testing::RandomFunctionOptions random;
  random.num_ops = ops;
  random.num_outputs = 16;
  random.seed = seed;
  return testing::random_function(graph, "large", random);
}

bool bench_c_backend() {
  ir::Graph graph;
  const ir::Function f = large_function(graph, 125000, 7);
  CRenderOptions options;
  options.exported = true;
  options.precision = ir::CPrecision::Double;
  options.storage = CStorage::WorkArray;
  const double render_start = process_cpu_seconds();
  Expected<RenderedSource> source = render_c(std::span(&f, 1), options);
  const double render_seconds = process_cpu_seconds() - render_start;
  if (!source) {
    std::fprintf(stderr, "%s", source.diagnostics().format().c_str());
    return false;
  }
  TemporaryDirectory scratch = testing::scratch_directory();
  const double compile_start = children_cpu_seconds();
  const auto wall_start = Clock::now();
  Expected<std::filesystem::path> built =
      compile_shared_library(source->code, scratch.path() / "large.so");
  const double wall_seconds = seconds_since(wall_start);
  const double compile_seconds = children_cpu_seconds() - compile_start;
  if (!built) {
    std::fprintf(stderr, "%s", built.diagnostics().format().c_str());
    return false;
  }
  std::printf(
      "C backend: %zu instructions, rendered in %.2f s CPU, compiled in %.1f s CPU "
      "(%.1f s wall)\n",
      ir::schedule(f).instrs.size(), render_seconds, compile_seconds, wall_seconds);
  return true;
}

bool bench_llvm_jit() {
  ir::Graph graph;
  const ir::Function f = large_function(graph, 20000, 11);
  const double cpu_start = process_cpu_seconds();
  const auto wall_start = Clock::now();
  Expected<JitFunction> function = jit_compile(f);
  const double wall_seconds = seconds_since(wall_start);
  const double cpu_seconds = process_cpu_seconds() - cpu_start;
  if (!function) {
    std::fprintf(stderr, "%s", function.diagnostics().format().c_str());
    return false;
  }
  std::printf("LLVM JIT: %zu instructions, compiled in %.2f s wall (%.2f s CPU)\n",
              ir::schedule(f).instrs.size(), wall_seconds, cpu_seconds);
  return true;
}

}  // namespace

int main() {
  const bool ok = bench_c_backend() && bench_llvm_jit();
  return ok ? 0 : 1;
}
