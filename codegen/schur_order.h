// The order of the Schur system's rows in the preconditioner's Cholesky factor
// (codegen/solver/talon_dense.h): reverse Cuthill–McKee over the rows' coupling.
#pragma once

#include <vector>

#include "ir/lower/program.h"

namespace talon::codegen {

// A permutation of the program's constraint rows: the factor's i-th row is model row
// order[i] (of those coupled at a linearisation). Two rows couple where they act on a common
// sim body (M̃⁻¹ in Ĵ M̃⁻¹ Ĵᵀ is block-diagonal in the bodies), so a body's rows form a clique. The
// factor fills in its rows' envelope, from the first column coupled to a row up to the
// diagonal (talon_dense.h), and the blocks' order (joints, limits, contacts, friction, servos)
// spreads a joint's rows over the whole matrix: a servo row at 150 couples to its joint's
// rows near 0. Reverse Cuthill–McKee (George & Liu, Computer Solution of Large Sparse
// Positive Definite Systems, 1981, ch. 4) numbers the rows breadth first from a peripheral
// one, neighbours by increasing degree, and reversed: the envelope stays near the bodies'
// cliques.
std::vector<int> schur_row_order(const ir::ResidualProgram& program);

}  // namespace talon::codegen
