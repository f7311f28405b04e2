// <worldbody>: the body tree, its joints and geoms, in MuJoCo's order.
//
// MuJoCo numbers bodies depth-first in document order (pre-order) and lists joints and
// geoms body by body, so a body's geoms come before its children's even when written
// after them, and the world's geoms (from every <worldbody> section) come first. We visit
// bodies with an explicit stack in that same order, so spec indices equal MuJoCo's ids
// (bodies: MuJoCo id - 1, the world being -1 here).
#include <algorithm>
#include <string>
#include <vector>

#include "frontend/mjcf/attributes.h"
#include "frontend/mjcf/body_elements.h"

namespace talon::mjcf {
namespace {

struct PendingBody {
  int node;
  int parent;  // spec body index, -1 = world
  int cls;     // default class inherited from the parent (childclass)
};

class BodyReader {
 public:
  explicit BodyReader(ReaderContext& ctx) : ctx_(ctx), tree_(ctx.tree), diag_(ctx.diag) {}

  void run() {
    std::vector<PendingBody> stack = read_world();
    std::reverse(stack.begin(), stack.end());
    while (!stack.empty()) {
      const PendingBody next = stack.back();
      stack.pop_back();
      std::vector<PendingBody> children = read_body(next);
      stack.insert(stack.end(), children.rbegin(), children.rend());
    }
  }

 private:
  std::vector<PendingBody> read_world();
  std::vector<PendingBody> read_body(const PendingBody& pending);

  ReaderContext& ctx_;
  const XmlTree& tree_;
  Diagnostics& diag_;
};

std::vector<PendingBody> BodyReader::read_world() {
  std::vector<PendingBody> bodies;
  InertiaSources unused;
  for (int section : ctx_.sections("worldbody")) {
    for (int c : tree_[section].children) {
      const XmlNode& child = tree_[c];
      if (child.name == "body") {
        bodies.push_back({c, -1, DefaultClasses::kMain});
      } else if (child.name == "geom") {
        read_geom_element(ctx_, child, -1, DefaultClasses::kMain, unused);
      } else if (child.name == "inertial" || child.name == "joint" || child.name == "freejoint") {
        report(diag_, child, "the world body cannot have <" + child.name + ">");
      } else {
        ctx_.defaults.class_of(child, DefaultClasses::kMain, diag_);  // site/camera/light
      }
    }
  }
  return bodies;
}

std::vector<PendingBody> BodyReader::read_body(const PendingBody& pending) {
  const XmlNode& node = tree_[pending.node];
  const int index = static_cast<int>(ctx_.spec.bodies.size());
  BodySpec body;
  read_string(node, "name", body.name);
  body.origin = origin_of(node);
  body.parent = pending.parent;
  read_exact(node, "pos", body.pose.pos.data(), 3, diag_);
  OrientationSpec orientation;
  read_orientation(node, orientation, diag_);
  body.pose.quat = resolve_frame(ctx_, node, orientation);
  bool mocap = false;
  if (read_bool(node, "mocap", mocap, diag_) && mocap)
    diag_.note(node.loc, node.label(),
               "mocap body: Talon treats it as a static body (its pose cannot be driven)");
  int cls = pending.cls;
  if (const std::string* childclass = node.attribute("childclass")) {
    cls = ctx_.defaults.find(*childclass);
    if (cls < 0) {
      report(diag_, node, "unknown default class '" + *childclass + "' (childclass)");
      cls = pending.cls;
    }
  }
  ctx_.spec.bodies.push_back(body);
  const std::size_t joints_before = ctx_.spec.joints.size();

  InertiaSources inertia;
  std::vector<PendingBody> children;
  for (int c : node.children) {
    const XmlNode& child = tree_[c];
    if (child.name == "body") {
      children.push_back({c, index, cls});
    } else if (child.name == "inertial") {
      inertia.inertial = &child;
    } else if (child.name == "freejoint") {
      read_freejoint_element(ctx_, child, index);
    } else if (child.name == "joint") {
      read_joint_element(ctx_, child, index, cls);
    } else if (child.name == "geom") {
      read_geom_element(ctx_, child, index, cls, inertia);
    } else {
      ctx_.defaults.class_of(child, cls, diag_);  // site/camera/light: only the class is checked
    }
  }
  resolve_body_inertia(ctx_, node, inertia, ctx_.spec.bodies[static_cast<std::size_t>(index)]);
  if (mocap && (pending.parent != -1 || ctx_.spec.joints.size() != joints_before))
    report(diag_, node, "a mocap body must be a child of the world without joints (MuJoCo rule)");
  return children;
}

}  // namespace

Quat resolve_frame(ReaderContext& ctx, const XmlNode& node, const OrientationSpec& orientation) {
  std::string why;
  const std::optional<Quat> quat = resolve_orientation(orientation, ctx.compiler.angles, why);
  if (!quat) {
    report(ctx.diag, node, why);
    return Quat::Identity();
  }
  return *quat;
}

void read_world(ReaderContext& ctx) {
  BodyReader(ctx).run();
}

}  // namespace talon::mjcf
