// The URDF kinematic tree: links connected by joints, checked and ordered without recursion
// (URDF chains can be 100 000 links long).
#pragma once

#include <vector>

#include "frontend/urdf/elements.h"

namespace talon::urdf {

struct LinkTree {
  int root = -1;                  // link index of the one link that is no joint's child
  std::vector<int> order;         // every link, depth-first pre-order from the root;
                                  // children in the order their joints appear in the file
  std::vector<int> parent_joint;  // [links] joint whose child the link is; -1 for the root
  std::vector<int> parent_link;   // [links] that joint's parent link; -1 for the root
};

// Checks names (links and joints unique, joints name existing links, mimic targets exist)
// and shape (one root, one parent per link, no cycle); reports every problem to ctx.diag.
// Returns whether the links form one tree; `tree` is complete only then.
bool build_link_tree(const ParseContext& ctx, const std::vector<UrdfLink>& links,
                     const std::vector<UrdfJoint>& joints, LinkTree& tree);

}  // namespace talon::urdf
