#include "codegen/solver/solver_text.h"

#include <string_view>

#include "common/diagnostics.h"

namespace talon::codegen {
namespace {

#define TALON_SOLVER_EMBED
constexpr std::string_view kMath =
#include "codegen/solver/talon_math.h"
    ;
constexpr std::string_view kSchur =
#include "codegen/solver/talon_schur.h"
    ;
constexpr std::string_view kDense =
#include "codegen/solver/talon_dense.h"
    ;
constexpr std::string_view kPcr =
#include "codegen/solver/talon_pcr.h"
    ;
constexpr std::string_view kKrylov =
#include "codegen/solver/talon_krylov.h"
    ;
constexpr std::string_view kConvergence =
#include "codegen/solver/talon_convergence.h"
    ;
constexpr std::string_view kNewton =
#include "codegen/solver/talon_newton.h"
    ;
constexpr std::string_view kAdjoint =
#include "codegen/solver/talon_adjoint.h"
    ;
constexpr std::string_view kTerrainPatch =
#include "codegen/solver/talon_terrain_patch.h"
    ;
constexpr std::string_view kTerrain =
#include "codegen/solver/talon_terrain.h"
    ;
#undef TALON_SOLVER_EMBED

// The raw string holds "\n#endif\n<C text>#ifdef TALON_SOLVER_EMBED\n": the end of the
// opening marker block and the start of the closing one.
std::string_view strip_markers(std::string_view text) {
  constexpr std::string_view kOpen = "\n#endif\n", kClose = "#ifdef TALON_SOLVER_EMBED\n";
  TALON_INTERNAL_ASSERT(text.starts_with(kOpen) && text.ends_with(kClose),
                        "solver text without its embedding markers");
  return text.substr(kOpen.size(), text.size() - kOpen.size() - kClose.size());
}

}  // namespace

const std::string& solver_prelude_text() {
  static const std::string text = std::string(strip_markers(kMath));
  return text;
}

const std::string& solver_loop_text() {
  static const std::string text = [] {
    std::string all;
    for (std::string_view part : {kSchur, kDense, kPcr, kKrylov, kConvergence, kNewton, kAdjoint}) {
      all += strip_markers(part);
      all += '\n';
    }
    return all;
  }();
  return text;
}

const std::string& solver_terrain_text() {
  static const std::string text =
      std::string(strip_markers(kTerrainPatch)) + "\n" + std::string(strip_markers(kTerrain));
  return text;
}

}  // namespace talon::codegen
