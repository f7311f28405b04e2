#ifdef TALON_SOLVER_EMBED
R"talon_c(
#endif
/* Talon solver loops, part 1: scalar type and vector helpers.
 *
 * The files of codegen/solver/ are the solver loops of every Talon backend, written once as
 * portable C: valid C99 (the generated embedded unit, the CPU backend) and valid CUDA device
 * code (compiled by NVRTC together with a model's kernels). codegen/model_unit.cpp pastes
 * them, in the order talon_math.h, talon_schur.h, talon_pcr.h, talon_newton.h, after the
 * model's kernels and tables. The contract with the generated unit (what it defines before
 * this text) is listed in talon_newton.h.
 *
 * Every function is `static TALON_CALLABLE`: TALON_CALLABLE is empty in C and __device__ in
 * CUDA (the unit defines it). Only <math.h> functions are called (NVRTC provides them without
 * a header); no heap, no stdio, no recursion.
 */

#ifndef TALON_CALLABLE
#define TALON_CALLABLE
#endif

#if TALON_SINGLE_PRECISION
typedef float talon_real;
#define TALON_SQRT(x) sqrtf(x)
#define TALON_FABS(x) fabsf(x)
#define TALON_FMIN(a, b) fminf(a, b)
#define TALON_FMAX(a, b) fmaxf(a, b)
#define TALON_COS(x) cosf(x)
#define TALON_SIN(x) sinf(x)
/* Below this a denominator counts as zero; above TALON_HUGE a value counts as overflowing. */
#define TALON_TINY 1e-30f
#define TALON_HUGE 1e30f
#define TALON_EPSILON 1.1920929e-7f /* FLT_EPSILON: the spacing of floats at 1 */
#else
typedef double talon_real;
#define TALON_SQRT(x) sqrt(x)
#define TALON_FABS(x) fabs(x)
#define TALON_FMIN(a, b) fmin(a, b)
#define TALON_FMAX(a, b) fmax(a, b)
#define TALON_COS(x) cos(x)
#define TALON_SIN(x) sin(x)
#define TALON_TINY 1e-280
#define TALON_HUGE 1e280
#define TALON_EPSILON 2.220446049250313e-16 /* DBL_EPSILON */
#endif

/* x is neither NaN nor infinite (x - x is NaN for both), without isfinite, which C99 spells
 * as a macro and CUDA as a function. Valid because generated code is never built with
 * -ffast-math (the C compiler options say so). */
static TALON_CALLABLE int talon_finite(talon_real x) {
  return x - x == (talon_real)0;
}

/* Inlined wherever it is called: at -O1 clang left talon_dot a call in the Schur factor's
 * inner loop (bench/RESULTS.md, thirty-second session). */
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define TALON_INLINE __forceinline__
#elif defined(__GNUC__)
#define TALON_INLINE __attribute__((always_inline)) inline
#else
#define TALON_INLINE
#endif

/* Before an element-wise loop (each element's own arithmetic, in the same order, so the
 * results are the same to the bit): asks clang to vectorise it. The in-process unit is built
 * at -O1 (codegen/clang_compiler.h), whose pipeline vectorises only loops marked so;
 * vectorising the whole unit (-fvectorize) made its cold build of MuJoCo's humanoid 0.45 s
 * slower. */
#if defined(__clang__) && !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
#define TALON_VECTORIZE _Pragma("clang loop vectorize(enable)")
#else
#define TALON_VECTORIZE
#endif

/* Four partial sums: one running sum makes each addition wait for the one before it (the
 * code is built without -ffast-math, so the compiler may not reassociate it), and PCR's three
 * dot products per iteration over the humanoid's ~175 coupled rows were then most of its own
 * time; with four, a Newton update took 6 % less (bench/RESULTS.md). */
static TALON_CALLABLE TALON_INLINE talon_real talon_dot(const talon_real* a, const talon_real* b,
                                                        int n) {
  talon_real s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; ++i) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

/* x + R(q) o, the point o of a frame at x turned by the unit quaternion q = (w, v):
 * x + o + w t + v × t, t = 2 v × o. */
static TALON_CALLABLE void talon_frame_point(const talon_real* x, const talon_real* q,
                                             const talon_real* o, talon_real* p) {
  talon_real t[3];
  t[0] = 2 * (q[2] * o[2] - q[3] * o[1]);
  t[1] = 2 * (q[3] * o[0] - q[1] * o[2]);
  t[2] = 2 * (q[1] * o[1] - q[2] * o[0]);
  p[0] = x[0] + o[0] + q[0] * t[0] + q[2] * t[2] - q[3] * t[1];
  p[1] = x[1] + o[1] + q[0] * t[1] + q[3] * t[0] - q[1] * t[2];
  p[2] = x[2] + o[2] + q[0] * t[2] + q[1] * t[1] - q[2] * t[0];
}

static TALON_CALLABLE void talon_copy(talon_real* to, const talon_real* from, int n) {
  int i;
  for (i = 0; i < n; ++i) to[i] = from[i];
}

static TALON_CALLABLE void talon_fill(talon_real* to, talon_real value, int n) {
  int i;
  for (i = 0; i < n; ++i) to[i] = value;
}

static TALON_CALLABLE int talon_all_finite(const talon_real* a, int n) {
  int i;
  for (i = 0; i < n; ++i)
    if (!talon_finite(a[i])) return 0;
  return 1;
}
#ifdef TALON_SOLVER_EMBED
)talon_c"
#endif
