// The MJCF schema of MuJoCo 2.2.2 (which elements may appear where, with which
// attributes), checked before anything is read, as MuJoCo does (xml_native_reader.cc's
// schema table, xml_util.cc mjXSchema::Check).
#pragma once

#include "common/diagnostics.h"
#include "frontend/mjcf/xml_tree.h"

namespace talon::mjcf {

// Reports, for every element of the tree:
//   * "unknown element <x>" / "unknown attribute 'y'" for anything outside the schema;
//   * "element <x> may appear only once here" for repeated unique elements;
//   * "unsupported: ..." for valid MJCF that changes the dynamics in ways Talon does not
//     simulate (tendons, equality constraints, composites, explicit contact pairs, and the
//     newer plugin/flexcomp/replicate/frame elements); their contents are not checked;
//   * one note per model when MuJoCo's soft-contact parameters (solref, solimp, margin...)
//     appear, since Talon's contact is hard.
void check_schema(const XmlTree& tree, Diagnostics& diag);

}  // namespace talon::mjcf
