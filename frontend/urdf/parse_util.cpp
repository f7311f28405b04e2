#include "frontend/urdf/parse_util.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace talon::urdf {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::string quoted_attribute(const char* attribute, const char* value) {
  return std::string(attribute) + "='" + value + "'";
}

// "<origin> attribute xyz='1 2': ", the start of a message about an attribute value.
std::string attribute_context(const XMLElement* element, const char* attribute, const char* value) {
  return "<" + std::string(element->Name()) + "> attribute " + quoted_attribute(attribute, value) +
         ": ";
}

// Parses every token of `value` into `out`; reports the first bad one.
bool parse_numbers(const ParseContext& ctx, const XMLElement* element, const char* attribute,
                   const std::string& owner, const char* value, std::size_t expected, double* out) {
  const std::vector<std::string_view> tokens = split_tokens(value);
  if (tokens.size() != expected) {
    ctx.error(element, owner,
              attribute_context(element, attribute, value) + "expected " +
                  std::to_string(expected) + (expected == 1 ? " number" : " numbers") + ", found " +
                  std::to_string(tokens.size()));
    return false;
  }
  for (std::size_t i = 0; i < expected; ++i) {
    const std::optional<double> number = parse_number(tokens[i]);
    if (!number) {
      ctx.error(element, owner,
                attribute_context(element, attribute, value) + "'" + std::string(tokens[i]) +
                    "' is not a finite number");
      return false;
    }
    out[i] = *number;
  }
  return true;
}

bool missing(const ParseContext& ctx, const XMLElement* element, const char* attribute,
             const std::string& owner, Need need) {
  if (need == Need::Optional) return true;
  // When the element is its own owner, the diagnostic's element prefix would repeat it.
  const std::string element_name = "<" + std::string(element->Name()) + ">";
  ctx.error(element, owner == element_name ? std::string() : owner,
            element_name + " has no " + attribute + " attribute");
  return false;
}

}  // namespace

std::string describe(const XMLElement* element) {
  std::string text = "<" + std::string(element->Name());
  if (const char* name = element->Attribute("name")) text += " name='" + std::string(name) + "'";
  return text + ">";
}

std::optional<double> parse_number(std::string_view token) {
  // std::from_chars takes no '+' sign: accept one in front of an unsigned number.
  if (token.size() > 1 && token[0] == '+' && token[1] != '-' && token[1] != '+')
    token.remove_prefix(1);
  double value = 0;
  const char* end = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(token.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::vector<std::string_view> split_tokens(std::string_view text) {
  std::vector<std::string_view> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    std::size_t end = i;
    while (end < text.size() && !is_space(text[end])) ++end;
    if (end > i) tokens.push_back(text.substr(i, end - i));
    i = end;
  }
  return tokens;
}

bool read_string(const ParseContext& ctx, const XMLElement* element, const char* attribute,
                 const std::string& owner, std::string& out, Need need) {
  const char* value = element->Attribute(attribute);
  if (!value || !*value) return missing(ctx, element, attribute, owner, need);
  out = value;
  return true;
}

bool read_number(const ParseContext& ctx, const XMLElement* element, const char* attribute,
                 const std::string& owner, double& out, Need need) {
  const char* value = element->Attribute(attribute);
  if (!value) return missing(ctx, element, attribute, owner, need);
  return parse_numbers(ctx, element, attribute, owner, value, 1, &out);
}

bool read_vec3(const ParseContext& ctx, const XMLElement* element, const char* attribute,
               const std::string& owner, Vec3& out, Need need) {
  const char* value = element->Attribute(attribute);
  if (!value) return missing(ctx, element, attribute, owner, need);
  Vec3 parsed;
  if (!parse_numbers(ctx, element, attribute, owner, value, 3, parsed.data())) return false;
  out = parsed;
  return true;
}

Quat quat_from_rpy(const Vec3& rpy) {
  return Quat(Eigen::AngleAxisd(rpy.z(), Vec3::UnitZ()) *
              Eigen::AngleAxisd(rpy.y(), Vec3::UnitY()) *
              Eigen::AngleAxisd(rpy.x(), Vec3::UnitX()));
}

Pose read_origin(const ParseContext& ctx, const XMLElement* parent, const std::string& owner) {
  Pose pose;
  const XMLElement* origin = unique_child(ctx, parent, "origin", owner);
  if (!origin) return pose;
  Vec3 rpy = Vec3::Zero();
  read_vec3(ctx, origin, "xyz", owner, pose.pos);
  read_vec3(ctx, origin, "rpy", owner, rpy);
  pose.quat = quat_from_rpy(rpy);
  return pose;
}

const XMLElement* unique_child(const ParseContext& ctx, const XMLElement* parent, const char* tag,
                               const std::string& owner, Need need) {
  const XMLElement* first = parent->FirstChildElement(tag);
  if (!first) {
    if (need == Need::Required)
      ctx.error(parent, owner,
                "<" + std::string(parent->Name()) + "> has no <" + tag + "> element");
    return nullptr;
  }
  if (const XMLElement* second = first->NextSiblingElement(tag))
    ctx.error(second, owner,
              "more than one <" + std::string(tag) + "> in <" + parent->Name() +
                  "> (first at line " + std::to_string(first->GetLineNum()) + ")");
  return first;
}

void note_unknown_children(const ParseContext& ctx, const XMLElement* parent,
                           std::initializer_list<std::string_view> known,
                           const std::string& owner) {
  for (const XMLElement* child = parent->FirstChildElement(); child;
       child = child->NextSiblingElement()) {
    const std::string_view tag = child->Name();
    if (std::find(known.begin(), known.end(), tag) != known.end()) continue;
    ctx.diag.note_once("urdf-skip:" + std::string(tag), ctx.loc(child), owner,
                       "skipping <" + std::string(tag) + "> (not used by Talon)");
  }
}

}  // namespace talon::urdf
