// `talon compile --precision f32`: the f32 unit steps the test scenes to the f64 unit's
// answer with every step converged (codegen/solver/talon_convergence.h: the bar in f32 is the
// round-off floor of the residual), and a step that does not converge says so in the
// statistics while the state still advances.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <map>
#include <memory>

#include "runtime/control_table.h"
#include "runtime/unit_stepper.h"

namespace talon {
namespace {

using testing::UnitStepper;
using testing::UnitStepRecord;

struct Scene {
  std::string file;
  double h = 0.01;
  int steps = 0;
  std::vector<double> u0;  // the initial velocity (empty: at rest)
  bool drive = false;      // controls from models/three_wheeler_drive.csv
};

template <class Real>
UnitStepper<Real> make_stepper(const Model& model, const codegen::SolverOptions& solver = {}) {
  codegen::ModelUnitOptions options;
  options.name = sizeof(Real) == sizeof(float) ? "f32_unit" : "f64_unit";
  options.precision =
      sizeof(Real) == sizeof(float) ? ir::CPrecision::Float : ir::CPrecision::Double;
  options.solver = solver;
  return UnitStepper<Real>(model, options);
}

// The unit of `file` with the default solver, compiled once per test run (the scenes share
// models at several h; compiling is most of the test's time, the more so under ASan).
template <class Real>
UnitStepper<Real>& shared_stepper(const std::string& file) {
  static std::map<std::string, std::unique_ptr<UnitStepper<Real>>> units;
  std::unique_ptr<UnitStepper<Real>>& unit = units[file];
  if (!unit)
    unit = std::make_unique<UnitStepper<Real>>(make_stepper<Real>(testing::shipped_model(file)));
  unit->reset();
  return *unit;
}

template <class Real>
std::vector<UnitStepRecord> rollout(const Scene& scene, UnitStepper<Real>& unit) {
  const Model model = testing::shipped_model(scene.file);
  if (!scene.u0.empty()) unit.set_velocity(scene.u0);
  runtime::ControlTable table;
  if (scene.drive) {
    Expected<runtime::ControlTable> read = runtime::read_control_csv(
        std::string(TALON_MODELS_DIR) + "/three_wheeler_drive.csv", model);
    INFO(read.diagnostics().format());
    REQUIRE(read.ok());
    table = std::move(*read);
  }
  std::vector<double> ctrl(unit.unit().nctrl, 0.0);
  std::vector<UnitStepRecord> records;
  for (int k = 0; k < scene.steps; ++k) {
    if (scene.drive) runtime::controls_at(table, k, ctrl);
    records.push_back(unit.step(ctrl, scene.h));
  }
  return records;
}

double largest_magnitude(const std::vector<double>& values) {
  double largest = 0;
  for (double v : values) largest = std::max(largest, std::abs(v));
  return largest;
}

double largest_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double largest = 0;
  for (std::size_t i = 0; i < a.size(); ++i) largest = std::max(largest, std::abs(a[i] - b[i]));
  return largest;
}

// How far f32's pose may be from f64's after a step from `before` (the f32 state at its
// start). Each precision's end velocity is its root's to within its convergence bar: 1e-6
// m/s in f64, 4 FLT_EPSILON (|q|/h + |u|) in f32 (codegen/solver/talon_convergence.h), so the
// poses part by at most h times the sum per step, which the caller accumulates; on top of it
// f32 rounds the pose it writes by an ulp of |q|.
double step_allowance(const UnitStepRecord& before, double h) {
  const double q = std::max(1.0, largest_magnitude(before.q));
  const double f32_bar = 4 * FLT_EPSILON * (q / h + largest_magnitude(before.u));
  return h * (f32_bar + 1e-6) + FLT_EPSILON * q;
}

}  // namespace

TEST_CASE("f32 units step the test scenes to the f64 answer, every step converged",
          "[runtime][unit][f32]") {
  const std::vector<double> launched = {2, 0, 0, 0, 0, 0};  // sliding_box.xml's keyframe
  // The three-wheeler's drive (ramp to 5 rad/s, then straight on) reaches the obstacle's edge
  // at t ≈ 2.1 s: 60 steps of 0.1 s climb onto it and drop off it again.
  const Scene scene = GENERATE_COPY(Scene{"sphere_drop.xml", 0.01, 100, {}, false},
                                    Scene{"sphere_drop.xml", 0.05, 20, {}, false},
                                    Scene{"sliding_box.xml", 0.01, 60, launched, false},
                                    Scene{"sliding_box.xml", 0.1, 10, launched, false},
                                    Scene{"three_wheeler_scene.xml", 0.1, 20, {}, true},
                                    Scene{"three_wheeler_scene.xml", 0.05, 30, {}, true},
                                    Scene{"three_wheeler_scene.xml", 0.1, 60, {}, true});
  const std::vector<UnitStepRecord> f64 = rollout(scene, shared_stepper<double>(scene.file));
  const std::vector<UnitStepRecord> f32 = rollout(scene, shared_stepper<float>(scene.file));
  double allowed = 0, largest = 0;
  int f32_updates = 0, f64_updates = 0;
  for (std::size_t k = 0; k < f64.size(); ++k) {
    INFO(scene.file << " at h = " << scene.h << ", step " << k);
    REQUIRE(f64[k].status == 0);
    REQUIRE(f32[k].status == 0);
    CHECK(f64[k].converged());
    CHECK(f32[k].converged());
    allowed += step_allowance(k == 0 ? f32[0] : f32[k - 1], scene.h);
    const double difference = largest_difference(f64[k].q, f32[k].q);
    CHECK(difference <= allowed);
    largest = std::max(largest, difference);
    f32_updates += f32[k].newton_iterations();
    f64_updates += f64[k].newton_iterations();
  }
  // What bench/RESULTS.md quotes ("f32 on the wheeled robot").
  WARN(scene.file << " h = " << scene.h << ": f32 within " << largest << " of f64 (allowed "
                  << allowed << "); Newton updates f32 " << f32_updates << ", f64 " << f64_updates);
}

TEST_CASE("an f32 step that misses its bar says so in its statistics and still advances",
          "[runtime][unit][f32]") {
  // One Newton update from each of the step's two starts (the cold one, then the free-flight
  // one: talon_retry_step) and no substeps cannot converge the launched box's first step (f32
  // needs 7). The unit returns the better iterate it reached, as NAME_step documents, with
  // stats.converged = 0 and the merit it reached: a caller checks the statistics, not only
  // the status (docs/solver_options.md, "Precision").
  codegen::SolverOptions solver;
  solver.newton_iterations = 1;
  solver.max_substep_depth = 0;
  const Scene launched{"sliding_box.xml", 0.1, 1, {2, 0, 0, 0, 0, 0}, false};
  UnitStepper<float> unit = make_stepper<float>(testing::shipped_model(launched.file), solver);
  const std::vector<UnitStepRecord> f32 = rollout(launched, unit);
  REQUIRE(f32[0].status == 0);
  CHECK_FALSE(f32[0].converged());
  CHECK(f32[0].newton_iterations() == 2);
  CHECK(f32[0].statistics[codegen::kStatMerit] > 1e-6);
  CHECK(f32[0].q[0] > 0.1);  // the box slid on from x = 0 (at 2 m/s, minus friction)
}

}  // namespace talon
