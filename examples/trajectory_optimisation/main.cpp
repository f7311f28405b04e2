// Example: open-loop wheel commands that drive the three-wheeled robot over the box obstacle
// (or, with --terrain, across a triangle-mesh terrain) to a target point, optimised with Adam
// on Talon's exact rollout gradients.
//
//   build/examples/trajectory_optimisation/trajectory_optimisation
//       [--model models/three_wheeler_scene.xml] [--iterations 15] [--steps 60] [--dt 0.1]
//       [--target X Y] [--tolerance 0.05] [--out-dir .] [--terrain FILE]
//
// Decision variables: the two wheel-speed commands of every step (2 × 60). Loss
//   L = |p_H − p*|² + β Σ_k |a_k − a_{k−1}|²
// with p_H the chassis centre (x, y) after the last step. One iteration is a forward rollout
// that keeps one state per step (Simulator::record_rollout) and its reverse sweep
// (Simulator::rollout_backward: one adjoint solve per step, docs/design.md "The adjoint"); the smoothness
// term's gradient is added on the host. Everything runs on one thread.
//
// Writes to --out-dir: trajectory_optimisation_loss.csv (per iteration), _path.csv (the
// chassis path of the first and the best iterate), _controls.csv (the best commands, in the
// format `talon simulate --ctrl` reads) and trajectory_optimisation.svg (loss curve and path).
// Exits 0 when the best iterate ends within --tolerance of the target, 1 when not, 2 on a
// usage or model error.
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "adam.h"
#include "runtime/simulator.h"
#include "svg_plot.h"

namespace {

using namespace talon;
using examples::Adam;

constexpr int kMaxRetries = 6;

struct Settings {
  std::string model = TALON_SOURCE_DIR "/models/three_wheeler_scene.xml";
  int iterations = 15, steps = 60;
  double dt = 0.1, target_x = 1.6, target_y = 0.15, tolerance = 0.05;
  double smoothness = 1e-4;    // β ((m/(rad/s))², per step)
  double initial_command = 2;  // rad/s, both wheels: the robot starts short of the obstacle
  double learning_rate = 0.2;  // rad/s per Adam step
  // Per iteration: without it the default task came within 4 cm at iteration 11 and Adam's
  // momentum then carried the commands past the optimum (16 cm by iteration 14).
  double learning_rate_decay = 0.95;
  std::filesystem::path out_dir = ".";
  // --terrain FILE: the URDF three-wheeler (models/three_wheeler.urdf, unless --model) on this
  // triangle-mesh terrain instead, as `talon simulate ... --floating-base --terrain FILE
  // --base-pos -1,0,0.11 --actuate left_wheel_joint=velocity:10 --actuate ...` sets it up.
  std::string terrain;
};

// The scene around the model: none for an MJCF scene; for --terrain, the URDF robot free
// (floating base) 1 m behind the origin, its wheels driven by velocity servos.
LoadOptions scene(const Settings& s) {
  LoadOptions options;
  if (s.terrain.empty()) return options;
  options.terrain = s.terrain;
  options.floating_base = true;
  options.base_pos = Vec3(-1, 0, 0.11);
  for (const char* joint : {"left_wheel_joint", "right_wheel_joint"})
    options.servos.push_back({joint, ActuatorType::Velocity, 10});
  return options;
}

const char* kUsage =
    "usage: trajectory_optimisation [--model FILE] [--iterations N] [--steps H] [--dt S]\n"
    "                               [--target X Y] [--tolerance M] [--out-dir DIR]\n"
    "                               [--terrain FILE]\n";

// A whole-string number; false for anything else ("", "3x", "abc").
bool number(const char* text, double& out) {
  char* end = nullptr;
  out = std::strtod(text, &end);
  return end != text && *end == '\0' && std::isfinite(out);
}

bool count(const char* text, int& out) {
  double value = 0;
  if (!number(text, value) || value != std::floor(value) || value < 1 || value > 1e6) return false;
  out = static_cast<int>(value);
  return true;
}

enum class Parsed { kRun, kHelp, kError };

Parsed parse(int argc, char** argv, Settings& s) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return Parsed::kHelp;
    const char* value = i + 1 < argc ? argv[++i] : nullptr;
    if (!value) return Parsed::kError;
    bool ok = true;
    if (arg == "--model")
      s.model = value;
    else if (arg == "--terrain") {
      s.terrain = value;
      if (s.model == Settings{}.model) s.model = TALON_SOURCE_DIR "/models/three_wheeler.urdf";
    } else if (arg == "--out-dir")
      s.out_dir = value;
    else if (arg == "--iterations")
      ok = count(value, s.iterations);
    else if (arg == "--steps")
      ok = count(value, s.steps);
    else if (arg == "--dt")
      ok = number(value, s.dt) && s.dt > 0;
    else if (arg == "--tolerance")
      ok = number(value, s.tolerance) && s.tolerance > 0;
    else if (arg == "--target")
      ok = number(value, s.target_x) && i + 1 < argc && number(argv[++i], s.target_y);
    else
      ok = false;
    if (!ok) {
      std::fprintf(stderr, "trajectory_optimisation: bad option or value: %s %s\n", arg.c_str(),
                   value);
      return Parsed::kError;
    }
  }
  return Parsed::kRun;
}

