// A body's mass, centre of mass and inertia, resolved by MuJoCo 2.2.2's rules
// (user_objects.cc mjCBody::Compile): an explicit <inertial>, or the body's geoms when
// compiler inertiafromgeom is "true", or "auto" (the default) and there is no <inertial>;
// then boundmass / boundinertia / balanceinertia.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "frontend/mjcf/geom_inertia.h"
#include "frontend/mjcf/reader_context.h"

namespace talon::mjcf {

// What a body offers for its inertia.
struct InertiaSources {
  const XmlNode* inertial = nullptr;  // the <inertial> element, if any
  std::vector<GeomMass> geoms;        // geoms inside compiler inertiagrouprange
  // The first mesh geom inside the group range whose mesh bounds no solid, and why.
  struct Meshless {
    const XmlNode* geom = nullptr;
    std::string why;
  };
  std::optional<Meshless> meshless;
};

// Fills body.mass / com / inertia / inertial_origin. Problems (a mesh whose inertia would
// be needed, massless geoms...) are reported against `body_node`'s or the geom's line.
void resolve_body_inertia(ReaderContext& ctx, const XmlNode& body_node,
                          const InertiaSources& sources, BodySpec& body);

}  // namespace talon::mjcf
