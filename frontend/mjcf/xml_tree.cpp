#include "frontend/mjcf/xml_tree.h"

#include <tinyxml2.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "frontend/xml_depth.h"

namespace talon::mjcf {
namespace {

namespace fs = std::filesystem;
using tinyxml2::XMLElement;

// One file of the document: the main file or an included one. `parent` links to the file
// that included it, so a cycle is found by walking up the chain.
struct SourceFile {
  std::string display_path;  // as diagnostics name it
  std::string identity;      // canonical path, to recognise the same file reached twice
  int parent = -1;
};

std::string file_identity(const std::string& path) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(fs::path(path), ec);
  return ec ? fs::path(path).lexically_normal().string() : canonical.string();
}

// "XML syntax error (XML_ERROR_MISMATCHED_ELEMENT): XMLElement name=body": tinyxml2's
// error name and detail, without its own line number (the diagnostic carries it).
std::string syntax_error_message(const tinyxml2::XMLDocument& doc) {
  std::string detail = doc.ErrorStr() ? doc.ErrorStr() : "";
  const std::size_t colon = detail.find(": ");
  detail = colon == std::string::npos ? std::string() : detail.substr(colon + 2);
  return std::string("XML syntax error (") + doc.ErrorName() + ")" +
         (detail.empty() ? "" : ": " + detail);
}

bool read_file(const std::string& path, std::string& text) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return false;
  std::ostringstream buffer;
  buffer << file.rdbuf();
  text = buffer.str();
  return static_cast<bool>(file) || file.eof();
}

// Converts tinyxml2 documents into an XmlTree, splicing <include>s. No recursion: an
// explicit stack visits elements in document order.
class TreeBuilder {
 public:
  explicit TreeBuilder(Diagnostics& diag) : diag_(diag) {}

  std::optional<XmlTree> build(const std::string& text, const std::string& path) {
    files_.push_back({path, file_identity(path), -1});
    const XMLElement* root = parse(text, path, SourceLoc{path, 0});
    if (!root) return std::nullopt;
    tree_.nodes.push_back(make_node(*root, 0, -1));
    push_children(*root, 0, 0);
    while (!stack_.empty()) {
      const Pending next = stack_.back();
      stack_.pop_back();
      visit(next);
    }
    if (diag_.has_errors()) return std::nullopt;
    return std::move(tree_);
  }

 private:
  struct Pending {
    const XMLElement* element;
    int parent_node;
    int file;
  };

  // Parses one file's text; reports and returns nullptr on failure.
  const XMLElement* parse(const std::string& text, const std::string& path,
                          const SourceLoc& requested_at) {
    const int deep_line = first_line_nested_deeper_than(text, max_xml_nesting());
    if (deep_line > 0) {
      diag_.error({path, deep_line}, "",
                  "XML elements are nested more than " + std::to_string(max_xml_nesting()) +
                      " levels deep; Talon's XML parser cannot read deeper documents");
      return nullptr;
    }
    auto doc = std::make_unique<tinyxml2::XMLDocument>();
    if (doc->Parse(text.data(), text.size()) != tinyxml2::XML_SUCCESS) {
      diag_.error({path, doc->ErrorLineNum()}, "", syntax_error_message(*doc));
      return nullptr;
    }
    const XMLElement* root = doc->RootElement();
    if (!root) {
      diag_.error(requested_at.line ? requested_at : SourceLoc{path, 0}, "",
                  "the file contains no XML element");
      return nullptr;
    }
    if (std::string_view(root->Name()) != "mujoco") {
      diag_.error({path, root->GetLineNum()}, std::string("<") + root->Name() + ">",
                  "the root element of an MJCF file must be <mujoco>");
      return nullptr;
    }
    documents_.push_back(std::move(doc));
    return root;
  }

  XmlNode make_node(const XMLElement& element, int file, int parent) const {
    XmlNode node;
    node.name = element.Name();
    for (const tinyxml2::XMLAttribute* a = element.FirstAttribute(); a; a = a->Next())
      node.attributes.push_back({a->Name(), a->Value()});
    node.loc = {files_[static_cast<std::size_t>(file)].display_path, element.GetLineNum()};
    node.parent = parent;
    return node;
  }

