// A model unit whose contact pairs and joint sets run as per-type templates over instance
// tables (LowerOptions::pair_templates, joint_templates; codegen/model_unit_pairs.cpp)
// against the unrolled unit of
// the same model: the same trajectories and the same rollout gradients, to round-off. The
// generated loops (gather, template call, scatter-add) are what is tested: the kernels they
// assemble are checked against the unrolled ones in tests/ir/test_pair_templates.cpp; box–box
// pairs step as unrolled in tests/runtime/test_cli_step.cpp (their unrolled backward step
// alone takes 85 s to compile).
#include <algorithm>

#include "gradient_fixtures.h"
#include "ir/lower/pair_templates.h"

namespace talon {
namespace {

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// Every entry within `tolerance` of the largest of `expected`.
void check_close(const char* what, const std::vector<double>& expected,
                 const std::vector<double>& got, double tolerance) {
  REQUIRE(expected.size() == got.size());
  const double scale = std::max(1.0, max_abs(expected));
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO(what << " entry " << i << ": unrolled " << expected[i] << ", templates " << got[i]);
    CHECK(std::abs(expected[i] - got[i]) <= tolerance * scale);
  }
}

struct Run {
  RolloutTape tape;
  RolloutGradient gradient;
};

// 20 steps at h = 0.05 with controls `ctrl` (if the model has controls) and a loss that
// weighs every entry of the final state.
Run run(const Model& model, bool templates, double ctrl) {
  SimulatorOptions options = testing::gradient_options();
  options.lower.set_templates(templates);
  // The two units' steps differ by round-off, so both forwards stop within the convergence
  // tolerance of the same root and their adjoints solve to this tolerance: what is left is
  // the gradient's change with a state that moved by ~1e-11 (measured: 6e-8 of the largest
  // entry, the wheeled robot's contact compliance). At the default 1e-8 the adjoint solves'
  // own stopping errors differ by 6e-6 relative on the pushed box.
  options.solver.adjoint_tolerance = 1e-13;
  // The forwards converge to 1e-13, not gradient_options()' 1e-11: the pushed box's gradient
  // with respect to its slide joint's compliance (at its default 0, a rigid joint) is
  // −31 386 at 1e-11, −109 771 at 1e-12, −200 492 at 1e-13 and −204 137 at 1e-14, the same in
  // both units; at 1e-11 the two stopped 5e-6 of it apart when the joint's rows moved into a
  // template (bench/RESULTS.md, eighteenth session).
  options.solver.convergence_tolerance = 1e-13;
  const Simulator sim = testing::make_simulator(model, options);
  REQUIRE((sim.program().pairs != nullptr) == templates);
  runtime::WorldBatch worlds = sim.make_worlds(1);
  Run out;
  out.tape = sim.record_rollout(worlds, 0.05, 20, [&](int, runtime::WorldBatch& w) {
    std::fill(w.ctrl.begin(), w.ctrl.end(), ctrl);
  });
  Expected<RolloutGradient> gradient = sim.rollout_backward(
      out.tape, [](int k, int, std::span<const double>, std::span<const double>,
                   std::span<double> dq, std::span<double> du) {
        if (k != 20) return;
        for (std::size_t i = 0; i < dq.size(); ++i) dq[i] += 1.0 + 0.1 * static_cast<double>(i);
        for (std::size_t i = 0; i < du.size(); ++i) du[i] += 0.5 - 0.05 * static_cast<double>(i);
      });
  INFO(gradient.diagnostics().format());
  REQUIRE(gradient.ok());
  out.gradient = std::move(*gradient);
  return out;
}

void check_same(const Model& model, double ctrl) {
  const Run unrolled = run(model, false, ctrl);
  const Run templated = run(model, true, ctrl);
  CHECK(templated.tape.status == unrolled.tape.status);
  CHECK(templated.tape.step_status == unrolled.tape.step_status);
  check_close("final q", unrolled.tape.final_q, templated.tape.final_q, 1e-10);
  check_close("final u", unrolled.tape.final_u, templated.tape.final_u, 1e-10);
  check_close("dq0", unrolled.gradient.dq0, templated.gradient.dq0, 1e-6);
  check_close("du0", unrolled.gradient.du0, templated.gradient.du0, 1e-6);
  check_close("dctrl", unrolled.gradient.dctrl, templated.gradient.dctrl, 1e-6);
  check_close("dparams", unrolled.gradient.dparams, templated.gradient.dparams, 1e-6);
}

}  // namespace

TEST_CASE("per-type templates: a pushed box steps and differentiates as unrolled",
          "[gradients][templates]") {
  check_same(testing::shipped_model("push_box.xml"), 1.0);
}

TEST_CASE("per-type templates: the wheeled robot's scene steps and differentiates as unrolled",
          "[gradients][templates]") {
  check_same(testing::shipped_model("three_wheeler_scene.xml"), 2.0);
}

}  // namespace talon
