#include "frontend/urdf/tree.h"

#include <string>
#include <unordered_map>

namespace talon::urdf {
namespace {

// A URDF is one file, so a second element is located by its line alone.
std::string line_of(const SourceLoc& loc) {
  return "line " + std::to_string(loc.line);
}

class TreeBuilder {
 public:
  TreeBuilder(const ParseContext& ctx, const std::vector<UrdfLink>& links,
              const std::vector<UrdfJoint>& joints, LinkTree& tree)
      : ctx_(ctx), links_(links), joints_(joints), tree_(tree) {}

  bool build() {
    const std::size_t errors_before = ctx_.diag.error_count();
    index_links();
    index_joints();
    check_mimic_targets();
    connect_joints();
    find_root();
    report_cycles();
    if (tree_.root >= 0 && !extra_roots_) order_depth_first();
    return ctx_.diag.error_count() == errors_before;
  }

 private:
  const SpecOrigin& link_origin(int link) const { return links_[link].body.origin; }
  const SpecOrigin& joint_origin(int joint) const { return joints_[joint].joint.origin; }
  const std::string& link_name(int link) const { return links_[link].body.name; }
  const std::string& joint_name(int joint) const { return joints_[joint].joint.name; }

  void error(const SourceLoc& loc, const std::string& element, std::string message) {
    ctx_.diag.error(loc, element, std::move(message));
  }

  // Records each name's first index; reports later duplicates.
  template <class NameOf, class OriginOf>
  void index_names(int count, const char* kind, NameOf name_of, OriginOf origin_of,
                   std::unordered_map<std::string, int>& index) {
    for (int i = 0; i < count; ++i) {
      auto [it, inserted] = index.emplace(name_of(i), i);
      if (inserted) continue;
      const SpecOrigin& here = origin_of(i);
      error(here.loc, here.element,
            std::string("duplicate ") + kind + " name '" + name_of(i) + "' (first defined at " +
                line_of(origin_of(it->second).loc) + ")");
    }
  }
  void index_links() {
    index_names(
        static_cast<int>(links_.size()), "link", [&](int i) { return link_name(i); },
        [&](int i) -> const SpecOrigin& { return link_origin(i); }, link_index_);
  }
  void index_joints() {
    index_names(
        static_cast<int>(joints_.size()), "joint", [&](int i) { return joint_name(i); },
        [&](int i) -> const SpecOrigin& { return joint_origin(i); }, joint_index_);
  }

  void check_mimic_targets() {
    for (const UrdfJoint& urdf : joints_) {
      const JointSpec& joint = urdf.joint;
      if (!joint.mimic_joint.empty() && !joint_index_.count(joint.mimic_joint))
        error(joint.origin.loc, joint.origin.element,
              "<mimic> names unknown joint '" + joint.mimic_joint + "'");
    }
  }

  // The link a <parent>/<child> names, or -1 (reported) when there is none.
  int resolve(const LinkRef& ref, const SpecOrigin& joint, const char* role) {
    auto it = link_index_.find(ref.link);
    if (it != link_index_.end()) return it->second;
    error(ref.loc, joint.element,
          std::string("<") + role + "> names unknown link '" + ref.link + "'");
    return -1;
  }

  void connect_joints() {
    const int nlink = static_cast<int>(links_.size());
    tree_.parent_joint.assign(nlink, -1);
    tree_.parent_link.assign(nlink, -1);
    children_.assign(nlink, {});
    for (int j = 0; j < static_cast<int>(joints_.size()); ++j) {
      const UrdfJoint& joint = joints_[j];
      const SpecOrigin& origin = joint.joint.origin;
      const int parent = resolve(joint.parent, origin, "parent");
      const int child = resolve(joint.child, origin, "child");
      if (parent < 0 || child < 0) continue;
      if (parent == child) {
        error(joint.child.loc, origin.element,
              "joint connects link '" + link_name(child) + "' to itself (a cycle)");
        continue;
      }
      if (const int first = tree_.parent_joint[child]; first >= 0) {
        error(joint.child.loc, origin.element,
              "link '" + link_name(child) + "' has two parents: joint '" + joint_name(first) +
                  "' (" + line_of(joint_origin(first).loc) + ") already attaches it to link '" +
                  link_name(tree_.parent_link[child]) + "'");
        continue;
      }
      tree_.parent_joint[child] = j;
      tree_.parent_link[child] = parent;
      children_[parent].push_back(child);
    }
  }

