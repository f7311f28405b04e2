// The readers of a body's <joint>, <freejoint> and <geom> children (body_reader.cpp walks
// the body tree and calls them). Each appends to ctx.spec in document order; `body` is the
// spec index of the enclosing body (-1 = the world), `body_class` the default class the
// body passes down (an element's own `class` attribute overrides it).
#pragma once

#include "frontend/mjcf/inertial.h"
#include "frontend/mjcf/reader_context.h"

namespace talon::mjcf {

void read_joint_element(ReaderContext& ctx, const XmlNode& node, int body, int body_class);
void read_freejoint_element(ReaderContext& ctx, const XmlNode& node, int body);
// Also records the geom's mass contribution in `inertia` when it counts for the body's
// inertia (compiler inertiagrouprange).
void read_geom_element(ReaderContext& ctx, const XmlNode& node, int body, int body_class,
                       InertiaSources& inertia);

// The rotation of an element's orientation attributes; reports a degenerate one and
// returns the identity.
Quat resolve_frame(ReaderContext& ctx, const XmlNode& node, const OrientationSpec& orientation);

}  // namespace talon::mjcf
