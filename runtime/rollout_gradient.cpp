// Simulator::record_rollout and Simulator::rollout_backward: the forward keeps one start state
// (q, u and the solver's warm start, so a recomputed step takes exactly the iterates it took)
// per checkpoint; the reverse sweep recomputes each stretch between two checkpoints, then
// pulls the loss's cotangent back through its steps with NAME_step_backward.
#include <algorithm>

#include "runtime/simulator.h"

namespace talon {
namespace {

std::size_t offset(int index, int worlds, int world, int n) {
  return (static_cast<std::size_t>(index) * worlds + world) * n;
}

// One world's scratch for the reverse sweep: a workspace and the recomputed stretch.
struct SweepScratch {
  std::vector<double> workspace;
  std::vector<double> q, u, warm;  // [checkpoint_every][n]
  std::vector<double> dq, du, dctrl, dparams;
};

}  // namespace

std::size_t RolloutTape::bytes_per_world() const {
  const std::size_t per_checkpoint = nq + nv + nwarm;
  const std::size_t doubles = per_checkpoint * checkpoints() + static_cast<std::size_t>(nq + nv) +
                              static_cast<std::size_t>(steps) * nctrl + nparam;
  return doubles * sizeof(double) + static_cast<std::size_t>(steps);  // + step_status
}

RolloutTape Simulator::record_rollout(runtime::WorldBatch& worlds, double h, int steps,
                                      const ControlSchedule& before_step,
                                      int checkpoint_every) const {
  RolloutTape tape;
  tape.h = h;
  tape.steps = std::max(steps, 0);
  tape.worlds = worlds.count;
  tape.checkpoint_every = std::max(checkpoint_every, 1);
  tape.nq = worlds.nq;
  tape.nv = worlds.nv;
  tape.nctrl = worlds.nctrl;
  tape.nparam = worlds.nparam;
  tape.nwarm = has_backward() ? unit_.nrows + 1 : 0;
  tape.params = worlds.params;
  std::vector<double> warm(tape.nwarm);
  for (int k = 0; k < tape.steps; ++k) {
    if (before_step) before_step(k, worlds);
    if (k % tape.checkpoint_every == 0) {
      tape.q.insert(tape.q.end(), worlds.q.begin(), worlds.q.end());
      tape.u.insert(tape.u.end(), worlds.u.begin(), worlds.u.end());
      for (int w = 0; w < worlds.count && tape.nwarm > 0; ++w) {
        library_->warm_start(worlds.workspace_of(w), warm.data());
        tape.warm.insert(tape.warm.end(), warm.begin(), warm.end());
      }
    }
    tape.ctrl.insert(tape.ctrl.end(), worlds.ctrl.begin(), worlds.ctrl.end());
    step(worlds, h);
    tape.step_status.insert(tape.step_status.end(), worlds.status.begin(), worlds.status.end());
  }
  tape.final_q = worlds.q;
  tape.final_u = worlds.u;
  tape.status = worlds.status;
  return tape;
}

namespace {

// The reverse sweep of one world (see rollout_backward).
class WorldSweep {
 public:
  WorldSweep(const runtime::ModelLibrary& library, const RolloutTape& tape, int world,
             std::size_t workspace_doubles, RolloutGradient& out)
      : lib_(library), tape_(tape), w_(world), out_(out) {
    const int span = tape.checkpoint_every;
    s_.workspace.assign(workspace_doubles, 0.0);
    lib_.workspace_init(s_.workspace.data());
    s_.q.resize(static_cast<std::size_t>(span) * tape.nq);
    s_.u.resize(static_cast<std::size_t>(span) * tape.nv);
    s_.warm.resize(static_cast<std::size_t>(span) * tape.nwarm);
    s_.dctrl.resize(tape.nctrl);
    s_.dparams.resize(tape.nparam);
  }

  // Runs the sweep; the loss cotangent of the final state first. (Pointers into the tape
  // are data() + offset: a model without controls has empty arrays, and &v[i] of an empty
  // vector is undefined.)
  void run(const StateCotangent& loss) {
    const RolloutTape& t = tape_;
    s_.dq.assign(t.nq, 0.0);
    s_.du.assign(t.nv, 0.0);
    call_loss(loss, t.steps, t.final_q.data() + offset(0, 1, w_, t.nq),
              t.final_u.data() + offset(0, 1, w_, t.nv));
    for (int c = t.checkpoints() - 1; c >= 0; --c) {
      const int first = c * t.checkpoint_every;
      const int last = std::min(first + t.checkpoint_every, t.steps);  // exclusive
      if (!recompute(c, first, last)) return;
      for (int k = last - 1; k >= first; --k)
        if (!backward(k, k - first, loss)) return;
    }
    std::copy(s_.dq.begin(), s_.dq.end(), out_.dq0.begin() + offset(0, 1, w_, t.nq));
    std::copy(s_.du.begin(), s_.du.end(), out_.du0.begin() + offset(0, 1, w_, t.nv));
  }

  long krylov = 0, pcr = 0, steps = 0;
  double residual = 0;

 private:
  void call_loss(const StateCotangent& loss, int k, const double* q, const double* u) {
    if (!loss) return;
    loss(k, w_, {q, static_cast<std::size_t>(tape_.nq)}, {u, static_cast<std::size_t>(tape_.nv)},
         s_.dq, s_.du);
  }