  // A second link of an already used name is reported as a duplicate and takes no further
  // part: joints resolve names to the first link of that name.
  bool is_duplicate(int link) const { return link_index_.at(link_name(link)) != link; }

  void find_root() {
    for (int link = 0; link < static_cast<int>(links_.size()); ++link) {
      if (tree_.parent_joint[link] >= 0 || is_duplicate(link)) continue;
      if (tree_.root < 0) {
        tree_.root = link;
        continue;
      }
      error(link_origin(link).loc, link_origin(link).element,
            "two root links '" + link_name(tree_.root) + "' and '" + link_name(link) +
                "' (links that are no joint's child): a URDF robot is one tree");
      extra_roots_ = true;
    }
  }

  // Depth-first pre-order with an explicit stack: children are pushed in reverse so that
  // they come out in file order.
  void order_depth_first() {
    std::vector<int> stack{tree_.root};
    while (!stack.empty()) {
      const int link = stack.back();
      stack.pop_back();
      tree_.order.push_back(link);
      for (auto it = children_[link].rbegin(); it != children_[link].rend(); ++it)
        stack.push_back(*it);
    }
  }

  // A link whose chain of parents never ends at a root hangs off a cycle (every link has at
  // most one parent). Walking up the parents from each link, and never walking a link twice,
  // finds every cycle in linear time; each is reported once, at its first joint in the file.
  void report_cycles() {
    enum class State : char { Unseen, OnWalk, Done };
    std::vector<State> state(links_.size(), State::Unseen);
    for (int start = 0; start < static_cast<int>(links_.size()); ++start) {
      std::vector<int> walk;
      int link = start;
      while (link >= 0 && state[link] == State::Unseen) {
        state[link] = State::OnWalk;
        walk.push_back(link);
        link = tree_.parent_link[link];
      }
      if (link >= 0 && state[link] == State::OnWalk) report_cycle(walk, link);
      for (int visited : walk) state[visited] = State::Done;
    }
  }

  // `walk` ends in a cycle that starts at `entry`.
  void report_cycle(const std::vector<int>& walk, int entry) {
    std::size_t first = 0;
    while (walk[first] != entry) ++first;
    // The walk goes child -> parent; print the cycle parent -> child as the file reads.
    std::string path;
    int first_joint = -1;
    for (std::size_t i = walk.size(); i-- > first;) {
      path += "'" + link_name(walk[i]) + "' -> ";
      const int joint = tree_.parent_joint[walk[i]];
      if (first_joint < 0 || joint < first_joint) first_joint = joint;
    }
    path += "'" + link_name(walk.back()) + "'";
    const SpecOrigin& origin = joint_origin(first_joint);
    error(origin.loc, origin.element, "joints form a cycle: " + path);
  }

  const ParseContext& ctx_;
  const std::vector<UrdfLink>& links_;
  const std::vector<UrdfJoint>& joints_;
  LinkTree& tree_;
  std::unordered_map<std::string, int> link_index_, joint_index_;
  std::vector<std::vector<int>> children_;  // [links] child links, in joint (file) order
  bool extra_roots_ = false;
};

}  // namespace

bool build_link_tree(const ParseContext& ctx, const std::vector<UrdfLink>& links,
                     const std::vector<UrdfJoint>& joints, LinkTree& tree) {
  tree = LinkTree{};
  return TreeBuilder(ctx, links, joints, tree).build();
}

}  // namespace talon::urdf
