// read_urdf: URDF text -> ModelSpec (see frontend/load.h).
//
// The URDF conventions mapped onto the spec's (MuJoCo's):
//   * a joint's <origin> places the child link's frame in the parent link's frame, and the
//     joint frame is the child frame: BodySpec::pose = origin, JointSpec::pos = 0, the axis
//     in child-frame coordinates;
//   * the root link is fixed to the world (a body without joint, which compile welds), or
//     gets a free joint with LoadOptions::floating_base; a root link named "world" without
//     <inertial> is the world itself (the usual way a URDF pins its robot down);
//   * fixed joints stay in the spec as JointType::Fixed (compile welds them) so that the
//     joint census counts them.
#include <string_view>
#include <unordered_set>

#include "common/read_file.h"
#include "frontend/load.h"
#include "frontend/urdf/elements.h"
#include "frontend/urdf/gazebo.h"
#include "frontend/urdf/tree.h"
#include "frontend/xml_depth.h"

namespace talon {
namespace urdf {
namespace {

// URDF needs 5 levels (robot/link/collision/geometry/mesh) and extension blocks such as
// <gazebo> plugins rarely exceed 10. 64 stays below tinyxml2 9's own limit of 100 so that
// this guard's message (with its line) is the one a user sees.
constexpr int kMaxXmlDepth = 64;

constexpr std::string_view kWorldLinkName = "world";

// The reader's message for a tinyxml2 failure: its error name and the detail after its
// own "Line number=N: " prefix (the line goes into the diagnostic's location instead).
std::string xml_error_message(const tinyxml2::XMLDocument& doc) {
  std::string detail = doc.ErrorStr() ? doc.ErrorStr() : "";
  const std::size_t colon = detail.find(": ");
  detail = colon == std::string::npos ? std::string() : ", " + detail.substr(colon + 2);
  std::string what = "malformed XML";
  if (doc.ErrorID() == tinyxml2::XML_ERROR_MISMATCHED_ELEMENT)
    what = "malformed XML: this element's closing tag does not match";
  if (doc.ErrorID() == tinyxml2::XML_ERROR_EMPTY_DOCUMENT) what = "empty document";
  return what + " (" + doc.ErrorName() + detail + ")";
}

// A joint name for the floating base that no joint of the file uses.
std::string unused_joint_name(const std::vector<UrdfJoint>& joints) {
  std::string name = "floating_base";
  for (bool clash = true; clash;) {
    clash = false;
    for (const UrdfJoint& joint : joints) clash = clash || joint.joint.name == name;
    if (clash) name += "_";
  }
  return name;
}

class SpecAssembler {
 public:
  SpecAssembler(const ParseContext& ctx, const LoadOptions& options,
                const std::vector<UrdfLink>& links, const std::vector<UrdfJoint>& joints,
                const LinkTree& tree)
      : ctx_(ctx), options_(options), links_(links), joints_(joints), tree_(tree) {}

  // Bodies in the tree's depth-first order; each body's joint right after the previous
  // body's, so joint and qpos order follow the tree as in MuJoCo.
  void fill(ModelSpec& spec) {
    const UrdfLink& root = links_[tree_.root];
    const bool root_is_world = root.body.name == kWorldLinkName && !root.has_inertial;
    if (root_is_world && options_.floating_base)
      ctx_.diag.note(root.body.origin.loc, root.body.origin.element,
                     "floating_base ignored: the root link 'world' is the world, and the "
                     "file's joints say how the robot attaches to it");
    std::vector<int> body_of_link(links_.size(), -1);
    spec.bodies.reserve(links_.size());
    spec.joints.reserve(joints_.size() + 1);
    for (int link : tree_.order) {
      if (!(link == tree_.root && root_is_world)) add_body(link, body_of_link, spec);
      add_geoms(link, body_of_link[link], spec);
    }
  }

 private:
  void add_body(int link, std::vector<int>& body_of_link, ModelSpec& spec) {
    BodySpec body = links_[link].body;
    const int index = static_cast<int>(spec.bodies.size());
    body_of_link[link] = index;
    const int joint = tree_.parent_joint[link];
    if (joint >= 0) {
      body.parent = body_of_link[tree_.parent_link[link]];
      body.pose = joints_[joint].origin;
      spec.joints.push_back(joints_[joint].joint);
      spec.joints.back().body = index;
    } else if (options_.floating_base) {
      spec.joints.push_back(floating_base_joint(index));
    }
    spec.bodies.push_back(std::move(body));
  }

  JointSpec floating_base_joint(int body) const {
    JointSpec joint;
    joint.name = unused_joint_name(joints_);
    joint.origin = links_[tree_.root].body.origin;
    joint.body = body;
    joint.type = JointType::Free;
    return joint;
  }

