// Talon's C++ API for host programs: load a robot model (URDF or MJCF), compile it (through the
// same on-disk kernel cache as the `talon` command: the same model and options give the same
// library), step batches of independent worlds and differentiate whole rollouts.
//
//   talon::api::Result<talon::api::Simulator> sim = talon::api::Simulator::load("robot.xml");
//   if (!sim) return std::fputs(sim.error().message.c_str(), stderr), 1;
//   talon::api::Worlds worlds = sim->make_worlds(64);
//   talon::api::Status run = sim->rollout(worlds, 0.05, 100);
//
// Everything a host needs is this header (C++17, the standard library only) and libtalon:
// find_package(talon CONFIG REQUIRED) -> talon::talon, or `pkg-config talon`. Errors a caller
// can cause (a bad file, a bad option, an array of the wrong size, a world that does not
// exist) come back as values, Result<T> or Status, with a message; nothing here aborts on them.
//
// State layout (maximal coordinates, world frame): per body q = x, y, z (centre of mass),
// qw, qx, qy, qz (orientation), u = vx, vy, vz, ωx, ωy, ωz; body_names() gives the order.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace talon::api {

// Why a call failed: every error found, one per line ("file:line: error: <element>: message"
// for problems in a model file).
struct Error {
  std::string message;
};

// A value, or the Error that explains why there is none.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : error_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  // The value (std::bad_optional_access when !ok(): test ok() first).
  T& value() { return value_.value(); }
  const T& value() const { return value_.value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  const Error& error() const { return error_; }  // empty message when ok()

 private:
  std::optional<T> value_;
  Error error_;
};

// The outcome of a call that returns nothing: success, or the Error.
class [[nodiscard]] Status {
 public:
  Status() = default;                                               // success
  Status(Error error) : error_(std::move(error)), failed_(true) {}  // NOLINT

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool failed_ = false;
};

// The Newton solver of the step (docs/design.md, "The Newton iteration"). Anything left unset
// keeps the default the `talon` command uses (`talon simulate --help`; with
// Options::gradients, `talon gradient --help`), so unset settings never change the cache key.
struct SolverSettings {
  std::optional<int> newton_iterations;         // K: Newton updates per step at most, 1..10000
  std::optional<int> pcr_iterations;            // per preconditioner solve at most, 1..100000
  std::optional<int> krylov_iterations;         // FGMRES per Newton direction at most, 1..1000
  std::optional<double> krylov_tolerance;       // FGMRES's forcing term (> 0, relative)
  std::optional<int> dense_rows;                // factor the Schur system up to, 0..4096 (0: PCR)
  std::optional<int> line_search_steps;         // halvings of a direction at most, 0..60
  std::optional<int> max_substep_depth;         // halvings of an unconverged step, 0..8
  std::optional<double> convergence_tolerance;  // m/s (> 0)
  std::optional<bool> resolve_split_steps;      // re-solve a split step at full h
  std::optional<bool> broadphase;               // skip contact pairs that cannot touch
  std::optional<int> adjoint_iterations;        // backward FGMRES per cycle, 1..1000 (gradients)
  std::optional<double> adjoint_tolerance;      // backward relative residual > 0 (gradients)
};

struct Options {
  // Reading the model (URDF only).
  bool floating_base = false;              // attach the root link to the world with a free joint
  std::vector<std::string> package_paths;  // roots for package:// (then ROS_PACKAGE_PATH)
  // The scene around a robot whose file has none (URDF), as the command's --ground, --terrain,
  // --base-pos and --actuate (`talon simulate --help`): the same settings build the same library.
  bool ground = false;                            // a static plane z = 0, friction 1
  std::optional<std::array<double, 3>> base_pos;  // with floating_base: the root link's start
  std::vector<std::string> actuate;  // servos: "JOINT=velocity:KV" or "JOINT=position:KP"
  std::string terrain;  // a triangle mesh file (STL, OBJ, DAE): static terrain, world frame
  // Compiling it. gradients: the library also gets the backward step (record_rollout,
  // backward), with the tighter forward `talon gradient` uses (the same library it builds).
  bool gradients = false;
  SolverSettings solver;
  // Where compiled models are kept; empty: the `talon` command's ($TALON_CACHE_DIR, else
  // $XDG_CACHE_HOME/talon, else ~/.cache/talon).
  std::string cache_directory;
  int threads = 0;  // worlds are stepped on this many threads; 0: one per hardware thread
};

// What a world's last step ended with.
struct WorldStatus {
  bool non_finite = false;     // a state, control or result was NaN or infinite (sticky)
  bool diverged = false;       // Newton failed even at the finest substep (sticky; the state
                               // is the last good one)
  bool not_converged = false;  // the last step ended above the convergence tolerance
  bool bad_step = false;       // h was not a positive finite number
  // A stopped world is not stepped again until Worlds::set_state.
  bool stopped() const { return non_finite || diverged; }
  bool ok() const { return !non_finite && !diverged && !not_converged && !bad_step; }
};

// The solver's work on a world's last step.
struct StepStatistics {
  int newton_iterations = 0;
  int pcr_iterations = 0;  // summed over the Newton updates
  int substeps = 0;        // 1: the step was not split
  double residual = 0;     // of the returned iterate (m/s)
  bool converged = false;
};

class Simulator;

