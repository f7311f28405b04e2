#ifdef TALON_SOLVER_EMBED
R"talon_c(
#endif
/* Talon solver loops, part 4b: when a step's Newton iteration has converged
 * (docs/solver_options.md, "Precision").
 *
 * The stop is θ = ‖L F‖² ≤ tolerance² (TALON_CONVERGED_MERIT, the tolerance in m/s), but no
 * iterate has a residual below the round-off of evaluating F itself, and in f32 that is above
 * the default tolerance, 1e-6 m/s. The position-level rows divide differences of the end pose
 * by h: joints c(q⁺)/h and contact gaps g(q⁺)/h subtract world coordinates of size |x|, the
 * servos' θ̇⁺ = Δθ/h compares orientations (unit quaternions, rounded to ~ε rad), so each
 * carries an error of ~ε |q| / h, with |q| the largest entry of q (m or, for the quaternion
 * components, 1); the momentum rows M̃⁻¹ r_dyn, in velocity units, ~ε |u|. ε is the type's
 * machine epsilon, 1.2e-7 in f32: at h = 0.05 that is 2.4e-6 m/s, and f32 Newton on the
 * three-wheeler's flat drive (models/three_wheeler_scene.xml) stalled at 0.3–1.5 ε (|q|/h + |u|),
 * its servo rows the largest, so four of its 30 steps never met the tolerance and split down
 * to h/32, where the noise is 32 times larger (bench/RESULTS.md, "f32 on the wheeled robot").
 *
 * So the bar is the larger of the tolerance and TALON_ROUNDOFF_ULPS · ε (|q|/h + |u|) at the
 * step's start. Read as positions: h times that velocity is TALON_ROUNDOFF_ULPS ulps of the
 * largest coordinate the step writes (or of 1 rad of orientation), all that a type resolving
 * |q| to ε|q| can say about the end pose. In f64 (ε = 2.2e-16) it exceeds 1e-6 m/s only where
 * |q|/h exceeds 1e9 per second: the f64 bar stays the tolerance.
 */

/* Above the stall level measured above (up to 1.5 ε (|q|/h + |u|)) by enough that Newton
 * stops on its first iterate in the noise instead of wandering in it. */
#define TALON_ROUNDOFF_ULPS 4

/* The merit (‖L F‖², (m/s)²) at which the step whose data is in ws->in has converged. */
static TALON_CALLABLE talon_real talon_converged_merit(const talon_workspace* ws) {
  const talon_real* q = ws->in + TALON_IN_Q_MINUS;
  const talon_real* u = ws->in + TALON_IN_U_MINUS;
  talon_real pose = 0, velocity = 0, roundoff;
  int i;
  for (i = 0; i < TALON_NQ; ++i) pose = TALON_FMAX(pose, TALON_FABS(q[i]));
  for (i = 0; i < TALON_NV; ++i) velocity = TALON_FMAX(velocity, TALON_FABS(u[i]));
  roundoff = TALON_ROUNDOFF_ULPS * TALON_EPSILON * (pose / ws->in[TALON_IN_H] + velocity);
  return TALON_FMAX((talon_real)TALON_CONVERGED_MERIT, roundoff * roundoff);
}
#ifdef TALON_SOLVER_EMBED
)talon_c"
#endif
