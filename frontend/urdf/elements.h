// The URDF <link> and <joint> elements, read into spec pieces before the tree is known.
#pragma once

#include <string>
#include <vector>

#include "frontend/spec.h"
#include "frontend/urdf/parse_util.h"

namespace talon::urdf {

struct UrdfLink {
  BodySpec body;  // name, origin and mass properties; parent and pose come from the tree
  bool has_inertial = false;
  std::vector<GeomSpec> geoms;  // the <collision> elements; body index set later
};

// A joint's <parent link='..'/> or <child link='..'/>.
struct LinkRef {
  std::string link;
  SourceLoc loc;
};

struct UrdfJoint {
  JointSpec joint;  // everything but the body index, which comes from the tree
  Pose origin;      // the child link's frame in the parent link's frame
  LinkRef parent, child;
};

// Reads a <link>. Mesh file names are resolved against `package_paths` (see package_path.h).
UrdfLink read_link(const ParseContext& ctx, const XMLElement* element,
                   const std::vector<std::string>& package_paths);

// Reads a <joint>; problems are reported to ctx.diag.
UrdfJoint read_joint(const ParseContext& ctx, const XMLElement* element);

}  // namespace talon::urdf