// W independent worlds of one model: state, controls and parameters per world, stored world
// by world (q() holds world 0's nq values, then world 1's, ...). Made by
// Simulator::make_worlds; usable only with the Simulator that made them (and they keep its
// compiled model alive).
class Worlds {
 public:
  Worlds(Worlds&&) noexcept;
  Worlds& operator=(Worlds&&) noexcept;
  ~Worlds();

  int count() const;
  int nq() const;
  int nv() const;
  int nctrl() const;
  int nparam() const;

  const std::vector<double>& q() const;            // [count · nq]
  const std::vector<double>& u() const;            // [count · nv]
  const std::vector<double>& controls() const;     // [count · nctrl]
  const std::vector<double>& params() const;       // [count · nparam]
  std::vector<WorldStatus> status() const;         // [count]
  std::vector<StepStatistics> statistics() const;  // [count]

  // Sets world w's state and clears its status and warm start (a new initial state).
  Status set_state(int world, const std::vector<double>& q, const std::vector<double>& u);
  Status set_controls(int world, const std::vector<double>& controls);
  Status set_params(int world, const std::vector<double>& params);

 private:
  friend class Simulator;
  struct Impl;
  explicit Worlds(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A recorded rollout (Simulator::record_rollout): what its backward pass needs, one state and
// warm start per step (or per checkpoint) of every world.
class Rollout {
 public:
  Rollout(Rollout&&) noexcept;
  Rollout& operator=(Rollout&&) noexcept;
  ~Rollout();

  int steps() const;
  int worlds() const;
  double h() const;
  std::size_t bytes_per_world() const;
  const std::vector<double>& final_q() const;  // [worlds · nq]: the state after the last step
  const std::vector<double>& final_u() const;  // [worlds · nv]

 private:
  friend class Simulator;
  struct Impl;
  explicit Rollout(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The gradient of a loss L with respect to every input of a rollout, per world.
struct Gradient {
  std::vector<double> dq0, du0;     // [worlds · nq | nv]: the initial state
  std::vector<double> dctrl;        // [steps · worlds · nctrl]: every step's controls
  std::vector<double> dparams;      // [worlds · nparam]: the parameters
  std::vector<int> failed_step;     // [worlds] -1, or the step whose recomputation failed (that
                                    // world's gradient is incomplete)
  double max_adjoint_residual = 0;  // the worst relative residual of a backward solve
};

// Sets the controls of step k (Worlds::set_controls) before it is taken.
using ControlSchedule = std::function<void(int step, Worlds& worlds)>;

// ∂L/∂(q_k, u_k) of `world` at state k (k = steps is the final state, 0 the initial one): add
// the loss's derivative into dq[0..nq) and du[0..nv). Called for k = steps, ..., 0, for
// different worlds concurrently (from the simulator's threads).
using StateLoss =
    std::function<void(int k, int world, const double* q, const double* u, double* dq, double* du)>;

class Simulator {
 public:
  // Reads (URDF or MJCF, chosen by the file's content), lowers and compiles the model, or
  // fetches its compiled library from the cache.
  static Result<Simulator> load(const std::string& path, const Options& options = {});

  Simulator(Simulator&&) noexcept;
  Simulator& operator=(Simulator&&) noexcept;
  ~Simulator();

  const std::string& name() const;
  int nq() const;
  int nv() const;
  int nctrl() const;
  int nparam() const;
  double timestep() const;                                // the model's own (s)
  const std::vector<std::string>& body_names() const;     // bodies of q and u, in order
  const std::vector<std::string>& control_names() const;  // actuators
  const std::vector<std::string>& param_names() const;    // e.g. "mass:box", "friction:..."
  // What loading said besides errors (skipped tags, approximations), one message each.
  const std::vector<std::string>& notes() const;

  // The compiled library: where it came from and what it is cached under.
  bool from_cache() const;
  double build_seconds() const;  // 0 when it came from the cache
  std::string cache_key() const;
  bool has_gradients() const;  // Options::gradients

  // `count` worlds at the model's reference pose, at rest, zero controls, the model's
  // parameters.
  Worlds make_worlds(int count) const;
  // One step of h (s) for every world not stopped; a world's trouble shows in its status.
  Status step(Worlds& worlds, double h) const;
  // `steps` steps; before_step(k, worlds) runs before step k.
  Status rollout(Worlds& worlds, double h, int steps,
                 const ControlSchedule& before_step = {}) const;
  // The smallest signed contact gap of every world after its last step (m; negative is
  // penetration; +inf without contacts).
  Result<std::vector<double>> min_contact_gaps(Worlds& worlds) const;

  // Gradients (Options::gradients): record_rollout steps like rollout() and keeps the tape
  // (every checkpoint_every-th state only, the rest recomputed in the backward pass);
  // backward sweeps it in reverse with the loss's derivatives.
  Result<Rollout> record_rollout(Worlds& worlds, double h, int steps,
                                 const ControlSchedule& before_step = {},
                                 int checkpoint_every = 1) const;
  Result<Gradient> backward(const Rollout& rollout, const StateLoss& loss) const;

 private:
  struct Impl;
  explicit Simulator(std::unique_ptr<Impl> impl);
  Status check(const Worlds& worlds) const;  // the worlds are this simulator's
  std::unique_ptr<Impl> impl_;
};

}  // namespace talon::api
