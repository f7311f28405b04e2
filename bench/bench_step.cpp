// bench_step: Talon's step against MuJoCo's, side by side on this machine, on the shipped
// scenes and MuJoCo's humanoid. For each scene: Talon at a large step (the scene's h) and
// MuJoCo at its own default 2 ms step (the step its soft contact is tuned for) and, where it
// stays finite, at Talon's h. Prints wall seconds per simulated second for one world, the
// ratio, Talon's substeps and Newton iterations per step, and both engines' final position
// of the scene's first body (so a fast but wrong run shows).
//
//   bench_step [--worlds W]      (W worlds for Talon's batched throughput row; default 64)
//
// After each scene's rows, issue #16's measures: Talon's cost per Newton update against MuJoCo's
// step at 2 ms, and Talon at its h against MuJoCo at 5 ms.
//
// Compiling a model is not timed (Talon caches it; MuJoCo's mj_loadXML is not timed either).
#include <mujoco/mujoco.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "runtime/joint_state.h"
#include "runtime/simulator.h"

namespace {

using Clock = std::chrono::steady_clock;

// Controls at time t (s), in actuator order; the same for both engines.
using ControlLaw = std::function<void(double t, double* ctrl, int nu)>;

struct Scene {
  std::string name, path, keyframe;
  double h = 0.1, seconds = 2.0;
  ControlLaw controls;
};

struct Run {
  double wall_per_sim_second = NAN;
  double substeps_per_step = 0, newton_per_step = 0;
  double x = NAN, y = NAN, z = NAN;  // first body's COM (Talon) / frame (MuJoCo)
  bool finite = true;
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

bool talon_run(const Scene& scene, int worlds, Run& out) {
  talon::Expected<talon::Simulator> sim = talon::load(scene.path);
  if (!sim) {
    std::fprintf(stderr, "%s", sim.diagnostics().format().c_str());
    return false;
  }
  talon::runtime::WorldBatch batch = sim->make_worlds(worlds);
  if (!scene.keyframe.empty()) {
    talon::Expected<talon::runtime::MaximalState> state =
        talon::runtime::keyframe_state(sim->model(), scene.keyframe);
    if (!state) return false;
    for (int w = 0; w < worlds; ++w) {
      std::copy(state->q.begin(), state->q.end(), batch.q_of(w).begin());
      std::copy(state->u.begin(), state->u.end(), batch.u_of(w).begin());
    }
  }
  const int steps = static_cast<int>(std::lround(scene.seconds / scene.h));
  double substeps = 0, newton = 0;
  const auto start = Clock::now();
  for (int k = 0; k < steps; ++k) {
    if (scene.controls)
      for (int w = 0; w < worlds; ++w)
        scene.controls(k * scene.h, batch.ctrl_of(w).data(), sim->nctrl());
    sim->step(batch, scene.h);
    substeps += batch.stats_of(0)[talon::codegen::kStatSubsteps];
    newton += batch.stats_of(0)[talon::codegen::kStatNewtonIterations];
  }
  out.wall_per_sim_second = seconds_since(start) / (scene.seconds * worlds);
  out.substeps_per_step = substeps / steps;
  out.newton_per_step = newton / steps;
  out.finite = (batch.status[0] & talon::runtime::kWorldFailed) == 0;
  out.x = batch.q_of(0)[0];
  out.y = batch.q_of(0)[1];
  out.z = batch.q_of(0)[2];
  return true;
}

// MuJoCo's default warning handler appends to MUJOCO_LOG.TXT in the current directory (a
// file left in the checkout by every run); its warnings go to stderr instead.
void mujoco_warning_to_stderr(const char* message) {
  std::fprintf(stderr, "MuJoCo warning: %s\n", message);
}

bool mujoco_run(const Scene& scene, double h, Run& out) {
  char error[1000] = "";
  mjModel* m = mj_loadXML(scene.path.c_str(), nullptr, error, sizeof error);
  if (!m) {
    std::fprintf(stderr, "MuJoCo: %s\n", error);
    return false;
  }
  m->opt.timestep = h;
  mjData* d = mj_makeData(m);
  if (!scene.keyframe.empty())
    mj_resetDataKeyframe(m, d, mj_name2id(m, mjOBJ_KEY, scene.keyframe.c_str()));
  const int steps = static_cast<int>(std::lround(scene.seconds / h));
  const auto start = Clock::now();
  for (int k = 0; k < steps && out.finite; ++k) {
    if (scene.controls) scene.controls(k * h, d->ctrl, m->nu);
    mj_step(m, d);
    out.finite = std::isfinite(d->qpos[0]) && d->warning[mjWARN_BADQACC].number == 0;
  }
  out.wall_per_sim_second = seconds_since(start) / scene.seconds;
  out.x = d->xipos[3];  // body 1's COM
  out.y = d->xipos[4];
  out.z = d->xipos[5];
  mj_deleteData(d);
  mj_deleteModel(m);
  return true;
}

void print_row(const char* engine, double h, int worlds, const Run& r, double reference) {
  std::printf(
      "  %-6s h=%-6g W=%-3d %10.3g s/s  %8.2fx  substeps %5.2f  newton %6.1f  "
      "final (%.4f, %.4f, %.4f)%s\n",
      engine, h, worlds, r.wall_per_sim_second, r.wall_per_sim_second / reference,
      r.substeps_per_step, r.newton_per_step, r.x, r.y, r.z,
      r.finite ? "" : "  NOT FINITE / unstable");
}

// Issue #16's two measures on one world: Talon's cost per Newton update against MuJoCo's
// whole step at 2 ms (its bar: 3x), and Talon at its h against MuJoCo at 5 ms (its goal: 1x).
void print_costs(const Scene& scene, const Run& talon, const Run& mujoco_fine,
                 const Run& mujoco_5ms) {
  if (!mujoco_fine.finite || !mujoco_5ms.finite) {
    std::printf("  (MuJoCo did not stay finite: its time is not a step's cost)\n");
    return;
  }
  const double mujoco_step = mujoco_fine.wall_per_sim_second * 0.002;
  if (talon.newton_per_step > 0) {
    const double update = talon.wall_per_sim_second * scene.h / talon.newton_per_step;
    std::printf(
        "  per Newton update (a step's time / its updates) %.1f us = %.2fx MuJoCo's step "
        "at h=0.002 (%.1f us)",
        update * 1e6, update / mujoco_step, mujoco_step * 1e6);
  }
  std::printf("; Talon h=%g / MuJoCo h=0.005: %.2fx\n", scene.h,
              talon.wall_per_sim_second / mujoco_5ms.wall_per_sim_second);
}

std::vector<Scene> scenes(const std::string& models) {
  const ControlLaw drive = [](double t, double* ctrl, int nu) {
    for (int i = 0; i < nu; ++i) ctrl[i] = 5 * std::min(1.0, t + 0.1);  // ramp to 5 rad/s
  };
  std::vector<Scene> out = {
      {"sphere drop", models + "/sphere_drop.xml", "", 0.1, 2.0, {}},
      {"sliding box (2 m/s, mu 0.5)", models + "/sliding_box.xml", "launched", 0.1, 1.0, {}},
      {"box stack", models + "/box_stack.xml", "", 0.1, 2.0, {}},
      {"three-wheeler driving", models + "/three_wheeler_scene.xml", "", 0.1, 1.5, drive},
  };
  const std::string humanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml";
  if (std::FILE* f = std::fopen(humanoid.c_str(), "r")) {
    std::fclose(f);
    out.push_back({"humanoid falling", humanoid, "", 0.05, 1.5, {}});
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  mju_user_warning = mujoco_warning_to_stderr;
  int worlds = 64;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--worlds") == 0) worlds = std::atoi(argv[i + 1]);
  std::printf("wall seconds per simulated second and world; ratio against MuJoCo at 2 ms\n");
  for (const Scene& scene : scenes(TALON_MODELS_DIR)) {
    std::printf("%s\n", scene.name.c_str());
    Run mujoco_fine, mujoco_5ms, mujoco_coarse, talon_one, talon_many;
    if (!mujoco_run(scene, 0.002, mujoco_fine) || !mujoco_run(scene, 0.005, mujoco_5ms)) return 1;
    const double reference = mujoco_fine.wall_per_sim_second;
    print_row("mujoco", 0.002, 1, mujoco_fine, reference);
    print_row("mujoco", 0.005, 1, mujoco_5ms, reference);
    if (mujoco_run(scene, scene.h, mujoco_coarse))
      print_row("mujoco", scene.h, 1, mujoco_coarse, reference);
    if (!talon_run(scene, 1, talon_one)) return 1;
    print_row("talon", scene.h, 1, talon_one, reference);
    if (talon_run(scene, worlds, talon_many))
      print_row("talon", scene.h, worlds, talon_many, reference);
    print_costs(scene, talon_one, mujoco_fine, mujoco_5ms);
  }
  return 0;
}
