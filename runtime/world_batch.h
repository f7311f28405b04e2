// Batched world storage: W independent worlds of one model, structure of arrays (one array
// per quantity, world-major inside it), so a backend steps world w on q[w·NQ ...] etc.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace talon::runtime {

// Per-world status flags (a bit set). Non-finite is sticky: such a world is not stepped again
// until the caller resets it (Simulator::reset_world); the others never notice.
enum WorldStatus : uint8_t {
  kWorldOk = 0,
  kWorldNonFinite = 1,     // a state, control or result was NaN or infinite
  kWorldNotConverged = 2,  // the last step ended above the convergence tolerance
  kWorldBadStep = 4,       // h was not a positive finite number
  kWorldDiverged = 8,      // Newton diverged even at the finest substep; the state is the
                           // last good one (sticky, like kWorldNonFinite)
};

// The flags that stop a world until Simulator::reset_world.
constexpr uint8_t kWorldFailed = kWorldNonFinite | kWorldDiverged;

struct WorldBatch {
  int count = 0;
  int nq = 0, nv = 0, nctrl = 0, nparam = 0, nstats = 0;
  std::vector<double> q;          // [count·nq]  per body: COM position, quaternion (w, x, y, z)
  std::vector<double> u;          // [count·nv]  per body: COM velocity, angular velocity (world)
  std::vector<double> ctrl;       // [count·nctrl]
  std::vector<double> params;     // [count·nparam] physical parameters θ (model values at first)
  std::vector<uint8_t> status;    // [count] WorldStatus bits
  std::vector<double> stats;      // [count·nstats] the last step's statistics (model_unit.h)
  std::vector<double> workspace;  // [count·workspace_doubles] solver workspaces (warm starts)
  std::size_t workspace_doubles = 0;

  std::span<double> q_of(int w) { return {q.data() + w * nq, static_cast<std::size_t>(nq)}; }
  std::span<double> u_of(int w) { return {u.data() + w * nv, static_cast<std::size_t>(nv)}; }
  std::span<double> ctrl_of(int w) {
    return {ctrl.data() + w * nctrl, static_cast<std::size_t>(nctrl)};
  }
  std::span<double> params_of(int w) {
    return {params.data() + w * nparam, static_cast<std::size_t>(nparam)};
  }
  std::span<const double> stats_of(int w) const {
    return {stats.data() + w * nstats, static_cast<std::size_t>(nstats)};
  }
  void* workspace_of(int w) { return workspace.data() + w * workspace_doubles; }
};

}  // namespace talon::runtime
