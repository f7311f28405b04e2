// MJCF default classes (MuJoCo 2.2.2 semantics, xml_native_reader.cc mjXReader::Default):
//   * the top-level <default> is the class "main"; every <default class="x"> nested in a
//     class starts as a copy of its parent *after* the parent's own elements were read;
//   * several top-level <default> sections all write into "main";
//   * an element uses the class named by its `class` attribute, else its body's childclass
//     (inherited down the body tree), else "main"; actuators and assets use `class` or
//     "main"; <freejoint> uses no class at all.
#pragma once

#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "frontend/mjcf/element_state.h"
#include "frontend/mjcf/xml_tree.h"

namespace talon::mjcf {

struct DefaultClass {
  std::string name;
  int parent = -1;
  JointState joint;
  GeomState geom;
  ActuatorState actuator;
  Vec3 mesh_scale = Vec3::Ones();
};

class DefaultClasses {
 public:
  DefaultClasses();  // just "main", with MuJoCo's built-in defaults

  // Reads the given top-level <default> sections, in order. Nested classes are visited
  // with an explicit stack (class trees may be deep).
  void read(const XmlTree& tree, const std::vector<int>& sections, Diagnostics& diag);

  static constexpr int kMain = 0;
  const DefaultClass& operator[](int index) const {
    return classes_[static_cast<std::size_t>(index)];
  }
  int find(const std::string& name) const;  // -1 if there is no such class

  // The class named by `node`'s `class` attribute, `fallback` when it has none; an unknown
  // name is reported and gives `fallback`.
  int class_of(const XmlNode& node, int fallback, Diagnostics& diag) const;

 private:
  void apply_element(const XmlNode& element, DefaultClass& target, Diagnostics& diag);

  std::vector<DefaultClass> classes_;
};

}  // namespace talon::mjcf
