// `talon gradient MODEL --ctrl FILE.csv --steps N --loss final-pos:BODY:x|y|z`: runs the
// rollout with those controls, then its reverse sweep (one backward step per step, the exact
// adjoint), and prints the loss and its gradient with respect to the controls of every step
// (--wrt controls, the default), the parameters θ (--wrt params) or the initial state
// (--wrt initial-state).
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/progress.h"
#include "cli/usage.h"
#include "cli/world_setup.h"
#include "common/json.h"
#include "runtime/control_table.h"
#include "runtime/simulator.h"

namespace talon::cli {
namespace {

struct GradientArgs {
  ModelArgs model;
  std::string ctrl_file, keyframe, loss;
  int steps = 0, checkpoint_every = 1;
  double dt = 0;  // 0: the model's timestep
  std::vector<std::string> wrt;
  bool json = false;
  bool templates = true;
  codegen::SolverOptions solver;
  std::vector<runtime::ParamOverride> params;
};

// L = the frame origin of a simulated body after the last step, along one world axis:
// pos = com − R(quat) c (c: the centre of mass in the body's frame).
struct FinalPositionLoss {
  int body = -1, axis = 0;
  Vec3 com_offset = Vec3::Zero();

  double value(std::span<const double> q) const {
    const double* b = q.data() + 7 * body;
    const Quat r(b[3], b[4], b[5], b[6]);
    return (Vec3(b[0], b[1], b[2]) - r * com_offset)[axis];
  }
  // ∂L/∂q: 1 on the COM's entry; on the quaternion (w, v) minus the derivative of
  // R c = (w² − v·v) c + 2 (v·c) v + 2 w (v × c).
  void add_gradient(std::span<const double> q, std::span<double> dq) const {
    const double* b = q.data() + 7 * body;
    const double w = b[3];
    const Vec3 v(b[4], b[5], b[6]), c = com_offset;
    dq[7 * body + axis] += 1;
    dq[7 * body + 3] -= (2 * w * c + 2 * v.cross(c))[axis];
    for (int i = 0; i < 3; ++i) {
      const Vec3 e = Vec3::Unit(i);
      const Vec3 d = -2 * v[i] * c + 2 * c[i] * v + 2 * v.dot(c) * e + 2 * w * e.cross(c);
      dq[7 * body + 4 + i] -= d[axis];
    }
  }
};

Expected<FinalPositionLoss> parse_loss(const std::string& text, const Model& model) {
  const std::string prefix = "final-pos:";
  const std::size_t last = text.rfind(':');
  if (text.rfind(prefix, 0) != 0 || last <= prefix.size() || last + 2 != text.size())
    return Diagnostics::single_error("--loss '" + text + "': expected final-pos:BODY:x, :y or :z");
  const std::string body = text.substr(prefix.size(), last - prefix.size());
  const char axis = text.back();
  if (axis != 'x' && axis != 'y' && axis != 'z')
    return Diagnostics::single_error("--loss '" + text + "': the axis must be x, y or z");
  FinalPositionLoss loss;
  loss.axis = axis - 'x';
  for (int b = 0; b < model.nsim; ++b)
    if (model.sim_name[b] == body) loss.body = b;
  if (loss.body < 0) {
    std::string names;
    for (const std::string& n : model.sim_name) names += (names.empty() ? "" : ", ") + n;
    return Diagnostics::single_error("--loss: no simulated body '" + body +
                                     "' (the model's: " + names + ")");
  }
  loss.com_offset = model.sim_com[loss.body];
  return loss;
}

bool wants(const GradientArgs& args, const std::string& what) {
  if (args.wrt.empty()) return what == "controls";
  return std::find(args.wrt.begin(), args.wrt.end(), what) != args.wrt.end();
}

struct Outcome {
  double loss = 0, forward_seconds = 0, backward_seconds = 0;
  int unconverged_steps = 0;
  std::size_t tape_bytes = 0;
  RolloutGradient gradient;
};

Expected<Outcome> run(const Simulator& sim, const GradientArgs& args,
                      const runtime::ControlTable& controls, const FinalPositionLoss& loss) {
  runtime::WorldBatch worlds = sim.make_worlds(1);
  Expected<int> initial = apply_keyframe(sim, args.keyframe, worlds);
  if (!initial) return initial.diagnostics();
  const double h = args.dt > 0 ? args.dt : sim.model().timestep;
  Outcome out;
  auto start = std::chrono::steady_clock::now();
  CountProgress forward("talon gradient: forward step", args.steps);
  const RolloutTape tape = sim.record_rollout(
      worlds, h, args.steps,
      [&](int k, runtime::WorldBatch& w) {
        runtime::controls_at(controls, k, w.ctrl_of(0));
        forward.update(k);
      },
      args.checkpoint_every);
  forward.finish();
  out.forward_seconds = seconds_since(start);
  if (tape.status[0] & runtime::kWorldFailed)
    return Diagnostics::single_error(
        "the forward rollout failed (a non-finite or diverged step); no gradient");
  for (uint8_t status : tape.step_status)
    out.unconverged_steps += (status & runtime::kWorldNotConverged) != 0;
  out.loss = loss.value(worlds.q_of(0));
  out.tape_bytes = tape.bytes_per_world();
  start = std::chrono::steady_clock::now();
  CountProgress backward("talon gradient: backward step", args.steps);
  Expected<RolloutGradient> gradient =
      sim.rollout_backward(tape, [&](int k, int, std::span<const double> q, std::span<const double>,
                                     std::span<double> dq, std::span<double>) {
        if (k == args.steps) loss.add_gradient(q, dq);
        backward.update(args.steps - k);
      });
  backward.finish();
  out.backward_seconds = seconds_since(start);
  if (!gradient) return gradient.diagnostics();
  if (gradient->code[0] != 0)
    return Diagnostics::single_error(
        "the backward sweep failed at step " + std::to_string(gradient->failed_step[0]) +
        " (recomputed step code " + std::to_string(gradient->code[0]) + ")");
  out.gradient = std::move(*gradient);
  return out;
}

void print_json(const Simulator& sim, const GradientArgs& args, const Outcome& o) {
  const Model& m = sim.model();
  const RolloutGradient& g = o.gradient;
  JsonWriter json;
  json.begin_object();
  json.key("model").value(m.name);
  json.key("steps").value(args.steps);
  json.key("dt").value(args.dt > 0 ? args.dt : m.timestep);
  json.key("loss").value(o.loss);
  if (wants(args, "controls")) {
    json.key("actuators").array(m.act_name);
    json.key("dloss_dctrl").begin_array();
    for (int k = 0; k < args.steps; ++k)
      json.array(std::vector<double>(g.dctrl.begin() + k * m.nu, g.dctrl.begin() + (k + 1) * m.nu));
    json.end_array();
  }
  if (wants(args, "params")) {
    json.key("dloss_dparams").begin_object();
    for (int i = 0; i < sim.nparam(); ++i)
      json.key(sim.program().param_info[i].name).value(g.dparams[i]);
    json.end_object();
  }
  if (wants(args, "initial-state")) {
    json.key("dloss_dinitial_state").begin_object();
    json.key("q").array(g.dq0);
    json.key("u").array(g.du0);
    json.end_object();
  }
  json.key("unconverged_steps").value(o.unconverged_steps);
  json.key("backward").begin_object();
  json.key("krylov_iterations").value(static_cast<long long>(g.krylov_iterations));
  json.key("krylov_iterations_per_step").value(g.krylov_iterations_per_step());
  json.key("pcr_iterations").value(static_cast<long long>(g.pcr_iterations));
  json.key("max_adjoint_residual").value(g.max_adjoint_residual);
  json.key("forward_seconds").value(o.forward_seconds);
  json.key("backward_seconds").value(o.backward_seconds);
  json.key("tape_bytes_per_world").value(o.tape_bytes);
  json.end_object();
  json.end_object();
  std::cout << json.str() << '\n';
}

void print_text(const Simulator& sim, const GradientArgs& args, const Outcome& o) {
  const Model& m = sim.model();
  const RolloutGradient& g = o.gradient;
  std::cout << std::setprecision(10) << "loss " << o.loss << "  (" << args.loss << ")\n";
  if (wants(args, "controls")) {
    std::cout << "dloss/dctrl\nstep";
    for (const std::string& name : m.act_name) std::cout << ' ' << name;
    std::cout << '\n';
    for (int k = 0; k < args.steps; ++k) {
      std::cout << k;
      for (int a = 0; a < m.nu; ++a) std::cout << ' ' << g.dctrl[k * m.nu + a];
      std::cout << '\n';
    }
  }
  if (wants(args, "params")) {
    std::cout << "dloss/dparams\n";
    for (int i = 0; i < sim.nparam(); ++i)
      std::cout << "  " << sim.program().param_info[i].name << ' ' << g.dparams[i] << '\n';
  }
  if (wants(args, "initial-state")) {
    std::cout << "dloss/dq0";
    for (double v : g.dq0) std::cout << ' ' << v;
    std::cout << "\ndloss/du0";
    for (double v : g.du0) std::cout << ' ' << v;
    std::cout << '\n';
  }
  std::cout << "forward " << o.forward_seconds << " s, backward " << o.backward_seconds << " s ("
            << g.krylov_iterations_per_step() << " Krylov iterations per step), tape "
            << o.tape_bytes << " bytes\n";
}

int gradient(const GradientArgs& args) {
  Expected<Model> model = load_for_cli(args.model, args.json);
  if (!model) return 1;
  Expected<FinalPositionLoss> loss = parse_loss(args.loss, *model);
  print_diagnostics(loss.diagnostics(), false);
  if (!loss) return 2;
  std::optional<CliSimulation> setup = create_simulation(
      std::move(*model), {args.ctrl_file, args.solver, args.params, 0, args.templates}, args.json);
  if (!setup) return 1;
  const Simulator* sim = &setup->sim;
  Expected<Outcome> outcome = run(*sim, args, *setup->controls, *loss);
  print_diagnostics(outcome.diagnostics(), args.json);
  if (!outcome) return 1;
  if (outcome->unconverged_steps > 0)
    std::cerr << "talon gradient: warning: " << outcome->unconverged_steps
              << " steps ended above the convergence tolerance; their gradients are those of "
                 "the returned iterate\n";
  if (args.json)
    print_json(*sim, args, *outcome);
  else
    print_text(*sim, args, *outcome);
  return 0;
}

}  // namespace

void add_gradient_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "gradient",
      "Run a rollout with the given controls and print the gradient of a loss with respect\n"
      "to the controls of every step (default), the parameters or the initial state: one\n"
      "exact adjoint solve per step at the converged forward iterate, nothing of the solver's\n"
      "iterations stored.\n\nExample:\n"
      "  talon gradient models/three_wheeler_scene.xml --ctrl models/three_wheeler_drive.csv \\\n"
      "      --steps 15 --dt 0.1 --loss final-pos:base_link:x --json");
  auto args = std::make_shared<GradientArgs>();
  // Tighter than `talon simulate`: gradients are only as good as the forward's convergence.
  args->solver = gradient_solver_options();
  add_model_args(*command, args->model);
  command
      ->add_option("--ctrl", args->ctrl_file,
                   "CSV of controls: a header of actuator names, one row per step")
      ->required();
  command->add_option("--steps", args->steps, "Number of steps")
      ->required()
      ->check(positive_number());
  add_time_step_option(*command, args->dt);
  command->add_option("--keyframe", args->keyframe, "Start from this keyframe (qpos, qvel, ctrl)");
  command
      ->add_option("--loss", args->loss,
                   "final-pos:BODY:x|y|z: a simulated body's final frame origin along an "
                   "axis (talon inspect lists the bodies)")
      ->required();
  command->add_option("--wrt", args->wrt, "controls (default), params, initial-state; repeatable")
      ->check(CLI::IsMember({"controls", "params", "initial-state"}));
  command
      ->add_option("--checkpoint-every", args->checkpoint_every,
                   "Store every k-th state only and recompute the rest (memory vs time)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  command->add_flag("--json", args->json, "Print one JSON object instead of text");
  add_param_args(*command, args->params);
  add_templates_arg(*command, args->templates);
  add_solver_args(*command, args->solver);
  add_adjoint_args(*command, args->solver);
  command->callback([args, &exit_code] { exit_code = gradient(*args); });
}

}  // namespace talon::cli
