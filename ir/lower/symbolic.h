// Small symbolic linear algebra over IR expressions: 3-vectors, 3x3 matrices and
// quaternions whose entries are Exprs. The lowering writes its physics with these, so the
// formulas read like the maths; hash-consing shares every repeated subexpression.
//
// Quaternions are (w, x, y, z), Hamilton product, rotating body-frame vectors into the
// world: v_world = q ⊗ v ⊗ q*. Rotation matrices are row-major.
#pragma once

#include <array>

#include "common/math.h"
#include "ir/expr.h"

namespace talon::ir::lower {

struct V3 {
  Expr x, y, z;
  Expr operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
  Expr& operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }
};

struct M3 {
  std::array<std::array<Expr, 3>, 3> m;  // m[row][col]
  Expr operator()(int r, int c) const { return m[r][c]; }
};

struct Q4 {
  Expr w, x, y, z;
  V3 vec() const { return {x, y, z}; }
};

V3 constant(Graph& g, const Vec3& v);
M3 constant(Graph& g, const Mat3& m);
Q4 constant(Graph& g, const Quat& q);
V3 zero_vector(Graph& g);
M3 identity_matrix(Graph& g);

V3 operator+(const V3& a, const V3& b);
V3 operator-(const V3& a, const V3& b);
V3 operator-(const V3& a);
V3 operator*(Expr s, const V3& a);
V3 operator*(double s, const V3& a);
Expr dot(const V3& a, const V3& b);
V3 cross(const V3& a, const V3& b);
Expr squared_norm(const V3& a);
// sqrt(|a|² + eps²): a norm whose derivative stays finite at a = 0.
Expr smooth_norm(const V3& a, double eps);

V3 operator*(const M3& m, const V3& v);
V3 transpose_times(const M3& m, const V3& v);  // mᵀ v
M3 operator*(const M3& a, const M3& b);
M3 transpose(const M3& m);
V3 column(const M3& m, int c);

Q4 operator*(const Q4& a, const Q4& b);  // Hamilton product
Q4 conjugate(const Q4& q);
Q4 normalized(const Q4& q);
// The rotation matrix of a unit quaternion.
M3 rotation_matrix(const Q4& q);

// Symmetric 3x3 from its six unique entries (xx, yy, zz, xy, xz, yz).
M3 symmetric(const std::array<Expr, 6>& s);
// Inverse of a symmetric positive definite 3x3 through its adjugate (closed form).
M3 symmetric_inverse(const M3& s);
// vᵀ S v for a symmetric S.
Expr quadratic_form(const M3& s, const V3& v);

// min(max(x, lo), hi)
Expr clamp(Expr x, Expr lo, Expr hi);
// +1 where x >= 0, -1 where x < 0.
Expr sign_nonnegative(Expr x);
// Componentwise cond != 0 ? if_true : if_false.
V3 select(Expr cond, const V3& if_true, const V3& if_false);

}  // namespace talon::ir::lower
