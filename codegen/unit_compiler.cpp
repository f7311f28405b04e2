#include "codegen/unit_compiler.h"

#include <algorithm>
#include <numeric>

#include "codegen/ir_object.h"
#include "codegen/object_jobs.h"
#include "ir/topo.h"

namespace talon::codegen {
namespace {

// Each kernel's node count: its code generation time grows with it.
std::vector<std::size_t> kernel_sizes(std::span<const ir::Function> functions) {
  std::vector<std::size_t> sizes;
  ir::ConeCollectorCache collectors;
  for (const ir::Function& f : functions) {
    const ir::Graph* graph = ir::function_graph(f);
    sizes.push_back(graph == nullptr ? 0 : collectors.on(*graph).collect(f.outputs).size());
  }
  return sizes;
}

// `functions` in `groups` groups of about equal size (largest first onto the lightest group).
std::vector<std::vector<ir::Function>> kernel_groups(std::span<const ir::Function> functions,
                                                     int groups) {
  const std::vector<std::size_t> sizes = kernel_sizes(functions);
  std::vector<int> order(functions.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return sizes[a] > sizes[b]; });
  std::vector<std::size_t> load(groups, 0);
  std::vector<std::vector<ir::Function>> out(groups);
  for (int f : order) {
    const auto lightest = std::min_element(load.begin(), load.end()) - load.begin();
    load[lightest] += sizes[f];
    out[lightest].push_back(functions[f]);
  }
  std::erase_if(out, [](const std::vector<ir::Function>& group) { return group.empty(); });
  return out;
}

}  // namespace

Expected<std::vector<std::string>> compile_unit_objects(std::string_view source,
                                                        const UnitKernels& kernels,
                                                        const std::string& name, int jobs,
                                                        const InProcessCompilerOptions& options) {
  if (kernels.functions.empty()) {
    Expected<std::string> object = compile_c_object(source, name, options);
    if (!object) return object.diagnostics();
    return std::vector<std::string>{std::move(*object)};
  }
  const std::vector<std::vector<ir::Function>> groups =
      kernel_groups(kernels.functions, std::clamp(jobs, 1, kMaxBuildJobs));
  // The text first (its loops are the longest single job), then one per group of kernels.
  std::vector<std::function<Expected<std::string>()>> builds;
  builds.emplace_back([&] { return compile_c_object(source, name, options); });
  for (const std::vector<ir::Function>& group : groups)
    builds.emplace_back([&] { return compile_ir_object(group, kernels.prefix, name); });
  return run_object_jobs(builds);
}

}  // namespace talon::codegen
