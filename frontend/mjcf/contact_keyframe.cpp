// <contact><exclude> body pairs and <keyframe><key> states.
#include "frontend/mjcf/attributes.h"
#include "frontend/mjcf/reader_context.h"

namespace talon::mjcf {
namespace {

// A body by name: its spec index, -1 for MuJoCo's "world"; false (reported) if unknown.
bool find_body(const XmlNode& node, const char* attr, const ModelSpec& spec, int& body,
               Diagnostics& diag) {
  const std::string* name = node.attribute(attr);
  if (!name) {
    report(diag, node, std::string("attribute '") + attr + "' is required");
    return false;
  }
  if (*name == "world") {
    body = -1;
    return true;
  }
  for (std::size_t b = 0; b < spec.bodies.size(); ++b)
    if (spec.bodies[b].name == *name) {
      body = static_cast<int>(b);
      return true;
    }
  report(diag, node, "unknown body '" + *name + "' in '" + attr + "'");
  return false;
}

void read_exclude(const XmlNode& node, ReaderContext& ctx) {
  ExcludeSpec exclude;
  exclude.origin = origin_of(node);
  const bool first = find_body(node, "body1", ctx.spec, exclude.body1, ctx.diag);
  const bool second = find_body(node, "body2", ctx.spec, exclude.body2, ctx.diag);
  if (first && second) ctx.spec.excludes.push_back(exclude);
}

void read_key(const XmlNode& node, ReaderContext& ctx) {
  KeyframeSpec key;
  read_string(node, "name", key.name);
  key.origin = origin_of(node);
  double time = 0;
  read_double(node, "time", time, ctx.diag);
  read_numbers(node, "qpos", 0, -1, key.qpos, ctx.diag);
  read_numbers(node, "qvel", 0, -1, key.qvel, ctx.diag);
  read_numbers(node, "ctrl", 0, -1, key.ctrl, ctx.diag);
  // Talon has no activation states and does not drive mocap bodies: these must be empty.
  std::vector<double> unused;
  for (const char* attr : {"act", "mpos", "mquat"})
    if (read_numbers(node, attr, 0, -1, unused, ctx.diag) && !unused.empty())
      report(ctx.diag, node,
             std::string("unsupported: keyframe '") + attr +
                 "' (Talon models have no actuator activations and no driven mocap bodies)");
  ctx.spec.keyframes.push_back(key);
}

}  // namespace

void read_contact_excludes(ReaderContext& ctx) {
  for (int section : ctx.sections("contact"))
    for (int child : ctx.tree[section].children)
      if (ctx.tree[child].name == "exclude") read_exclude(ctx.tree[child], ctx);
}

void read_keyframes(ReaderContext& ctx) {
  for (int section : ctx.sections("keyframe"))
    for (int child : ctx.tree[section].children) read_key(ctx.tree[child], ctx);
}

}  // namespace talon::mjcf