// The ground-plane outline (x_min, y_min, x_max, y_max) of the first static box, for the plot.
// (none: has_obstacle false).
void obstacle_outline(const Model& m, examples::PathPlot& plot) {
  for (int g = 0; g < static_cast<int>(m.geom_type.size()); ++g) {
    if (m.geom_type[g] != GeomType::Box || m.geom_sim[g] >= 0) continue;
    const Vec3 c = m.geom_pose[g].pos, h = m.geom_size[g];
    plot.obstacle = {c.x() - h.x(), c.y() - h.y(), c.x() + h.x(), c.y() + h.y()};
    plot.has_obstacle = true;
    return;
  }
}

// One forward + backward pass: the loss, its gradient w.r.t. every command, the path.
struct Evaluation {
  double loss = 0, distance = 0;
  std::vector<double> gradient;
  std::vector<std::array<double, 2>> path;
  int unconverged_steps = 0;
  std::string error;
};

class Problem {
 public:
  Problem(const Simulator& sim, const Settings& s, int body) : sim_(sim), s_(s), body_(body) {}

  Evaluation evaluate(const std::vector<double>& ctrl) const {
    const int nu = sim_.nctrl();
    runtime::WorldBatch worlds = sim_.make_worlds(1);
    const RolloutTape tape =
        sim_.record_rollout(worlds, s_.dt, s_.steps, [&](int k, runtime::WorldBatch& w) {
          std::copy_n(ctrl.begin() + k * nu, nu, w.ctrl_of(0).begin());
        });
    Evaluation e;
    if (tape.status[0] & runtime::kWorldFailed) {
      e.error = "the forward rollout failed (non-finite or diverged step)";
      return e;
    }
    for (uint8_t status : tape.step_status)
      e.unconverged_steps += (status & runtime::kWorldNotConverged) != 0;
    for (int k = 0; k < s_.steps; ++k) e.path.push_back(position(tape.q.data() + k * tape.nq));
    const std::array<double, 2> end = position(tape.final_q.data());
    e.path.push_back(end);
    const double dx = end[0] - s_.target_x, dy = end[1] - s_.target_y;
    e.distance = std::hypot(dx, dy);
    e.loss = dx * dx + dy * dy;
    Expected<RolloutGradient> g = sim_.rollout_backward(
        tape, [&](int k, int, std::span<const double>, std::span<const double>,
                  std::span<double> dq, std::span<double>) {
          if (k != s_.steps) return;
          dq[7 * body_] += 2 * dx;  // ∂|p − p*|²/∂p on the body's COM entries
          dq[7 * body_ + 1] += 2 * dy;
        });
    if (!g || g->code[0] != 0) {
      e.error = g ? "the backward sweep failed at step " + std::to_string(g->failed_step[0])
                  : g.diagnostics().format();
      return e;
    }
    e.gradient = g->dctrl;
    add_smoothness(ctrl, e);
    return e;
  }

