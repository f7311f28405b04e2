// `talon simulate MODEL (--time T | --steps N)`: compiles the model (through the kernel cache)
// and steps it, printing a summary, optionally a per-step trajectory (--out) and a JSON
// report (--json).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "cli/newton_trace_report.h"
#include "cli/output_checks.h"
#include "cli/progress.h"
#include "cli/usage.h"
#include "cli/world_setup.h"
#include "common/json.h"
#include "runtime/control_table.h"
#include "runtime/joint_state.h"
#include "runtime/simulator.h"

namespace talon::cli {
namespace {

struct SimulateArgs {
  ModelArgs model;
  double time = -1;
  int steps = -1;
  double dt = 0;  // 0: the model's timestep
  std::string keyframe, ctrl_file, out_file;
  int worlds = 1;
  int threads = 0;  // 0: one per hardware thread
  bool json = false;
  int trace_step = 0;  // > 0: trace the Newton iterates of this step (1 = the first)
  bool templates = true;
  codegen::SolverOptions solver;
  std::vector<runtime::ParamOverride> params;
};

// Everything the run measures.
struct RunReport {
  int steps = 0;
  double dt = 0, wall_seconds = 0, build_seconds = 0;
  double max_penetration = 0;  // m, over every step, contact and world
  long long newton_sum = 0, newton_samples = 0;
  int newton_max = 0;
  double final_residual = 0;  // √merit of the last step, largest over the worlds
  int nan_worlds = 0, diverged_worlds = 0, unconverged_steps = 0;
  long long substeps = 0;  // over every step and world (steps × worlds when none split)
  bool from_cache = false;
  runtime::JointState joints;  // world 0, unwrapped over the run
  int trace_step = 0;
  std::optional<NewtonTrace> trace;  // world 0's step trace_step
};

using Clock = std::chrono::steady_clock;

// Steps a run may count (an int, with room to spare).
constexpr int kMaxSteps = 1'000'000'000;

std::string format_number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

std::string csv_header(const Simulator& sim) {
  std::string header = "step,time";
  for (const std::string& body : sim.model().sim_name)
    for (const char* field : {"x", "y", "z", "qw", "qx", "qy", "qz"})
      header += "," + body + "." + field;
  header += ",newton_iterations,best_iterate,pcr_iterations,substeps,merit,min_gap";
  for (const std::string& block : sim.unit().block_names) header += ",residual." + block;
  return header + "\n";
}

void write_csv_row(std::ostream& out, int step, double time, runtime::WorldBatch& worlds,
                   double min_gap) {
  out << step << ',' << time;
  for (double v : worlds.q_of(0)) out << ',' << v;
  const std::span<const double> s = worlds.stats_of(0);
  out << ',' << s[codegen::kStatNewtonIterations] << ',' << s[codegen::kStatBestIterate] << ','
      << s[codegen::kStatPcrIterations] << ',' << s[codegen::kStatSubsteps] << ','
      << s[codegen::kStatMerit] << ',' << min_gap;
  for (std::size_t i = codegen::kStatBlockResiduals; i < s.size(); ++i) out << ',' << s[i];
  out << '\n';
}

void record_step(const runtime::WorldBatch& worlds, const std::vector<double>& gaps,
                 RunReport& report) {
  for (int w = 0; w < worlds.count; ++w) {
    if (worlds.status[w] & runtime::kWorldFailed) continue;
    const std::span<const double> s = worlds.stats_of(w);
    const int newton = static_cast<int>(s[codegen::kStatNewtonIterations]);
    report.newton_sum += newton;
    ++report.newton_samples;
    report.newton_max = std::max(report.newton_max, newton);
    if (std::isfinite(gaps[w])) report.max_penetration = std::max(report.max_penetration, -gaps[w]);
    if (worlds.status[w] & runtime::kWorldNotConverged) ++report.unconverged_steps;
    report.substeps += static_cast<long long>(s[codegen::kStatSubsteps]);
  }
}

Expected<RunReport> run(const Simulator& sim, const SimulateArgs& args, runtime::WorldBatch& worlds,
                        const runtime::ControlTable* controls) {
  RunReport report;
  report.dt = args.dt;
  report.steps = args.steps;
  std::unique_ptr<std::ofstream> csv;
  if (!args.out_file.empty()) {
    csv = std::make_unique<std::ofstream>(args.out_file);
    if (!*csv) return Diagnostics::single_error("cannot write " + args.out_file);
    *csv << std::setprecision(17) << csv_header(sim);
  }
  CountProgress progress("talon simulate: step", report.steps);
  // World 0's last finite state and its joint positions, tracked every step so that the
  // hinge angles keep counting turns; the rates are taken once, after the run.
  std::vector<double> last_q(worlds.q.begin(), worlds.q.begin() + worlds.nq),
      last_u(worlds.u.begin(), worlds.u.begin() + worlds.nv);
  std::vector<double> qpos = runtime::joint_positions_from_maximal(sim.model(), last_q, {});
  const auto start = Clock::now();
  for (int k = 0; k < report.steps; ++k) {
    if (controls)
      for (int w = 0; w < worlds.count; ++w) runtime::controls_at(*controls, k, worlds.ctrl_of(w));
    const bool traced = k + 1 == args.trace_step;
    if (traced) sim.set_trace(worlds, 0, true);
    sim.step(worlds, report.dt);
    if (traced) {
      report.trace = sim.newton_trace(worlds, 0);
      report.trace_step = args.trace_step;
      sim.set_trace(worlds, 0, false);
    }
    const std::vector<double> gaps = sim.min_contact_gaps(worlds);
    record_step(worlds, gaps, report);
    if (csv) write_csv_row(*csv, k + 1, (k + 1) * report.dt, worlds, gaps[0]);
    if (!(worlds.status[0] & runtime::kWorldNonFinite)) {
      last_q.assign(worlds.q.begin(), worlds.q.begin() + worlds.nq);
      last_u.assign(worlds.u.begin(), worlds.u.begin() + worlds.nv);
      qpos = runtime::joint_positions_from_maximal(sim.model(), last_q, qpos);
    }
    progress.update(k + 1);
  }
  report.wall_seconds = seconds_since(start);
  progress.finish();
  report.joints = runtime::joint_from_maximal(sim.model(), last_q, last_u, qpos);
  for (int w = 0; w < worlds.count; ++w) {
    if (worlds.status[w] & runtime::kWorldNonFinite) ++report.nan_worlds;
    if (worlds.status[w] & runtime::kWorldDiverged) ++report.diverged_worlds;
    if (worlds.status[w] & runtime::kWorldFailed) continue;
    report.final_residual =
        std::max(report.final_residual, std::sqrt(worlds.stats_of(w)[codegen::kStatMerit]));
  }
  report.build_seconds = sim.library().build_seconds();
  report.from_cache = sim.library().from_cache();
  return report;
}

// Frame origin, quaternion and velocities of sim body b of world 0.
struct BodyReport {
  Vec3 pos, com, linvel, angvel;
  Quat quat;
};

BodyReport body_report(const Model& m, runtime::WorldBatch& worlds, int b) {
  const std::span<double> q = worlds.q_of(0), u = worlds.u_of(0);
  BodyReport r;
  r.com = Vec3(q[7 * b], q[7 * b + 1], q[7 * b + 2]);
  r.quat = Quat(q[7 * b + 3], q[7 * b + 4], q[7 * b + 5], q[7 * b + 6]);
  r.pos = r.com - r.quat * m.sim_com[b];
  r.angvel = Vec3(u[6 * b + 3], u[6 * b + 4], u[6 * b + 5]);
  r.linvel = Vec3(u[6 * b], u[6 * b + 1], u[6 * b + 2]) + r.angvel.cross(r.pos - r.com);
  return r;
}

std::vector<double> values(const Vec3& v) {
  return {v.x(), v.y(), v.z()};
}

void print_json(const Simulator& sim, runtime::WorldBatch& worlds, const RunReport& r) {
  const Model& m = sim.model();
  JsonWriter json;
  json.begin_object();
  json.key("model").value(m.name);
  json.key("dt").value(r.dt);
  json.key("steps").value(r.steps);
  json.key("worlds").value(worlds.count);
  json.key("max_penetration").value(r.max_penetration);
  json.key("nan_worlds").value(r.nan_worlds);
  json.key("diverged_worlds").value(r.diverged_worlds);
  json.key("unconverged_steps").value(r.unconverged_steps);
  json.key("substeps").value(r.substeps);
  json.key("newton_iterations").begin_object();
  json.key("mean").value(r.newton_samples ? double(r.newton_sum) / r.newton_samples : 0.0);
  json.key("max").value(r.newton_max);
  json.end_object();
  json.key("final_residual").value(r.final_residual);
  json.key("wall_seconds").value(r.wall_seconds);
  json.key("build_seconds").value(r.build_seconds);
  json.key("kernel_cache_hit").value(r.from_cache);
  json.key("bodies").begin_array();
  for (int b = 0; b < m.nsim; ++b) {
    const BodyReport body = body_report(m, worlds, b);
    json.begin_object();
    json.key("name").value(m.sim_name[b]);
    json.key("pos").array(values(body.pos));
    json.key("com").array(values(body.com));
    json.key("quat").array({body.quat.w(), body.quat.x(), body.quat.y(), body.quat.z()});
    json.key("linvel").array(values(body.linvel));
    json.key("angvel").array(values(body.angvel));
    json.end_object();
  }
  json.end_array();
  json.key("joints").begin_array();
  for (int j = 0; j < m.njnt; ++j) {
    const int qn = (j + 1 < m.njnt ? m.jnt_qposadr[j + 1] : m.nq) - m.jnt_qposadr[j];
    const int vn = (j + 1 < m.njnt ? m.jnt_dofadr[j + 1] : m.nv) - m.jnt_dofadr[j];
    json.begin_object();
    json.key("name").value(m.jnt_name[j]);
    json.key("type").value(joint_type_name(m.jnt_type[j]));
    json.key("qpos").array(std::vector<double>(r.joints.qpos.begin() + m.jnt_qposadr[j],
                                               r.joints.qpos.begin() + m.jnt_qposadr[j] + qn));
    json.key("qvel").array(std::vector<double>(r.joints.qvel.begin() + m.jnt_dofadr[j],
                                               r.joints.qvel.begin() + m.jnt_dofadr[j] + vn));
    json.end_object();
  }
  json.end_array();
  if (r.trace) write_newton_trace(json, sim, *r.trace, r.trace_step);
  json.end_object();
  std::cout << json.str() << '\n';
}

void print_text(const Simulator& sim, runtime::WorldBatch& worlds, const RunReport& r) {
  const Model& m = sim.model();
  const double simulated = r.steps * r.dt;
  std::cout << "model             " << m.name << "\n"
            << "steps             " << r.steps << " x " << r.dt << " s = " << simulated << " s, "
            << worlds.count << (worlds.count == 1 ? " world\n" : " worlds\n")
            << "wall time         " << r.wall_seconds << " s ("
            << (r.wall_seconds > 0 ? simulated * worlds.count / r.wall_seconds : 0.0)
            << "x real time over all worlds)\n"
            << "compile           "
            << (r.from_cache ? std::string("kernel cache hit")
                             : std::to_string(r.build_seconds) + " s")
            << "\n"
            << "max penetration   " << r.max_penetration << " m\n"
            << "newton iterations mean "
            << (r.newton_samples ? double(r.newton_sum) / r.newton_samples : 0.0) << ", max "
            << r.newton_max << "\n"
            << "final residual    " << r.final_residual << " m/s\n"
            << "substeps          " << r.substeps << " (a step that does not converge is split)\n"
            << "non-finite worlds " << r.nan_worlds << "\n"
            << "diverged worlds   " << r.diverged_worlds << "\n\nworld 0, final frame positions:\n";
  for (int b = 0; b < m.nsim; ++b) {
    const BodyReport body = body_report(m, worlds, b);
    std::cout << "  " << std::left << std::setw(20) << m.sim_name[b] << std::right << " "
              << body.pos.x() << " " << body.pos.y() << " " << body.pos.z() << '\n';
  }
  if (r.trace) print_newton_trace(std::cout, sim, *r.trace, r.trace_step);
}

// `args` with its step (--dt or the model's) and number of steps (--steps or --time / dt)
// decided; a usage error for a run too long to count or shorter than --trace-step.
Expected<SimulateArgs> plan_run(SimulateArgs args, const Model& model) {
  if (args.dt <= 0) args.dt = model.timestep;
  if (args.steps < 0) {
    const double steps = std::round(args.time / args.dt);
    if (!(steps <= kMaxSteps))
      return Diagnostics::single_error(
          "--time " + format_number(args.time) + " is " + format_number(steps) + " steps of " +
          format_number(args.dt) + " s; at most " + std::to_string(kMaxSteps) + " steps");
    args.steps = static_cast<int>(steps);
  }
  if (args.trace_step > args.steps)
    return Diagnostics::single_error("--trace-step " + std::to_string(args.trace_step) +
                                     " is beyond the run's " + std::to_string(args.steps) +
                                     " steps");
  return args;
}

int simulate(const SimulateArgs& parsed) {
  Expected<Model> model = load_for_cli(parsed.model, parsed.json);
  if (!model) return 1;
  const Expected<SimulateArgs> plan = plan_run(parsed, *model);
  if (!plan) {
    std::cerr << "talon simulate: " << plan.diagnostics().format();
    return 2;
  }
  const SimulateArgs& args = *plan;
  if (!args.out_file.empty()) {
    const Expected<int> writable = check_writable_file(args.out_file);
    print_diagnostics(writable.diagnostics(), args.json);
    if (!writable) return 1;
  }
  codegen::SolverOptions solver = args.solver;
  if (args.trace_step > 0) solver.trace_capacity = trace_capacity_for(solver);
  std::optional<CliSimulation> setup = create_simulation(
      std::move(*model), {args.ctrl_file, solver, args.params, args.threads, args.templates},
      args.json);
  if (!setup) return 1;
  const Simulator* sim = &setup->sim;
  const runtime::ControlTable* controls = setup->controls.get();
  runtime::WorldBatch worlds = sim->make_worlds(args.worlds);
  Expected<int> initial = apply_keyframe(*sim, args.keyframe, worlds);
  print_diagnostics(initial.diagnostics(), args.json);
  if (!initial) return 1;
  Expected<RunReport> report = run(*sim, args, worlds, controls);
  print_diagnostics(report.diagnostics(), args.json);
  if (!report) return 1;
  if (args.json)
    print_json(*sim, worlds, *report);
  else
    print_text(*sim, worlds, *report);
  if (report->nan_worlds > 0 || report->diverged_worlds > 0) {
    std::cerr << "talon simulate: error: of " << worlds.count << " worlds, " << report->nan_worlds
              << " became non-finite (NaN or infinite state) and " << report->diverged_worlds
              << " diverged (Newton failed even at the finest substep; their state is the last "
                 "good one)\n";
    return 1;
  }
  return 0;
}

}  // namespace

void add_simulate_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "simulate",
      "Compile a model and simulate it (backward Euler, hard contact); print a summary.\n"
      "Bodies report their frame origin (pos), centre of mass (com), orientation, the\n"
      "velocity of the frame origin (linvel) and the angular velocity, in the world frame;\n"
      "joints their MuJoCo qpos/qvel.");
  auto args = std::make_shared<SimulateArgs>();
  add_model_args(*command, args->model);
  auto* time = command->add_option("--time", args->time, "Simulated time (s)");
  auto* steps = command->add_option("--steps", args->steps, "Number of steps");
  time->excludes(steps);
  steps->excludes(time);
  time->check(non_negative_number());
  steps->check(non_negative_number());
  add_time_step_option(*command, args->dt);
  command->add_option("--keyframe", args->keyframe, "Start from this keyframe (qpos, qvel, ctrl)");
  command->add_option("--ctrl", args->ctrl_file,
                      "CSV of controls: a header of actuator names, one row per step");
  command->add_option("--worlds", args->worlds, "Number of identical worlds (default 1)")
      ->check(CLI::Range(1, 1 << 24));
  command
      ->add_option("--threads", args->threads,
                   "Threads that step the worlds and build the model's code (default 0: one "
                   "per hardware thread); the result does not depend on it")
      ->check(non_negative_number());
  add_templates_arg(*command, args->templates);
  command->add_option("--out", args->out_file,
                      "CSV trajectory of world 0: body poses (COM, quaternion) and solver "
                      "statistics per step");
  command->add_flag("--json", args->json, "Print one JSON object instead of text");
  command
      ->add_option("--trace-step", args->trace_step,
                   "Also print every Newton iterate of step N (1 = the first) of world 0: each "
                   "attempt's h, the merit, the residual per block and the bodies whose momentum "
                   "balance fails most (why a step splits into substeps or diverges)")
      ->check(positive_number());
  add_param_args(*command, args->params);
  add_solver_args(*command, args->solver);
  command->callback([args, &exit_code, time, steps] {
    if (time->count() == 0 && steps->count() == 0) {
      std::cerr << "talon simulate: one of --time or --steps is required\n";
      exit_code = 2;
      return;
    }
    exit_code = simulate(*args);
  });
}

}  // namespace talon::cli
