// XmlTree: an MJCF document (with every <include> spliced in) as a flat, immutable tree.
//
// The reader never walks tinyxml2 nodes directly: loading converts the DOM into this tree
// without recursion, so later stages can iterate with explicit stacks and every node knows
// the file and line it came from (an included file's nodes name the included file).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostics.h"

namespace talon::mjcf {

struct XmlAttribute {
  std::string name;
  std::string value;
};

struct XmlNode {
  std::string name;
  std::vector<XmlAttribute> attributes;  // in document order
  SourceLoc loc;
  int parent = -1;            // index in XmlTree::nodes; -1 for the root
  std::vector<int> children;  // element children in document order, includes spliced in

  // The attribute's text, or nullptr when the element does not have it.
  const std::string* attribute(std::string_view attr) const;
  // "<body name='torso'>", or "<geom>" for an element without a name: how diagnostics
  // name the element.
  std::string label() const;
};

struct XmlTree {
  std::vector<XmlNode> nodes;  // nodes[0] is the root element
  const XmlNode& root() const { return nodes.front(); }
  const XmlNode& operator[](int index) const { return nodes[static_cast<std::size_t>(index)]; }
};

// The deepest element nesting Talon accepts. tinyxml2 parses (and frees) documents
// recursively and caps nesting itself; staying below its cap lets Talon give its own error
// with the offending line instead of a bare parser failure, whatever tinyxml2 build is used.
int max_xml_nesting();

// Parses `text` (named `path` in diagnostics; relative <include> files are resolved against
// the directory of the file that includes them), splices includes, and returns the tree.
// On failure reports errors in `diag` and returns nothing.
std::optional<XmlTree> load_xml_tree(const std::string& text, const std::string& path,
                                     Diagnostics& diag);

}  // namespace talon::mjcf