 private:
  std::array<double, 2> position(const double* q) const { return {q[7 * body_], q[7 * body_ + 1]}; }

  // β Σ_k |a_k − a_{k−1}|² (k ≥ 1) and its gradient.
  void add_smoothness(const std::vector<double>& ctrl, Evaluation& e) const {
    const int nu = sim_.nctrl();
    for (int k = 1; k < s_.steps; ++k)
      for (int j = 0; j < nu; ++j) {
        const double d = ctrl[k * nu + j] - ctrl[(k - 1) * nu + j];
        e.loss += s_.smoothness * d * d;
        e.gradient[k * nu + j] += 2 * s_.smoothness * d;
        e.gradient[(k - 1) * nu + j] -= 2 * s_.smoothness * d;
      }
  }

  const Simulator& sim_;
  const Settings& s_;
  int body_;
};

struct Record {
  int iteration;
  double loss, distance, x, y, seconds;
  int unconverged_steps;
};

struct Optimisation {
  std::vector<Record> records;  // one per completed iteration
  Evaluation first, best;
  std::vector<double> best_ctrl;
};

// Adam from constant commands; stops early when a rollout cannot be finished even after
// halving the update kMaxRetries times.
Optimisation optimise(const Problem& problem, const Settings& s, int nctrl) {
  Optimisation o;
  std::vector<double> ctrl(s.steps * nctrl, s.initial_command), previous = ctrl;
  o.best_ctrl = ctrl;
  Adam adam;
  adam.learning_rate = s.learning_rate;
  adam.decay = s.learning_rate_decay;
  adam.lower = -15, adam.upper = 15;  // inside the motors' ctrlrange [-20, 20]
  const auto start = std::chrono::steady_clock::now();
  std::printf("%4s %12s %10s %8s %8s %9s\n", "iter", "loss", "distance", "x", "y", "seconds");
  for (int it = 0; it < s.iterations; ++it) {
    Evaluation e = problem.evaluate(ctrl);
    // A rollout the solver cannot finish (#4: a step that diverges even when split) is no
    // loss value: go back towards the last good commands, halving the update each time.
    for (int retry = 0; !e.error.empty() && retry < kMaxRetries; ++retry) {
      std::fprintf(stderr, "iteration %d: %s; halving the update\n", it, e.error.c_str());
      for (std::size_t i = 0; i < ctrl.size(); ++i) ctrl[i] = (ctrl[i] + previous[i]) / 2;
      e = problem.evaluate(ctrl);
    }
    if (!e.error.empty()) {
      std::fprintf(stderr, "iteration %d: %s\n", it, e.error.c_str());
      break;
    }
    previous = ctrl;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::array<double, 2> end = e.path.back();
    o.records.push_back({it, e.loss, e.distance, end[0], end[1], seconds, e.unconverged_steps});
    std::printf("%4d %12.6g %10.4f %8.4f %8.4f %9.2f\n", it, e.loss, e.distance, end[0], end[1],
                seconds);
    std::fflush(stdout);
    if (it == 0) o.first = e;
    if (it == 0 || e.loss < o.best.loss) o.best = e, o.best_ctrl = ctrl;
    adam.update(ctrl, e.gradient);
  }
  return o;
}