  // URDF collision names are optional and need not be unique, but spec geom names must
  // be: a name already taken is dropped (with a note) rather than failing a valid file.
  void add_geoms(int link, int body, ModelSpec& spec) {
    for (GeomSpec geom : links_[link].geoms) {
      geom.body = body;
      if (!geom.name.empty() && !geom_names_.emplace(geom.name).second) {
        ctx_.diag.note_once("urdf-duplicate-collision:" + geom.name, geom.origin.loc,
                            geom.origin.element,
                            "collision name '" + geom.name +
                                "' is used more than once; later uses are left unnamed");
        geom.name.clear();
      }
      spec.geoms.push_back(std::move(geom));
    }
  }

  const ParseContext& ctx_;
  const LoadOptions& options_;
  const std::vector<UrdfLink>& links_;
  const std::vector<UrdfJoint>& joints_;
  const LinkTree& tree_;
  std::unordered_set<std::string> geom_names_;
};

std::size_t count_children(const XMLElement* parent, const char* tag) {
  std::size_t count = 0;
  for (const XMLElement* e = parent->FirstChildElement(tag); e; e = e->NextSiblingElement(tag))
    ++count;
  return count;
}

// Whether every link and joint could be named, so that the tree can be checked without
// piling follow-on errors onto the ones already reported.
bool names_readable(const std::vector<UrdfLink>& links, const std::vector<UrdfJoint>& joints) {
  for (const UrdfLink& link : links)
    if (link.body.name.empty()) return false;
  for (const UrdfJoint& joint : joints)
    if (joint.joint.name.empty() || joint.parent.link.empty() || joint.child.link.empty())
      return false;
  return true;
}

Expected<ModelSpec> read_robot(const ParseContext& ctx, const XMLElement* robot,
                               const LoadOptions& options) {
  ModelSpec spec;
  spec.source_file = ctx.file;
  spec.triangle_violation_is_error = false;
  read_string(ctx, robot, "name", "<robot>", spec.name, Need::Required);
  const std::string owner = describe(robot);
  std::vector<UrdfLink> links;
  std::vector<UrdfJoint> joints;
  // Reserved up front: these elements hold Eigen members, which vectors copy on growth.
  links.reserve(count_children(robot, "link"));
  joints.reserve(count_children(robot, "joint"));
  for (const XMLElement* e = robot->FirstChildElement(); e; e = e->NextSiblingElement()) {
    const std::string_view tag = e->Name();
    if (tag == "link") links.push_back(read_link(ctx, e, options.package_paths));
    if (tag == "joint") joints.push_back(read_joint(ctx, e));
  }
  // <material> at the top level only names colours for <visual>.
  note_unknown_children(ctx, robot, {"link", "joint", "material", "gazebo"}, owner);
  if (links.empty()) ctx.error(robot, owner, "<robot> has no <link>");
  LinkTree tree;
  const bool tree_ok =
      !links.empty() && names_readable(links, joints) && build_link_tree(ctx, links, joints, tree);
  if (ctx.diag.has_errors() || !tree_ok) return ctx.diag;
  SpecAssembler(ctx, options, links, joints, tree).fill(spec);
  apply_gazebo_friction(ctx, robot, spec);
  spec.notes = ctx.diag;
  return Expected<ModelSpec>(std::move(spec), ctx.diag);
}

}  // namespace
}  // namespace urdf

Expected<ModelSpec> read_urdf_string(const std::string& xml, const std::string& path,
                                     const LoadOptions& options) {
  Diagnostics diag;
  const urdf::ParseContext ctx{path, diag};
  if (const int line = first_line_nested_deeper_than(xml, urdf::kMaxXmlDepth)) {
    diag.error({path, line}, "",
               "XML elements nested deeper than " + std::to_string(urdf::kMaxXmlDepth) +
                   " levels (URDF needs 5); refusing to parse");
    return diag;
  }
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml.data(), xml.size()) != tinyxml2::XML_SUCCESS) {
    diag.error({path, doc.ErrorLineNum()}, "", urdf::xml_error_message(doc));
    return diag;
  }
  const tinyxml2::XMLElement* robot = doc.RootElement();
  if (!robot) {  // e.g. a document of nothing but comments
    diag.error({path, 0}, "", "no XML element: a URDF file's root element is <robot>");
    return diag;
  }
  if (std::string_view(robot->Name()) != "robot") {
    diag.error(ctx.loc(robot), urdf::describe(robot),
               "not a URDF file: the root element must be <robot>");
    return diag;
  }
  // XML allows one root element; tinyxml2 would quietly accept more.
  if (const tinyxml2::XMLElement* extra = robot->NextSiblingElement()) {
    diag.error(ctx.loc(extra), urdf::describe(extra), "element after the closing </robot>");
    return diag;
  }
  return urdf::read_robot(ctx, robot, options);
}

Expected<ModelSpec> read_urdf(const std::string& path, const LoadOptions& options) {
  Expected<std::string> text = read_text_file(path, "cannot open file");
  if (!text) return text.diagnostics();
  return read_urdf_string(*text, path, options);
}

}  // namespace talon
