#include "cli/world_setup.h"

#include <algorithm>
#include <iostream>

#include "cli/commands.h"
#include "cli/progress.h"
#include "runtime/joint_state.h"

namespace talon::cli {

void print_diagnostics(const Diagnostics& diagnostics, bool quiet_notes) {
  for (const Diagnostic& d : diagnostics.items())
    if (d.severity == Severity::Error || !quiet_notes) std::cerr << d.format() << '\n';
}

std::optional<CliSimulation> create_simulation(Model model, const SimulationArgs& args,
                                               bool quiet_notes) {
  std::unique_ptr<runtime::ControlTable> controls;
  if (!args.ctrl_file.empty()) {
    Expected<runtime::ControlTable> table = runtime::read_control_csv(args.ctrl_file, model);
    print_diagnostics(table.diagnostics(), quiet_notes);
    if (!table) return std::nullopt;
    controls = std::make_unique<runtime::ControlTable>(std::move(*table));
  }
  SimulatorOptions options;
  options.solver = args.solver;
  options.threads = args.threads;
  options.param_overrides = args.params;
  options.lower.set_templates(args.templates);
  Expected<Simulator> sim = with_elapsed_progress(
      "talon: compiling the model", [&] { return Simulator::create(std::move(model), options); });
  print_diagnostics(sim.diagnostics(), quiet_notes);
  if (!sim) return std::nullopt;
  return CliSimulation{std::move(*sim), std::move(controls)};
}

Expected<int> apply_keyframe(const Simulator& sim, const std::string& name,
                             runtime::WorldBatch& worlds) {
  if (name.empty()) return 0;
  Expected<runtime::MaximalState> state = runtime::keyframe_state(sim.model(), name);
  if (!state) return state.diagnostics();
  for (int w = 0; w < worlds.count; ++w) {
    std::copy(state->q.begin(), state->q.end(), worlds.q_of(w).begin());
    std::copy(state->u.begin(), state->u.end(), worlds.u_of(w).begin());
  }
  const Model& m = sim.model();
  const int k = m.find_keyframe(name);
  if (m.nu > 0)
    for (int w = 0; w < worlds.count; ++w)
      std::copy(m.key_ctrl.begin() + k * m.nu, m.key_ctrl.begin() + (k + 1) * m.nu,
                worlds.ctrl_of(w).begin());
  return 0;
}

}  // namespace talon::cli
