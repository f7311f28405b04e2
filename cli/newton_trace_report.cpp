#include "cli/newton_trace_report.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace talon::cli {
namespace {

// The body with the largest value, as "name value".
std::string largest(const Model& model, const std::vector<double>& per_body) {
  if (per_body.empty()) return "-";
  const auto it = std::max_element(per_body.begin(), per_body.end());
  std::ostringstream out;
  out << model.sim_name[it - per_body.begin()] << ' ' << std::setprecision(2) << std::scientific
      << *it;
  return out.str();
}

}  // namespace

int trace_capacity_for(const codegen::SolverOptions& solver) {
  const long attempts = (2L << std::clamp(solver.max_substep_depth, 0, 8)) - 1 + 2;
  return static_cast<int>(std::min(attempts * (solver.newton_iterations + 1L), 100000L));
}

void print_newton_trace(std::ostream& out, const Simulator& sim, const NewtonTrace& trace,
                        int step) {
  const std::vector<std::string>& blocks = sim.unit().block_names;
  out << "\nnewton trace, world 0, step " << step
      << " (every iterate of every attempt; residuals in m/s, rad/s):\n"
      << std::setw(9) << "h" << std::setw(4) << "k" << std::setw(11) << "merit" << std::setw(10)
      << "alpha" << std::setw(10) << "eta";
  for (const std::string& b : blocks) out << std::setw(std::max<int>(11, b.size() + 2)) << b;
  out << "  largest |M^-1 r_dyn| linear / angular\n";
  for (const NewtonIterate& it : trace.iterates) {
    out << std::defaultfloat << std::setprecision(4) << std::setw(9) << it.h << std::setw(4) << it.k
        << std::scientific << std::setprecision(2) << std::setw(11) << it.merit << std::setw(10)
        << it.step << std::setw(10) << it.forcing;
    for (std::size_t i = 0; i < blocks.size(); ++i)
      out << std::setw(std::max<int>(11, blocks[i].size() + 2)) << it.block_residual[i];
    out << "  " << largest(sim.model(), it.body_linear) << " / "
        << largest(sim.model(), it.body_angular) << std::defaultfloat << '\n';
  }
  if (trace.dropped > 0)
    out << "(" << trace.dropped << " more iterates beyond the trace capacity)\n";
}

void write_newton_trace(JsonWriter& json, const Simulator& sim, const NewtonTrace& trace,
                        int step) {
  const std::vector<std::string>& blocks = sim.unit().block_names;
  json.key("newton_trace").begin_object();
  json.key("step").value(step);
  json.key("dropped").value(trace.dropped);
  json.key("iterates").begin_array();
  for (const NewtonIterate& it : trace.iterates) {
    json.begin_object();
    json.key("h").value(it.h);
    json.key("k").value(it.k);
    json.key("merit").value(it.merit);
    json.key("step").value(it.step);
    json.key("forcing").value(it.forcing);
    json.key("blocks").begin_object();
    for (std::size_t i = 0; i < blocks.size(); ++i) json.key(blocks[i]).value(it.block_residual[i]);
    json.end_object();
    json.key("bodies").begin_array();
    for (std::size_t b = 0; b < it.body_linear.size(); ++b) {
      json.begin_object();
      json.key("name").value(sim.model().sim_name[b]);
      json.key("linear").value(it.body_linear[b]);
      json.key("angular").value(it.body_angular[b]);
      json.end_object();
    }
    json.end_array();
    json.end_object();
  }
  json.end_array();
  json.end_object();
}

}  // namespace talon::cli
