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

// The contact rows of `pairs` (contacts.cpp): the normal rows of every slot, closed as the
// block "contact_normal", then the friction rows, closed as "friction". build_contact_rows
// runs it on contact_pairs; a per-type template on its one pair (pair_templates.cpp).
void build_pair_rows(Context& ctx, const std::vector<GeomPair>& pairs);

}  // namespace talon::ir::lower
