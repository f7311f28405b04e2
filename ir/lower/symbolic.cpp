#include "ir/lower/symbolic.h"

namespace talon::ir::lower {

V3 constant(Graph& g, const Vec3& v) {
  return {g.constant(v.x()), g.constant(v.y()), g.constant(v.z())};
}

M3 constant(Graph& g, const Mat3& m) {
  M3 out;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) out.m[r][c] = g.constant(m(r, c));
  return out;
}

Q4 constant(Graph& g, const Quat& q) {
  return {g.constant(q.w()), g.constant(q.x()), g.constant(q.y()), g.constant(q.z())};
}

V3 zero_vector(Graph& g) {
  return constant(g, Vec3(Vec3::Zero()));
}
M3 identity_matrix(Graph& g) {
  return constant(g, Mat3(Mat3::Identity()));
}

V3 operator+(const V3& a, const V3& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
V3 operator-(const V3& a, const V3& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
V3 operator-(const V3& a) {
  return {-a.x, -a.y, -a.z};
}
V3 operator*(Expr s, const V3& a) {
  return {s * a.x, s * a.y, s * a.z};
}
V3 operator*(double s, const V3& a) {
  return {s * a.x, s * a.y, s * a.z};
}

Expr dot(const V3& a, const V3& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

V3 cross(const V3& a, const V3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

Expr squared_norm(const V3& a) {
  return dot(a, a);
}

Expr smooth_norm(const V3& a, double eps) {
  return sqrt(squared_norm(a) + eps * eps);
}

V3 operator*(const M3& m, const V3& v) {
  V3 out;
  for (int r = 0; r < 3; ++r) out[r] = m(r, 0) * v.x + m(r, 1) * v.y + m(r, 2) * v.z;
  return out;
}

V3 transpose_times(const M3& m, const V3& v) {
  return transpose(m) * v;
}

M3 operator*(const M3& a, const M3& b) {
  M3 out;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      out.m[r][c] = a(r, 0) * b(0, c) + a(r, 1) * b(1, c) + a(r, 2) * b(2, c);
  return out;
}

M3 transpose(const M3& m) {
  M3 out;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) out.m[r][c] = m(c, r);
  return out;
}

V3 column(const M3& m, int c) {
  return {m(0, c), m(1, c), m(2, c)};
}

Q4 operator*(const Q4& a, const Q4& b) {
  return {
      a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
      a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

Q4 conjugate(const Q4& q) {
  return {q.w, -q.x, -q.y, -q.z};
}

Q4 normalized(const Q4& q) {
  const Expr inv = 1.0 / sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
  return {q.w * inv, q.x * inv, q.y * inv, q.z * inv};
}

M3 rotation_matrix(const Q4& q) {
  const Expr xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
  const Expr xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
  const Expr wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
  M3 r;
  r.m[0] = {1.0 - 2.0 * (yy + zz), 2.0 * (xy - wz), 2.0 * (xz + wy)};
  r.m[1] = {2.0 * (xy + wz), 1.0 - 2.0 * (xx + zz), 2.0 * (yz - wx)};
  r.m[2] = {2.0 * (xz - wy), 2.0 * (yz + wx), 1.0 - 2.0 * (xx + yy)};
  return r;
}

M3 symmetric(const std::array<Expr, 6>& s) {
  M3 out;
  out.m[0] = {s[0], s[3], s[4]};
  out.m[1] = {s[3], s[1], s[5]};
  out.m[2] = {s[4], s[5], s[2]};
  return out;
}

M3 symmetric_inverse(const M3& s) {
  // Adjugate over determinant; s is symmetric so the cofactor matrix is too.
  const Expr c00 = s(1, 1) * s(2, 2) - s(1, 2) * s(1, 2);
  const Expr c11 = s(0, 0) * s(2, 2) - s(0, 2) * s(0, 2);
  const Expr c22 = s(0, 0) * s(1, 1) - s(0, 1) * s(0, 1);
  const Expr c01 = s(0, 2) * s(1, 2) - s(0, 1) * s(2, 2);
  const Expr c02 = s(0, 1) * s(1, 2) - s(0, 2) * s(1, 1);
  const Expr c12 = s(0, 1) * s(0, 2) - s(0, 0) * s(1, 2);
  const Expr inv_det = 1.0 / (s(0, 0) * c00 + s(0, 1) * c01 + s(0, 2) * c02);
  return symmetric(
      {c00 * inv_det, c11 * inv_det, c22 * inv_det, c01 * inv_det, c02 * inv_det, c12 * inv_det});
}

Expr quadratic_form(const M3& s, const V3& v) {
  return s(0, 0) * v.x * v.x + s(1, 1) * v.y * v.y + s(2, 2) * v.z * v.z +
         2.0 * (s(0, 1) * v.x * v.y + s(0, 2) * v.x * v.z + s(1, 2) * v.y * v.z);
}

Expr clamp(Expr x, Expr lo, Expr hi) {
  return min(max(x, lo), hi);
}

Expr sign_nonnegative(Expr x) {
  Graph& g = x.graph();
  return select(lt(x, g.constant(0.0)), g.constant(-1.0), g.constant(1.0));
}

V3 select(Expr cond, const V3& if_true, const V3& if_false) {
  return {select(cond, if_true.x, if_false.x), select(cond, if_true.y, if_false.y),
          select(cond, if_true.z, if_false.z)};
}

}  // namespace talon::ir::lower
