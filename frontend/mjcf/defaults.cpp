#include "frontend/mjcf/defaults.h"

#include <set>

#include "frontend/mjcf/attributes.h"

namespace talon::mjcf {
namespace {

const std::set<std::string, std::less<>> kActuatorKinds = {"general",  "motor",       "position",
                                                           "velocity", "intvelocity", "damper",
                                                           "cylinder", "muscle",      "adhesion"};

}  // namespace

DefaultClasses::DefaultClasses() {
  // Member defaults, not `{}`: a braced empty list leaves an Eigen vector (mesh_scale)
  // uninitialised.
  DefaultClass main;
  main.name = "main";
  classes_.push_back(main);
}

int DefaultClasses::find(const std::string& name) const {
  for (std::size_t i = 0; i < classes_.size(); ++i)
    if (classes_[i].name == name) return static_cast<int>(i);
  return -1;
}

int DefaultClasses::class_of(const XmlNode& node, int fallback, Diagnostics& diag) const {
  const std::string* name = node.attribute("class");
  if (!name) return fallback;
  const int found = find(*name);
  if (found < 0) {
    report(diag, node, "unknown default class '" + *name + "'");
    return fallback;
  }
  return found;
}

void DefaultClasses::apply_element(const XmlNode& element, DefaultClass& target,
                                   Diagnostics& diag) {
  if (element.name == "joint") {
    apply_joint_attributes(element, target.joint, diag);
  } else if (element.name == "geom") {
    apply_geom_attributes(element, target.geom, diag);
  } else if (element.name == "mesh") {
    read_exact(element, "scale", target.mesh_scale.data(), 3, diag);
  } else if (kActuatorKinds.count(element.name)) {
    apply_actuator_attributes(element, target.actuator, diag);
  }
  // site, camera, light, material, pair, equality, tendon defaults: nothing Talon uses.
}

void DefaultClasses::read(const XmlTree& tree, const std::vector<int>& sections,
                          Diagnostics& diag) {
  struct Pending {
    int node;
    int parent_class;  // -1: a top-level section, which writes into "main"
  };
  for (int section : sections) {
    std::vector<Pending> stack{{section, -1}};
    while (!stack.empty()) {
      const Pending next = stack.back();
      stack.pop_back();
      const XmlNode& node = tree[next.node];
      int index = kMain;
      if (next.parent_class < 0) {
        // MuJoCo names the top-level class after its `class` attribute when given.
        const std::string* name = node.attribute("class");
        if (name && !name->empty()) classes_[kMain].name = *name;
      } else {
        const std::string* name = node.attribute("class");
        if (!name || name->empty()) {
          report(diag, node, "a nested <default> needs a non-empty 'class' attribute");
          continue;
        }
        if (find(*name) >= 0) {
          report(diag, node, "repeated default class name '" + *name + "'");
          continue;
        }
        DefaultClass child = classes_[static_cast<std::size_t>(next.parent_class)];
        child.name = *name;
        child.parent = next.parent_class;
        index = static_cast<int>(classes_.size());
        classes_.push_back(std::move(child));
      }
      std::vector<int> nested;
      for (int c : node.children) {
        if (tree[c].name == "default")
          nested.push_back(c);
        else
          apply_element(tree[c], classes_[static_cast<std::size_t>(index)], diag);
      }
      for (auto it = nested.rbegin(); it != nested.rend(); ++it) stack.push_back({*it, index});
    }
  }
}

}  // namespace talon::mjcf
