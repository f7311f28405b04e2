// Shared builders and checks for the codegen tests: hand-written and random IR Functions,
// tolerant comparisons against the reference interpreter, and a shell runner.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "codegen/temp_dir.h"
#include "ir/expr.h"
#include "ir/function.h"

namespace talon::codegen::testing {

// Functions refer to nodes of their graph, so the two travel together.
struct FunctionSet {
  std::unique_ptr<ir::Graph> graph = std::make_unique<ir::Graph>();
  std::vector<ir::Function> functions;
};

// Three inputs (x, y, z) and one output per op (select, lt and le included), plus constants
// 1e-300, -0.5, 1/3 and +inf, an input passed straight through, a repeated output and a
// constant output. Finite for every input set of every_op_inputs().
ir::Function every_op_function(ir::Graph& graph, const std::string& name = "every_op");
std::vector<std::vector<double>> every_op_inputs();

struct RandomFunctionOptions {
  int num_inputs = 4;
  int num_ops = 200;  // ops drawn (hash-consing and folding may merge a few)
  int num_outputs = 8;
  int operand_window = 32;  // operands come from the newest values: this sets the depth
  uint32_t seed = 1;
};

// A random DAG over every op. Domains are guarded (sqrt|a|, log(|a| + 0.25),
// exp(min(a, 30)), a / (|b| + 0.5)) so most values stay finite.
ir::Function random_function(ir::Graph& graph, const std::string& name,
                             const RandomFunctionOptions& options);
std::vector<double> random_inputs(std::size_t count, std::mt19937& rng);
// `count` random functions of `num_ops` ops, r1 … rCOUNT with seeds 1 … count.
FunctionSet random_function_set(int count, int num_ops = 300);

// "" when every got[i] is within `relative` of want[i] (|g - w| <= relative * max(|g|, |w|)
// + absolute, NaN matching NaN, equal infinities matching), else a description of the first
// mismatch.
std::string first_mismatch(std::span<const double> got, std::span<const double> want,
                           double relative, double absolute = 0.0);

// Runs `command` through the shell with stdout and stderr captured in `output`; returns its
// exit status (as std::system reports it, 0 = success).
int run_shell(const std::string& command, std::string& output);

void write_file(const std::filesystem::path& path, const std::string& text);

// A fresh temporary directory for one test, removed when the returned object goes away.
TemporaryDirectory scratch_directory();

}  // namespace talon::codegen::testing
