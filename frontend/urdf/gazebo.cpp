#include "frontend/urdf/gazebo.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace talon::urdf {
namespace {

// The number in <tag>...</tag> under `block`, if there is a valid one (else a note).
std::optional<double> read_child_number(const ParseContext& ctx, const XMLElement* block,
                                        const char* tag, const std::string& owner) {
  const XMLElement* child = block->FirstChildElement(tag);
  if (!child) return std::nullopt;
  const std::vector<std::string_view> tokens =
      split_tokens(child->GetText() ? child->GetText() : "");
  const std::optional<double> value =
      tokens.size() == 1 ? parse_number(tokens[0]) : std::optional<double>();
  if (!value || *value < 0) {
    ctx.diag.note(ctx.loc(child), owner,
                  std::string("<") + tag + "> is not a friction coefficient >= 0; ignored");
    return std::nullopt;
  }
  return value;
}

int body_named(const ModelSpec& spec, const std::string& name) {
  for (int b = 0; b < static_cast<int>(spec.bodies.size()); ++b)
    if (spec.bodies[b].name == name) return b;
  return -1;
}

void apply_block(const ParseContext& ctx, const XMLElement* block, ModelSpec& spec) {
  const std::string owner = describe(block);
  const std::optional<double> mu1 = read_child_number(ctx, block, "mu1", owner);
  const std::optional<double> mu2 = read_child_number(ctx, block, "mu2", owner);
  if (!mu1 && !mu2) return;
  const char* reference = block->Attribute("reference");
  const int body = reference ? body_named(spec, reference) : -1;
  if (body < 0) {
    ctx.diag.note(ctx.loc(block), owner,
                  "<mu1>/<mu2> of a <gazebo> block that names no link of this file; ignored");
    return;
  }
  const double mu = mu1.value_or(*mu2);
  if (mu1 && mu2 && *mu1 != *mu2)
    ctx.diag.note(ctx.loc(block), owner,
                  "anisotropic friction (mu1 " + std::to_string(*mu1) + ", mu2 " +
                      std::to_string(*mu2) + ") is read as isotropic mu1");
  for (GeomSpec& geom : spec.geoms) {
    if (geom.body != body) continue;
    geom.friction[0] = mu;
    geom.priority = std::max(geom.priority, 1);
    if (mu == 0) geom.condim = 1;
  }
}

}  // namespace

void apply_gazebo_friction(const ParseContext& ctx, const XMLElement* robot, ModelSpec& spec) {
  for (const XMLElement* block = robot->FirstChildElement("gazebo"); block;
       block = block->NextSiblingElement("gazebo")) {
    ctx.diag.note_once("urdf-gazebo", ctx.loc(block), describe(block),
                       "only a link's <mu1>/<mu2> is read (as its friction); the rest of "
                       "<gazebo> blocks (plugins, sensors, materials) is skipped");
    apply_block(ctx, block, spec);
  }
}

}  // namespace talon::urdf