  void push_children(const XMLElement& element, int parent_node, int file) {
    std::vector<const XMLElement*> children;
    for (const XMLElement* c = element.FirstChildElement(); c; c = c->NextSiblingElement())
      children.push_back(c);
    for (auto it = children.rbegin(); it != children.rend(); ++it)
      stack_.push_back({*it, parent_node, file});
  }

  void visit(const Pending& pending) {
    if (std::string_view(pending.element->Name()) == "include") {
      include(pending);
      return;
    }
    const int index = static_cast<int>(tree_.nodes.size());
    tree_.nodes.push_back(make_node(*pending.element, pending.file, pending.parent_node));
    tree_.nodes[static_cast<std::size_t>(pending.parent_node)].children.push_back(index);
    push_children(*pending.element, index, pending.file);
  }

  // <include file="..."/>: the included file's root children take the include's place.
  void include(const Pending& pending) {
    const XmlNode here = make_node(*pending.element, pending.file, pending.parent_node);
    if (!check_include_attributes(here)) return;
    const std::string& requested = *here.attribute("file");
    const fs::path including_dir =
        fs::path(files_[static_cast<std::size_t>(pending.file)].display_path).parent_path();
    const fs::path resolved =
        fs::path(requested).is_absolute() ? fs::path(requested) : including_dir / requested;
    const std::string path = resolved.lexically_normal().string();
    const std::string identity = file_identity(path);
    if (!check_not_included(here, identity, pending.file)) return;
    std::string text;
    if (!read_file(path, text)) {
      diag_.error(here.loc, here.label(),
                  "cannot open included file '" + requested + "' (looked for '" + path + "')");
      return;
    }
    const int file = static_cast<int>(files_.size());
    files_.push_back({path, identity, pending.file});
    const XMLElement* root = parse(text, path, here.loc);
    if (root) push_children(*root, pending.parent_node, file);
  }

  bool check_include_attributes(const XmlNode& here) {
    for (const XmlAttribute& a : here.attributes)
      if (a.name != "file") {
        diag_.error(here.loc, here.label(), "unknown attribute '" + a.name + "'");
        return false;
      }
    if (!here.attribute("file") || here.attribute("file")->empty()) {
      diag_.error(here.loc, here.label(), "<include> needs a 'file' attribute");
      return false;
    }
    return true;
  }

  // MuJoCo includes each file at most once; a file that includes one of its own
  // includers is reported as a cycle, naming the chain.
  bool check_not_included(const XmlNode& here, const std::string& identity, int from_file) {
    std::vector<std::string> chain;
    for (int f = from_file; f >= 0; f = files_[static_cast<std::size_t>(f)].parent) {
      chain.push_back(files_[static_cast<std::size_t>(f)].display_path);
      if (files_[static_cast<std::size_t>(f)].identity == identity) {
        std::string cycle;
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) cycle += *it + " -> ";
        diag_.error(here.loc, here.label(), "include cycle: " + cycle + chain.back());
        return false;
      }
    }
    const bool seen = std::any_of(files_.begin(), files_.end(),
                                  [&](const SourceFile& f) { return f.identity == identity; });
    if (seen) {
      diag_.error(here.loc, here.label(),
                  "file '" + *here.attribute("file") +
                      "' is already included (MuJoCo includes each file at most once)");
      return false;
    }
    return true;
  }

  Diagnostics& diag_;
  XmlTree tree_;
  std::vector<SourceFile> files_;
  std::vector<std::unique_ptr<tinyxml2::XMLDocument>> documents_;
  std::vector<Pending> stack_;
};

}  // namespace

const std::string* XmlNode::attribute(std::string_view attr) const {
  for (const XmlAttribute& a : attributes)
    if (a.name == attr) return &a.value;
  return nullptr;
}

std::string XmlNode::label() const {
  const std::string* n = attribute("name");
  if (!n) return "<" + name + ">";
  return "<" + name + " name='" + *n + "'>";
}

int max_xml_nesting() {
  // tinyxml2 counts the document itself as a level and refuses the level it caps at.
  return std::min(1000, TINYXML2_MAX_ELEMENT_DEPTH - 4);
}

std::optional<XmlTree> load_xml_tree(const std::string& text, const std::string& path,
                                     Diagnostics& diag) {
  return TreeBuilder(diag).build(text, path);
}

}  // namespace talon::mjcf
