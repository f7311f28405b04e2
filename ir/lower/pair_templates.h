// Kernels per type, step 2 (docs/design.md, "Kernels per type"): the contact rows of one geom
// pair lowered once per pair *type*, as functions of one instance's inputs, and the table of
// a lowered program's instances of each type.
//
// A template is lowered by the same passes as a model (build_state, build_pair_rows) on a
// model of its own: the pair's two geoms, each on a free body of its own or on the world.
// Only what an instance differs by is an input: the two bodies' state, the geoms' placements
// and sizes (GeomInputs), the parameters the rows read, the rows' impulses and friction
// weights, h. So evaluated at an instance's values, a template gives that instance's rows of
// the unrolled program exactly (tests/ir/test_pair_templates.cpp checks it on the shipped
// models to round-off), and its derivatives, taken per template, are the instance's blocks
// of the program's.
//
// A mesh geom's template is its hull's: the collider builds the hull's faces from its vertices
// as numbers (polytope.h), so pairs of one type share a template when their meshes share a
// hull. A terrain pair's template reads the tangent plane the generated query leaves for its
// geom (program.h, TerrainProbe) as an input, like the bodies' states.
#pragma once

#include <array>
#include <compare>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "frontend/model.h"
#include "ir/lower/gradcheck.h"
#include "ir/lower/lower.h"
#include "ir/lower/program.h"

namespace talon::ir {

struct PairTemplateKey {
  GeomType a = GeomType::Plane, b = GeomType::Sphere;  // canonical order (contact_geometry.h)
  bool a_static = false, b_static = false;             // the geom is on the world
  bool friction = false;                               // condim >= 3: two friction rows a slot
  // A mesh geom's hull vertices in its frame (Model::geom_hull_vertices); empty otherwise.
  std::vector<std::array<double, 3>> hull_a, hull_b;
  auto operator<=>(const PairTemplateKey&) const = default;
};

// A template: the residual program of the pair alone, with the kernels of a model's program
// less what is per body (kernels.h, KernelSet::Template). Its inputs are a model program's
// (q_minus, u_minus, u_plus of its moving bodies, a's first; its rows' lambda, normal rows
// then two friction rows a slot; params; h; friction_w; a terrain pair's probe), with no
// ctrl, and `geom_inputs`: GeomInputs of a, then of b. Its r_dyn is what its rows add to their
// bodies' r_dyn, −Σ Jᵀλ; everything else means what the program's does, for the pair's rows.
// What a template lowers: a contact pair (here), a joint set (joint_templates.h) or a sim
// body's own dynamics (body_templates.h).
enum class TemplateKind { Pair, JointSet, Body };

struct PairTemplate {
  TemplateKind kind = TemplateKind::Pair;
  PairTemplateKey key;  // a contact pair's (default for the other kinds)
  std::string name;     // what it lowers: "plane-box (static plane)", "joint set hinge, limited"
  ResidualProgram program;
};

PairTemplate lower_pair_template(const PairTemplateKey& key, const LowerOptions& options);

// One pair of a program lowered by a template: where its inputs come from and where its
// outputs go.
// (A joint set's instance is one too: joint_templates.h; it has no geoms and has controls.)
struct PairInstance {
  int template_index = -1;        // into PairTemplates::templates
  int geom_a = -1, geom_b = -1;   // Model geoms, canonical order (-1: a joint set)
  std::vector<int> bodies;        // the moving sim bodies, a's first (template order)
  std::vector<int> rows;          // program constraint rows (lambda indices), template order
  std::vector<int> friction_w;    // program friction-weight indices of its slots
  std::vector<int> params;        // program parameter indices, template order
  std::vector<int> terrain;       // a terrain pair's probe: program `terrain` input indices
  std::vector<int> ctrl;          // program controls, template order (a joint set's)
  std::vector<double> constants;  // its constants: a pair's geoms' (2·GeomInputs::kInputs)
  // The program's Ĵ entries of the template's, in the template's order (a program lowered
  // with LowerOptions::pair_templates; empty otherwise).
  std::vector<int> jhat_entries;
};

struct PairTemplates {
  std::vector<PairTemplate> templates;
  std::vector<PairInstance> instances;  // the program's pairs, in slot order
};

// The templates a lowered program's pairs need and their instances. The program must have
// been lowered from `model` with `options` and unfolded parameters.
PairTemplates pair_templates(const Model& model, const ResidualProgram& program,
                             const LowerOptions& options);

// Sets program.pairs to `templates` (those of a program lowered with LowerOptions::
// pair_templates or joint_templates, lower.cpp) and appends the instances' Ĵ entries to the
// program's pattern (their values in the jhat kernel are zeros).
void attach_templates(PairTemplates templates, ResidualProgram& program);

// "plane-box (static plane)", "mesh (hull of 8 vertices)-box, frictionless": a pair
// template's types.
std::string pair_template_name(const PairTemplateKey& key);

// How one kernel of a program gathers an instance's inputs and adds its outputs:
//   gather[i]   the program kernel's input the template kernel's input i is, or -1 - k for
//               the instance's constant k (PairInstance::constants);
//   scatter[o]  the program kernel's output the template kernel's output o is added to.
struct InstanceMap {
  std::vector<int> gather, scatter;
};
InstanceMap instance_map(const ResidualProgram& program, const PairTemplate& t,
                         const PairInstance& instance, const std::string& kernel);

// What instance_map reads of a template's kernel and the program's kernel of the same name,
// the same for every instance of the template: where each of the template kernel's groups
// lies in the program kernel's, and which of an instance's lists fills it. Matching groups
// by name for each instance was 14 % of a cached run of 22 humanoids (bench/RESULTS.md,
// twenty-sixth session).
struct InstanceGroup {
  enum class Source {
    Constants,
    BodyVelocities,
    BodyPoses,
    BodyMasses,
    Rows,
    StateRows,
    Gap,
    Params,
    FrictionW,
    JhatEntries,
    Step,
    Terrain,
    Ctrl
  };
  Source source;
  int offset;  // in the program kernel's inputs or outputs
  int size;    // the template kernel's group's size
};
struct InstanceMapPlan {
  std::vector<InstanceGroup> inputs, outputs;
};
InstanceMapPlan instance_map_plan(const ResidualProgram& program, const PairTemplate& t,
                                  const std::string& kernel);
InstanceMap instance_map(const ResidualProgram& program, const InstanceMapPlan& plan,
                         const PairInstance& instance);

// Evaluates a template's kernel at its inputs (the caller's interpreter and cache).
using TemplateEvaluator = std::function<std::vector<double>(
    int template_index, const std::string& kernel, std::span<const double> inputs)>;

// Adds every instance's share of `kernel` to `outputs`, the program kernel's values at
// `inputs`. Nothing to add when program.pairs is null.
void add_pair_instances(const ResidualProgram& program, const std::string& kernel,
                        std::span<const double> inputs, std::vector<double>& outputs,
                        const TemplateEvaluator& evaluate);

// The point of `instance`'s template (its inputs) gathered from a point of the program.
KernelPoint instance_point(const PairTemplate& t, const PairInstance& instance,
                           const KernelPoint& program_point);

}  // namespace talon::ir
