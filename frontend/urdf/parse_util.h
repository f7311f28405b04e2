// Parsing helpers of the URDF reader: strict numbers, attribute access with diagnostics,
// <origin> poses, and the rules for child elements (unique, known, or skipped with a note).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tinyxml2.h>

#include "common/diagnostics.h"
#include "common/math.h"

namespace talon::urdf {

using tinyxml2::XMLElement;

// Where the text came from and where problems are reported. Every diagnostic names the
// owning URDF element (e.g. "<joint name='hip'>") and the line of the element at fault.
struct ParseContext {
  std::string file;
  Diagnostics& diag;

  SourceLoc loc(const XMLElement* element) const { return {file, element->GetLineNum()}; }
  void error(const XMLElement* at, const std::string& owner, std::string message) const {
    diag.error(loc(at), owner, std::move(message));
  }
};

enum class Need { Optional, Required };

// "<link name='x'>": how diagnostics and spec origins name an element.
std::string describe(const XMLElement* element);

// One number in the C locale: the whole token must be consumed and the value finite.
// A leading '+' is accepted (urdfdom's std::stod accepts it too).
std::optional<double> parse_number(std::string_view token);

// Whitespace-separated tokens of an attribute value.
std::vector<std::string_view> split_tokens(std::string_view text);

// Attribute readers. An absent optional attribute leaves `out` unchanged and succeeds; an
// absent required one, or a malformed value, is reported and returns false.
bool read_string(const ParseContext& ctx, const XMLElement* element, const char* attribute,
                 const std::string& owner, std::string& out, Need need = Need::Optional);
bool read_number(const ParseContext& ctx, const XMLElement* element, const char* attribute,
                 const std::string& owner, double& out, Need need = Need::Optional);
bool read_vec3(const ParseContext& ctx, const XMLElement* element, const char* attribute,
               const std::string& owner, Vec3& out, Need need = Need::Optional);

// URDF's fixed-axis roll-pitch-yaw: R = Rz(yaw) * Ry(pitch) * Rx(roll).
Quat quat_from_rpy(const Vec3& rpy);

// The pose of `parent`'s <origin xyz rpy> child (identity when there is none).
Pose read_origin(const ParseContext& ctx, const XMLElement* parent, const std::string& owner);

// The only child of `parent` called `tag`, or null when there is none. A second one is
// reported (the URDF schema allows one; urdfdom would silently use the first).
const XMLElement* unique_child(const ParseContext& ctx, const XMLElement* parent, const char* tag,
                               const std::string& owner, Need need = Need::Optional);

// Notes each child of `parent` whose tag is not in `known`, once per tag name for the
// whole file ("skipping <gazebo> (not used by Talon)"): URDF files carry extension blocks
// for other tools that Talon has no use for.
void note_unknown_children(const ParseContext& ctx, const XMLElement* parent,
                           std::initializer_list<std::string_view> known, const std::string& owner);

}  // namespace talon::urdf