// False when a file could not be written.
bool write_outputs(const Settings& s, const Simulator& sim, const std::vector<Record>& records,
                   const std::vector<double>& best_ctrl, const Evaluation& first,
                   const Evaluation& best) {
  std::error_code error;
  std::filesystem::create_directories(s.out_dir, error);
  std::ofstream loss(s.out_dir / "trajectory_optimisation_loss.csv");
  loss << "iteration,loss,distance,x,y,seconds,unconverged_steps\n";
  for (const Record& r : records)
    loss << r.iteration << ',' << r.loss << ',' << r.distance << ',' << r.x << ',' << r.y << ','
         << r.seconds << ',' << r.unconverged_steps << '\n';
  std::ofstream path(s.out_dir / "trajectory_optimisation_path.csv");
  path << "step,first_x,first_y,best_x,best_y\n";
  for (std::size_t k = 0; k < best.path.size(); ++k)
    path << k << ',' << first.path[k][0] << ',' << first.path[k][1] << ',' << best.path[k][0] << ','
         << best.path[k][1] << '\n';
  std::ofstream controls(s.out_dir / "trajectory_optimisation_controls.csv");
  const int nu = sim.nctrl();
  for (int j = 0; j < nu; ++j) controls << (j ? "," : "") << sim.model().act_name[j];
  controls << '\n';
  for (int k = 0; k < s.steps; ++k)
    for (int j = 0; j < nu; ++j) controls << best_ctrl[k * nu + j] << (j + 1 < nu ? "," : "\n");
  std::vector<double> losses;
  for (const Record& r : records) losses.push_back(r.loss);
  examples::PathPlot plot;
  plot.first_path = first.path;
  plot.final_path = best.path;
  plot.target = {s.target_x, s.target_y};
  obstacle_outline(sim.model(), plot);
  return examples::write_svg((s.out_dir / "trajectory_optimisation.svg").string(), losses, plot) &&
         loss.good() && path.good() && controls.good();
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  const Parsed parsed = parse(argc, argv, s);
  if (parsed != Parsed::kRun) {
    std::fputs(kUsage, parsed == Parsed::kHelp ? stdout : stderr);
    return parsed == Parsed::kHelp ? 0 : 2;
  }
  SimulatorOptions options;
  options.threads = 1;
  // The gradient is that of the iterate the solver returns, so the forward is converged as
  // far as `talon gradient` converges it (32 Newton, 64 PCR iterations): with the swivel
  // caster the robot once had, `simulate`'s 16 / 16 left steps on the obstacle unconverged,
  // the adjoint differentiated those iterates and Adam climbed instead of descending.
  options.solver.newton_iterations = 32;
  options.solver.pcr_iterations = 64;
  options.solver.adjoint_iterations = 32;  // the unit gets its backward step
  std::fprintf(stderr, "compiling %s (cached after the first run) ...\n", s.model.c_str());
  Expected<Simulator> sim = load(s.model, options, scene(s));
  if (!sim) {
    std::fputs(sim.diagnostics().format().c_str(), stderr);
    return 2;
  }
  int body = -1;
  for (int b = 0; b < sim->model().nsim; ++b)
    if (sim->model().sim_name[b] == "base_link") body = b;
  if (body < 0 || sim->nctrl() == 0) {
    std::fputs("the model needs a body 'base_link' and actuators\n", stderr);
    return 2;
  }
  const Problem problem(*sim, s, body);
  const Optimisation o = optimise(problem, s, sim->nctrl());
  const std::vector<Record>& records = o.records;
  const Evaluation &first = o.first, &best = o.best;
  const std::vector<double>& best_ctrl = o.best_ctrl;
  if (records.empty()) return 1;
  if (!write_outputs(s, *sim, records, best_ctrl, first, best)) {
    std::fprintf(stderr, "cannot write the results to %s\n", s.out_dir.string().c_str());
    return 2;
  }
  std::printf(
      "best: loss %.6g, %.4f m from the target (%.2f, %.2f); wrote %s/trajectory_optimisation*\n",
      best.loss, best.distance, s.target_x, s.target_y, s.out_dir.string().c_str());
  if (best.distance > s.tolerance) {
    std::fprintf(stderr, "did not reach the target within %.3f m\n", s.tolerance);
    return 1;
  }
  return 0;
}
