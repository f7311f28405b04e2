// Which geom pairs get contact slots: MuJoCo's static filter (engine_collision_driver.c,
// filterBodyPair and the contype/conaffinity test), applied to Talon's sim bodies (MuJoCo's
// weld bodies):
//   * (contype₁ & conaffinity₂) || (contype₂ & conaffinity₁);
//   * not the same sim body (two static geoms are both on the world);
//   * not parent and child sim bodies, unless one of them is the world;
//   * not an excluded body pair;
//   * not a mesh and another geom of its own kinematic tree (kNoMeshSelfCollision).
// MuJoCo then prunes pairs by bounding volumes at run time; Talon's slots are static, so
// every pair that passes gets its slots. Pairs between different kinematic trees grow
// quadratically with the number of trees, so LowerOptions::max_inter_tree_pairs caps them.
#include <map>
#include <set>
#include <string>

#include "ir/lower/contact_geometry.h"
#include "ir/lower/contact_pairs.h"

namespace talon::ir::lower {
namespace {

// A robot's links carry mesh geoms by the dozen, and every pair of them not joined by a joint
// would get slots (mesh–mesh 16, polytope_contacts.h; a quadruped's 13 mesh links make ~66
// pairs), each searching the hulls' faces; CAD meshes of links two joints apart also often
// overlap where they are built to, and a primitive foot or wheel may sit inside another
// link's hull. So a mesh collides with the world, and with other kinematic trees, not with
// geoms of its own tree (as PyBullet and Gazebo leave self-collision off by default).
constexpr const char* kNoMeshSelfCollision =
    "a mesh does not collide with geoms of its own kinematic tree";

std::vector<int> tree_roots(const Model& m) {
  std::vector<int> root(m.nsim);
  for (int s = 0; s < m.nsim; ++s)  // parents come before children
    root[s] = m.sim_parent[s] < 0 ? s : root[m.sim_parent[s]];
  return root;
}

bool filtered_by_bodies(const Model& m, int s1, int s2) {
  if (s1 == s2) return true;
  return s1 >= 0 && s2 >= 0 && (s1 == m.sim_parent[s2] || s2 == m.sim_parent[s1]);
}

bool filtered_by_masks(const Model& m, int g1, int g2) {
  return !((m.geom_contype[g1] & m.geom_conaffinity[g2]) ||
           (m.geom_contype[g2] & m.geom_conaffinity[g1]));
}

// Why the pair gets no slots, or empty when it gets them.
std::string missing_collider(const Model& m, const GeomPair& pair) {
  if (contact_slot_count(m.geom_type[pair.a], m.geom_type[pair.b]) == 0)
    return "no symbolic collider for the pair type";
  for (int g : {pair.a, pair.b})
    if (m.geom_type[g] == GeomType::Mesh && m.geom_hull_vertices[g].empty())
      return "a mesh without a convex hull: URDF meshes are not read yet, and a flat mesh has none";
  return {};
}

// Pairs skipped for one reason between two geom types: one note for all of them (a robot's
// meshes make hundreds), naming the first.
struct SkippedPairs {
  GeomPair first;
  int count = 0;
};
using SkippedByKind = std::map<std::string, SkippedPairs>;  // "type-type: why"

void record_skipped(const Model& m, const GeomPair& pair, const std::string& why,
                    SkippedByKind& skipped) {
  const std::string kind = std::string(geom_type_name(m.geom_type[pair.a])) + " and " +
                           geom_type_name(m.geom_type[pair.b]) + " geoms (" + why + ")";
  SkippedPairs& entry = skipped[kind];
  if (entry.count++ == 0) entry.first = pair;
}

void note_skipped(Context& ctx, const SkippedByKind& skipped) {
  for (const auto& [kind, pairs] : skipped) {
    ctx.note("no contact between " + kind + ": " + std::to_string(pairs.count) +
             (pairs.count == 1 ? " pair" : " pairs") + ", e.g. " + ctx.geom_label(pairs.first.a) +
             " and " + ctx.geom_label(pairs.first.b));
    ctx.skipped_pairs += pairs.count;
  }
}

}  // namespace

std::vector<GeomPair> contact_pairs(Context& ctx) {
  const Model& m = ctx.model;
  const std::vector<int> root = tree_roots(m);
  const std::set<std::pair<int, int>> excluded(m.exclude_sim_pairs.begin(),
                                               m.exclude_sim_pairs.end());
  std::vector<GeomPair> same_tree, other_trees;
  SkippedByKind skipped;
  for (int g1 = 0; g1 < m.ngeom; ++g1) {
    for (int g2 = g1 + 1; g2 < m.ngeom; ++g2) {
      const int s1 = m.geom_sim[g1], s2 = m.geom_sim[g2];
      if (filtered_by_bodies(m, s1, s2) || filtered_by_masks(m, g1, g2)) continue;
      if (excluded.count({std::min(s1, s2), std::max(s1, s2)})) continue;
      GeomPair pair{g1, g2};
      if (!canonical_pair_order(m.geom_type[g1], m.geom_type[g2])) std::swap(pair.a, pair.b);
      if (const std::string why = missing_collider(m, pair); !why.empty()) {
        record_skipped(m, pair, why, skipped);
        continue;
      }
      const bool inter_tree = s1 >= 0 && s2 >= 0 && root[s1] != root[s2];
      if (s1 >= 0 && s2 >= 0 && !inter_tree && m.geom_type[pair.b] == GeomType::Mesh) {
        record_skipped(m, pair, kNoMeshSelfCollision, skipped);
        continue;
      }
      (inter_tree ? other_trees : same_tree).push_back(pair);
    }
  }
  note_skipped(ctx, skipped);
  const int cap = ctx.options.max_inter_tree_pairs;
  if (cap >= 0 && static_cast<int>(other_trees.size()) > cap) {
    ctx.note("contacts between different kinematic trees are not generated: " +
             std::to_string(other_trees.size()) +
             " geom pairs exceed max_inter_tree_pairs = " + std::to_string(cap));
    ctx.skipped_pairs += static_cast<int>(other_trees.size());
    other_trees.clear();
  }
  same_tree.insert(same_tree.end(), other_trees.begin(), other_trees.end());
  return same_tree;
}

}  // namespace talon::ir::lower
