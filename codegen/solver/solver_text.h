// The solver loops' C text, embedded into the binary.
//
// codegen/solver/talon_*.h are written once as portable C (valid C99 and valid CUDA device
// code). Each file is wrapped in `#ifdef TALON_SOLVER_EMBED` / C++ raw-string markers, so
// solver_text.cpp can #include it as a string literal at build time while the file itself
// stays plain C; the markers are stripped here.
#pragma once

#include <string>

namespace talon::codegen {

// talon_math.h: the scalar type talon_real and vector helpers, which the unit's tables need.
const std::string& solver_prelude_text();

// talon_schur.h, talon_pcr.h, talon_krylov.h, talon_convergence.h, talon_newton.h and
// talon_adjoint.h, in that order: the loops, which read the unit's tables.
const std::string& solver_loop_text();

// talon_terrain.h: talon_terrain_query, the closest point of a static triangle mesh, for
// units with a terrain mesh; after talon_math.h and the tables of
// codegen/terrain_bvh.h's render_terrain_tables.
const std::string& solver_terrain_text();

}  // namespace talon::codegen