  const double* ctrl(int k) const {
    return tape_.ctrl.data() + offset(k, tape_.worlds, w_, tape_.nctrl);
  }
  const double* params() const { return tape_.params.data() + offset(0, 1, w_, tape_.nparam); }

  // States first .. last−1 of checkpoint c into the scratch stretch (the first is stored).
  bool recompute(int c, int first, int last) {
    const RolloutTape& t = tape_;
    std::copy_n(t.q.data() + offset(c, t.worlds, w_, t.nq), t.nq, s_.q.begin());
    std::copy_n(t.u.data() + offset(c, t.worlds, w_, t.nv), t.nv, s_.u.begin());
    std::copy_n(t.warm.data() + offset(c, t.worlds, w_, t.nwarm), t.nwarm, s_.warm.begin());
    for (int k = first; k + 1 < last; ++k) {
      const int i = k - first;
      double* q = s_.q.data() + static_cast<std::size_t>(i + 1) * t.nq;
      double* u = s_.u.data() + static_cast<std::size_t>(i + 1) * t.nv;
      std::copy_n(s_.q.data() + static_cast<std::size_t>(i) * t.nq, t.nq, q);
      std::copy_n(s_.u.data() + static_cast<std::size_t>(i) * t.nv, t.nv, u);
      lib_.set_warm_start(s_.workspace.data(),
                          s_.warm.data() + static_cast<std::size_t>(i) * t.nwarm);
      const int code = lib_.step(q, u, ctrl(k), params(), t.h, s_.workspace.data());
      if (code != 0) return fail(k, code);
      lib_.warm_start(s_.workspace.data(),
                      s_.warm.data() + static_cast<std::size_t>(i + 1) * t.nwarm);
    }
    return true;
  }

  // The backward of step k (stretch index i), then the loss's cotangent at state k.
  bool backward(int k, int i, const StateCotangent& loss) {
    const RolloutTape& t = tape_;
    const double* q = s_.q.data() + static_cast<std::size_t>(i) * t.nq;
    const double* u = s_.u.data() + static_cast<std::size_t>(i) * t.nv;
    const int code = lib_.step_backward(
        q, u, ctrl(k), params(), t.h, s_.warm.data() + static_cast<std::size_t>(i) * t.nwarm,
        s_.dq.data(), s_.du.data(), s_.dctrl.data(), s_.dparams.data(), s_.workspace.data());
    if (code != 0) return fail(k, code);
    double stats[3];
    lib_.backward_statistics(s_.workspace.data(), stats);
    krylov += static_cast<long>(stats[0]);
    pcr += static_cast<long>(stats[1]);
    residual = std::max(residual, stats[2]);
    ++steps;
    std::copy(s_.dctrl.begin(), s_.dctrl.end(),
              out_.dctrl.begin() + offset(k, t.worlds, w_, t.nctrl));
    double* dparams = out_.dparams.data() + offset(0, 1, w_, t.nparam);
    for (int j = 0; j < t.nparam; ++j) dparams[j] += s_.dparams[j];
    call_loss(loss, k, q, u);
    return true;
  }

  bool fail(int k, int code) {
    out_.code[w_] = code;
    out_.failed_step[w_] = k;
    return false;
  }

  const runtime::ModelLibrary& lib_;
  const RolloutTape& tape_;
  int w_;
  RolloutGradient& out_;
  SweepScratch s_;
};

}  // namespace

Expected<RolloutGradient> Simulator::rollout_backward(const RolloutTape& tape,
                                                      const StateCotangent& loss) const {
  if (!has_backward()) {
    return Diagnostics::single_error(
        "this simulator's model unit has no backward step: create it with "
        "SolverOptions::adjoint_iterations > 0");
  }
  RolloutGradient out;
  const int W = tape.worlds;
  out.dq0.assign(static_cast<std::size_t>(W) * tape.nq, 0.0);
  out.du0.assign(static_cast<std::size_t>(W) * tape.nv, 0.0);
  out.dctrl.assign(static_cast<std::size_t>(tape.steps) * W * tape.nctrl, 0.0);
  out.dparams.assign(static_cast<std::size_t>(W) * tape.nparam, 0.0);
  out.code.assign(W, 0);
  out.failed_step.assign(W, -1);
  const std::size_t workspace_doubles = library_->workspace_doubles();
  std::vector<long> krylov(W, 0), pcr(W, 0), steps(W, 0);
  std::vector<double> residual(W, 0.0);
  pool_->parallel_for(W, [&](int w) {
    WorldSweep sweep(*library_, tape, w, workspace_doubles, out);
    sweep.run(loss);
    krylov[w] = sweep.krylov;
    pcr[w] = sweep.pcr;
    steps[w] = sweep.steps;
    residual[w] = sweep.residual;
  });
  for (int w = 0; w < W; ++w) {
    out.krylov_iterations += krylov[w];
    out.pcr_iterations += pcr[w];
    out.backward_steps += steps[w];
    out.max_adjoint_residual = std::max(out.max_adjoint_residual, residual[w]);
  }
  const std::size_t stretch = static_cast<std::size_t>(tape.checkpoint_every) *
                              (tape.nq + tape.nv + tape.nwarm) * sizeof(double);
  out.peak_bytes_per_world = tape.bytes_per_world() + (tape.checkpoint_every > 1 ? stretch : 0);
  return out;
}

}  // namespace talon
