// The geom pairs that get contact slots (internal to ir/lower/; see contact_pairs.cpp).
#pragma once

#include <vector>

#include "ir/lower/context.h"

namespace talon::ir::lower {

struct GeomPair {
  int a = -1, b = -1;  // canonical order of their types (contact_geometry.h)
};

// Allowed pairs with a symbolic collider; notes (and counts in ctx.skipped_pairs) the rest.
std::vector<GeomPair> contact_pairs(Context& ctx);

}  // namespace talon::ir::lower
