#include "codegen/codegen_fixtures.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace talon::codegen::testing {

ir::Function every_op_function(ir::Graph& graph, const std::string& name) {
  ir::Expr x = graph.variable("x"), y = graph.variable("y"), z = graph.variable("z");
  const double infinity = std::numeric_limits<double>::infinity();
  ir::Function f{name, {x, y, z}, {}};
  f.outputs = {x + y,
               x - y,
               x * y,
               x / y,
               -x,
               ir::sqrt(z),
               ir::sin(x),
               ir::cos(y),
               ir::exp(x),
               ir::log(z),
               ir::tanh(y),
               ir::atan2(y, x),
               ir::abs(x),
               ir::min(x, y),
               ir::max(x, y),
               ir::lt(x, y),
               ir::le(y, x),
               ir::select(ir::lt(x, y), x * z, y - z),
               ir::select(x, y, z),  // a condition that is not 0/1
               x * 1e-300,
               x + (-0.5),
               x * (1.0 / 3.0),
               ir::min(x, graph.constant(infinity)) + ir::max(y, graph.constant(-infinity)),
               graph.constant(1.0 / 3.0),
               x,
               x + y};  // the same node as output 0
  return f;
}

std::vector<std::vector<double>> every_op_inputs() {
  return {{0.7, -1.3, 2.5}, {-2.25, 0.125, 1e-3}, {1.5, 1.5, 7.0}, {0.0, 3.0, 0.5}};
}

namespace {

// Newest values are the likeliest operands, which makes the DAG deep rather than wide.
ir::Expr pick(const std::vector<ir::Expr>& pool, int window, std::mt19937& rng) {
  const int size = static_cast<int>(pool.size());
  const int span = std::min(size, window);
  std::uniform_int_distribution<int> back(1, span);
  return pool[size - back(rng)];
}

ir::Expr random_op(ir::Op op, ir::Expr a, ir::Expr b, ir::Expr c) {
  switch (op) {
    case ir::Op::Add:
      return a + b;
    case ir::Op::Sub:
      return a - b;
    case ir::Op::Mul:
      return a * b;
    case ir::Op::Div:
      return a / (ir::abs(b) + 0.5);
    case ir::Op::Neg:
      return -a;
    case ir::Op::Sqrt:
      return ir::sqrt(ir::abs(a));
    case ir::Op::Sin:
      return ir::sin(a);
    case ir::Op::Cos:
      return ir::cos(a);
    case ir::Op::Exp:
      return ir::exp(ir::min(a, a.graph().constant(30.0)));
    case ir::Op::Log:
      return ir::log(ir::abs(a) + 0.25);
    case ir::Op::Tanh:
      return ir::tanh(a);
    case ir::Op::Atan2:
      return ir::atan2(a, b);
    case ir::Op::Abs:
      return ir::abs(a);
    case ir::Op::Min:
      return ir::min(a, b);
    case ir::Op::Max:
      return ir::max(a, b);
    case ir::Op::Lt:
      return ir::lt(a, b);
    case ir::Op::Le:
      return ir::le(a, b);
    case ir::Op::Select:
      return ir::select(c, a, b);
    case ir::Op::Const:
    case ir::Op::Var:
      break;
  }
  throw std::logic_error("random_op: a leaf");
}

}  // namespace

ir::Function random_function(ir::Graph& graph, const std::string& name,
                             const RandomFunctionOptions& options) {
  std::mt19937 rng(options.seed);
  ir::Function f{name, {}, {}};
  std::vector<ir::Expr> pool;
  for (int i = 0; i < options.num_inputs; ++i) {
    f.inputs.push_back(graph.variable("x" + std::to_string(i)));
    pool.push_back(f.inputs.back());
  }
  for (double c : {1e-300, -0.5, 1.0 / 3.0, 2.0}) pool.push_back(graph.constant(c));
  std::uniform_int_distribution<int> op_index(static_cast<int>(ir::Op::Add),
                                              static_cast<int>(ir::Op::Select));
  for (int i = 0; i < options.num_ops; ++i) {
    const auto op = static_cast<ir::Op>(op_index(rng));
    ir::Expr a = pick(pool, options.operand_window, rng);
    ir::Expr b = pick(pool, options.operand_window, rng);
    ir::Expr c = pick(pool, options.operand_window, rng);
    pool.push_back(random_op(op, a, b, c));
  }
  for (int k = 0; k < options.num_outputs && k < static_cast<int>(pool.size()); ++k) {
    f.outputs.push_back(pool[pool.size() - 1 - k]);
  }
  f.outputs.push_back(f.inputs.front());  // an input passed straight through
  return f;
}

std::vector<double> random_inputs(std::size_t count, std::mt19937& rng) {
  std::uniform_real_distribution<double> value(-2.0, 2.0);
  std::vector<double> inputs(count);
  for (double& v : inputs) v = value(rng);
  return inputs;
}

FunctionSet random_function_set(int count, int num_ops) {
  FunctionSet set;
  for (int seed = 1; seed <= count; ++seed) {
    RandomFunctionOptions random;
    random.seed = static_cast<uint32_t>(seed);
    random.num_ops = num_ops;
    set.functions.push_back(random_function(*set.graph, "r" + std::to_string(seed), random));
  }
  return set;
}

namespace {

bool close(double got, double want, double relative, double absolute) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (std::isinf(got) || std::isinf(want)) return got == want;
  return std::fabs(got - want) <= relative * std::max(std::fabs(got), std::fabs(want)) + absolute;
}

}  // namespace

std::string first_mismatch(std::span<const double> got, std::span<const double> want,
                           double relative, double absolute) {
  std::ostringstream text;
  text.precision(17);
  if (got.size() != want.size()) {
    text << got.size() << " values, expected " << want.size();
    return text.str();
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!close(got[i], want[i], relative, absolute)) {
      text << "output " << i << ": " << got[i] << ", expected " << want[i];
      return text.str();
    }
  }
  return {};
}

int run_shell(const std::string& command, std::string& output) {
  TemporaryDirectory scratch = scratch_directory();
  const std::filesystem::path log = scratch.path() / "output.txt";
  const int status = std::system((command + " > '" + log.string() + "' 2>&1").c_str());
  std::ifstream in(log);
  std::ostringstream text;
  text << in.rdbuf();
  output = text.str();
  return status;
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

TemporaryDirectory scratch_directory() {
  Expected<TemporaryDirectory> directory =
      TemporaryDirectory::create(std::filesystem::temp_directory_path(), "talon-codegen-test-");
  if (!directory) throw std::runtime_error(directory.diagnostics().format());
  return std::move(*directory);
}

}  // namespace talon::codegen::testing
