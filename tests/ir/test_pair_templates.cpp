// The per-type pair templates (ir/lower/pair_templates.h) against the unrolled program: at
// random points, each instance's template, evaluated at the instance's gathered inputs,
// gives that instance's share of every kernel of the program - its rows (exact, frozen,
// merit), gaps, exact friction weights, Ĵ entries, C and the Schur diagonal, and its
// share of r_dyn, of the exact JVP and of both VJPs - to round-off; and its JVP in two stages
// equals its exact JVP to the bit.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <tuple>

#include "frontend/load.h"
#include "ir/lower/pair_templates.h"
#include "skip.h"
#include "test_lower_support.h"

using namespace talon;
using namespace talon::lower_test;

namespace {

using Vector = std::vector<double>;

const char* kHumanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml";

Model load(const std::string& path, const LoadOptions& options = {}) {
  Expected<Model> model = load_model(path, options);
  INFO(model.diagnostics().format());
  REQUIRE(model.ok());
  return std::move(*model);
}

double max_abs(const Vector& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

Vector concat(const Vector& a, const Vector& b) {
  Vector out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

Vector gather(const Vector& from, const std::vector<int>& indices) {
  Vector out;
  for (int i : indices) out.push_back(from[i]);
  return out;
}

// The u entries (6 a body) of the given bodies.
std::vector<int> body_entries(const std::vector<int>& bodies, int width = 6) {
  std::vector<int> out;
  for (int b : bodies)
    for (int i = 0; i < width; ++i) out.push_back(width * b + i);
  return out;
}

// An instance's share of a program's output: the output minus the same without the instance.
// Its rounding is that of the outputs it is the difference of, so `scale` is their largest
// entry.
struct Share {
  Vector values;
  double scale = 0;
};

// Compares the program's entries `at` of `program` with the template's `templated` (in the
// same order), within 1e-12 of the largest program entry of the group (or of `scale`).
void check_group(const std::string& what, const Vector& program, const std::vector<int>& at,
                 const Vector& templated, double scale = 0) {
  REQUIRE(at.size() == templated.size());
  scale = std::max({1.0, max_abs(program), scale});
  for (std::size_t k = 0; k < at.size(); ++k) {
    INFO(what << " entry " << k << ": program " << program[at[k]] << ", template " << templated[k]);
    CHECK(std::abs(program[at[k]] - templated[k]) <= 1e-12 * scale);
  }
}

void check_group(const std::string& what, const Share& program, const std::vector<int>& at,
                 const Vector& templated) {
  check_group(what, program.values, at, templated, program.scale);
}

// A program's kernels evaluated through their schedules (scheduled once), each output
// group at a point remembered: the instances of a scene share the program's values at the
// point and differ only in the values without themselves.
class Evaluator {
 public:
  explicit Evaluator(const ir::ResidualProgram& prog) : prog_(prog) {}

  const ir::ResidualProgram& program() const { return prog_; }

  Vector group(const std::string& kernel, const std::string& name, const ir::KernelPoint& p,
               const Vector& extra) {
    const ir::Kernel& k = prog_.kernel(kernel);
    auto key = std::make_tuple(kernel, &p, extra);
    auto found = values_.find(key);
    if (found == values_.end()) {
      auto s = schedules_.find(kernel);
      if (s == schedules_.end()) s = schedules_.emplace(kernel, ir::schedule(k.function)).first;
      found = values_.emplace(key, ir::evaluate(s->second, concat(p.base(), extra))).first;
    }
    const ir::Slice* slice = k.output(name);
    REQUIRE(slice != nullptr);
    return Vector(found->second.begin() + slice->offset,
                  found->second.begin() + slice->offset + slice->size);
  }

  void forget(const ir::KernelPoint& p) {
    std::erase_if(values_, [&](const auto& entry) { return std::get<1>(entry.first) == &p; });
  }

 private:
  const ir::ResidualProgram& prog_;
  std::map<std::string, ir::Schedule> schedules_;
  std::map<std::tuple<std::string, const ir::KernelPoint*, Vector>, Vector> values_;
};

// The program's point and the directions the JVP and VJPs are checked along.
struct ScenePoint {
  ir::KernelPoint point;
  Vector tangent_u, tangent_lambda, cotangent_dyn, cotangent_con;
};

// One instance checked at one point of the program.
class InstanceCheck {
 public:
  InstanceCheck(Evaluator& program, const ir::PairTemplate& t, const ir::PairInstance& instance,
                const ScenePoint& scene)
      : program_(program),
        prog_(program.program()),
        template_(t.program),
        tp_(t.program),
        instance_(instance),
        point_(scene.point),
        scene_(scene) {
    tpoint_ = ir::instance_point(t, instance, point_);
    // The program's point without the instance's impulses: its share of r_dyn is then 0.
    without_ = point_;
    for (int row : instance.rows) without_.lambda[row] = 0;
    for (int row : instance.rows) row_entries_.push_back(prog_.ndyn() + row);
  }
  ~InstanceCheck() { program_.forget(without_); }
  InstanceCheck(const InstanceCheck&) = delete;
  InstanceCheck& operator=(const InstanceCheck&) = delete;

  void residuals() {
    for (const char* group : {"r_con", "merit"})
      check_group(group, program_output("residual", group, point_), instance_.rows,
                  template_output("residual", group));
    const int first_normal = prog_.block("contact_normal")->begin - prog_.ndyn();
    std::vector<int> gaps;
    for (std::size_t k = 0; k < tp_.slots.size(); ++k)
      gaps.push_back(instance_.rows[k] - first_normal);
    check_group("gap", program_output("residual", "gap", point_), gaps,
                template_output("residual", "gap"));
    check_group("friction_w", program_output("residual", "friction_w", point_),
                instance_.friction_w, template_output("residual", "friction_w"));
    check_group("r_dyn share", dyn_share("residual", "r_dyn", {}, {}),
                body_entries(instance_.bodies), template_output("residual", "r_dyn"));
  }

  void newton_kernels() {
    const Vector& w = point_.friction_w;
    const Vector& tw = tpoint_.friction_w;
    for (const auto& [kernel, group] :
         {std::pair{"residual_frozen_w", "r_con"}, std::pair{"c_diag", "c_diag"},
          std::pair{"diag_a", "diag_a"}})
      check_group(kernel, program_output(kernel, group, point_, w), instance_.rows,
                  template_output(kernel, group, tw));
    // Ĵ: the template's entries at the program's (row, u index), and the program's entries of
    // the instance's rows are all among them. The template has more structural entries where
    // the program's constants (a plane's normal on the world, say) zero a derivative: those
    // are compared with 0 (the entry appended to the program's).
    Vector program = program_output("jhat", "values", point_, w);
    const int zero = static_cast<int>(program.size());
    program.push_back(0.0);
    const Vector templated = template_output("jhat", "values", tw);
    std::map<std::pair<int, int>, int> program_entry;
    for (int k = 0; k < zero; ++k) program_entry[{prog_.jhat_row[k], prog_.jhat_col[k]}] = k;
    std::vector<int> at;
    std::size_t matched = 0;
    for (std::size_t k = 0; k < templated.size(); ++k) {
      const int row = instance_.rows[tp_.jhat_row[k]];
      const int col = 6 * instance_.bodies[tp_.jhat_col[k] / 6] + tp_.jhat_col[k] % 6;
      const auto found = program_entry.find({row, col});
      at.push_back(found == program_entry.end() ? zero : found->second);
      matched += found != program_entry.end();
    }
    check_group("jhat", program, at, templated);
    std::size_t in_rows = 0;
    for (int row : prog_.jhat_row)
      in_rows += std::count(instance_.rows.begin(), instance_.rows.end(), row);
    CHECK(in_rows == matched);
  }

  void jvp() {
    const Vector& tangent_u = scene_.tangent_u;
    const Vector& tangent_lambda = scene_.tangent_lambda;
    const Vector templated =
        template_output("jvp_exact", "jvp",
                        concat(gather(tangent_u, body_entries(instance_.bodies)),
                               gather(tangent_lambda, instance_.rows)));
    const int ndyn_t = tp_.ndyn();
    const Vector template_dyn(templated.begin(), templated.begin() + ndyn_t);
    const Vector template_rows(templated.begin() + ndyn_t, templated.end());
    const Vector full =
        program_output("jvp_exact", "jvp", point_, concat(tangent_u, tangent_lambda));
    check_group("jvp rows", full, row_entries_, template_rows);
    // The r_dyn share: without the instance's impulses and their tangents it is 0.
    Vector other_lambda = tangent_lambda;
    for (int row : instance_.rows) other_lambda[row] = 0;
    check_group("jvp r_dyn share",
                dyn_share("jvp_exact", "jvp", concat(tangent_u, tangent_lambda),
                          concat(tangent_u, other_lambda)),
                body_entries(instance_.bodies), template_dyn);
  }

  // The VJPs along the instance's rows' cotangents alone (r_dyn's 0), where the program's
  // pull-back is the instance's; then along r_dyn's (the rows' 0), where its share is the
  // program's minus the same without its impulses. Apart, neither compares a difference of
  // sums over every row of a body (the humanoid's inertias: 1e-12 of 1e4) with the template.
  void vjps() {
    Vector rows_only(prog_.nrows, 0.0);
    for (int row : instance_.rows) rows_only[row] = scene_.cotangent_con[row];
    check_vjps(Vector(prog_.ndyn(), 0.0), rows_only, false);
    check_vjps(scene_.cotangent_dyn, Vector(prog_.nrows, 0.0), true);
  }

 private:
  void check_vjps(const Vector& cotangent_dyn, const Vector& cotangent_con, bool impulses) {
    INFO((impulses ? "along r_dyn" : "along the rows"));
    const Vector extra = concat(cotangent_dyn, cotangent_con);
    const Vector textra = concat(gather(cotangent_dyn, body_entries(instance_.bodies)),
                                 gather(cotangent_con, instance_.rows));
    auto program = [&](const std::string& kernel, const std::string& group) {
      return impulses ? share(kernel, group, extra, extra)
                      : Share{program_output(kernel, group, point_, extra), 0};
    };
    const Vector templated = template_output("vjp_exact", "vjp", textra);
    const int ndyn_t = tp_.ndyn();
    check_group("vjp lambda", program_output("vjp_exact", "vjp", point_, extra), row_entries_,
                Vector(templated.begin() + ndyn_t, templated.end()));
    check_group("vjp u_plus", program("vjp_exact", "vjp"), body_entries(instance_.bodies),
                Vector(templated.begin(), templated.begin() + ndyn_t));
    check_group("vjp q_minus", program("vjp_inputs", "q_minus"), body_entries(instance_.bodies, 7),
                template_output("vjp_inputs", "q_minus", textra));
    check_group("vjp u_minus", program("vjp_inputs", "u_minus"), body_entries(instance_.bodies),
                template_output("vjp_inputs", "u_minus", textra));
    // Parameters: the template's scatter-add into the program's (priority friction reads one
    // geom's friction twice); every other parameter's share is 0.
    const Vector params = template_output("vjp_inputs", "params", textra);
    Vector scattered(prog_.params.size(), 0.0);
    for (std::size_t k = 0; k < params.size(); ++k) scattered[instance_.params[k]] += params[k];
    std::vector<int> all(prog_.params.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
    check_group("vjp params", program("vjp_inputs", "params"), all, scattered);
  }

  Vector program_output(const std::string& kernel, const std::string& group,
                        const ir::KernelPoint& p, const Vector& extra = {}) {
    return program_.group(kernel, group, p, extra);
  }
  Vector template_output(const std::string& kernel, const std::string& group,
                         const Vector& extra = {}) {
    return template_.group(kernel, group, tpoint_, extra);
  }
  // An output at the point minus the same without the instance (its impulses and, through
  // `extra_without`, its tangents or cotangents): the instance's share.
  Share share(const std::string& kernel, const std::string& group, const Vector& extra,
              const Vector& extra_without) {
    Share out{program_output(kernel, group, point_, extra), 0};
    const Vector rest = program_output(kernel, group, without_, extra_without);
    out.scale = std::max(max_abs(out.values), max_abs(rest));
    for (std::size_t i = 0; i < rest.size(); ++i) out.values[i] -= rest[i];
    return out;
  }
  // The share of r_dyn (the first ndyn entries of the group).
  Share dyn_share(const std::string& kernel, const std::string& group, const Vector& extra,
                  const Vector& extra_without) {
    Share out = share(kernel, group, extra, extra_without);
    out.values.resize(prog_.ndyn());
    return out;
  }

  Evaluator& program_;
  const ir::ResidualProgram& prog_;
  Evaluator template_;
  const ir::ResidualProgram& tp_;
  const ir::PairInstance& instance_;
  const ir::KernelPoint& point_;
  const ScenePoint& scene_;
  ir::KernelPoint tpoint_, without_;
  std::vector<int> row_entries_;  // the instance's rows' entries of [r_dyn; r_con]
};

void check_scene(const std::string& path, const LoadOptions& options = {}) {
  INFO(path << (options.terrain.empty() ? "" : " on " + options.terrain));
  const Model model = load(path, options);
  const ir::ResidualProgram prog = lower_unrolled(model);
  const ir::PairTemplates templates = ir::pair_templates(model, prog, {});
  REQUIRE(!templates.instances.empty());
  std::mt19937_64 rng(7);
  ScenePoint scene{ir::random_kernel_point(prog, rng), ir::random_vector(prog.ndyn(), rng),
                   ir::random_vector(prog.nrows, rng), ir::random_vector(prog.ndyn(), rng),
                   ir::random_vector(prog.nrows, rng)};
  Evaluator program(prog);
  for (const ir::PairInstance& instance : templates.instances) {
    INFO("pair of geoms " << instance.geom_a << " and " << instance.geom_b);
    InstanceCheck check(program, templates.templates[instance.template_index], instance, scene);
    check.residuals();
    check.newton_kernels();
    check.jvp();
    check.vjps();
  }
}

// A kernel's extra inputs (after the base groups) at point p: W from the point, tangents and
// cotangents random.
Vector extra_inputs(const ir::Kernel& k, const ir::KernelPoint& p, std::mt19937_64& rng) {
  const int base = static_cast<int>(p.base().size());
  Vector extra;
  for (const ir::Slice& s : k.inputs) {
    if (s.offset < base) continue;
    const Vector values = s.name == "friction_w" ? p.friction_w : ir::random_vector(s.size, rng);
    extra.insert(extra.end(), values.begin(), values.end());
  }
  return extra;
}

// Ĵ as (row, u index) -> value, duplicates summed.
std::map<std::pair<int, int>, double> jhat_entries(const ir::ResidualProgram& prog,
                                                   const Vector& values) {
  std::map<std::pair<int, int>, double> out;
  for (std::size_t k = 0; k < values.size(); ++k)
    out[{prog.jhat_row[k], prog.jhat_col[k]}] += values[k];
  return out;
}

// Every instance's JVP in the two stages the unit runs (jvp_primal once per iterate,
// jvp_tangent once per product, ir/passes/stages.h) equals its jvp_exact to the bit.
void check_staged_jvps(const ir::ResidualProgram& templated, const ir::KernelPoint& p,
                       std::mt19937_64& rng) {
  for (const ir::PairInstance& instance : templated.pairs->instances) {
    const ir::PairTemplate& t = templated.pairs->templates[instance.template_index];
    INFO("template " << t.name);
    const ir::KernelPoint point = ir::instance_point(t, instance, p);
    const ir::Kernel& exact = t.program.kernel("jvp_exact");
    const int tangents = exact.input("tangent_u")->size + exact.input("tangent_lambda")->size;
    const Vector tangent = ir::random_vector(tangents, rng);
    const Vector cache = ir::evaluate_kernel(t.program, "jvp_primal", point);
    CHECK(ir::evaluate(t.program.kernel("jvp_tangent").function, concat(cache, tangent)) ==
          ir::evaluate_kernel(t.program, "jvp_exact", point, tangent));
  }
}

// A program lowered with LowerOptions::pair_templates, its kernels evaluated with its
// instances' shares (ir::evaluate_kernel), against the same model lowered unrolled.
void check_templated_program(const std::string& path, const LoadOptions& options = {}) {
  INFO(path << (options.terrain.empty() ? "" : " on " + options.terrain));
  const Model model = load(path, options);
  const ir::ResidualProgram unrolled = lower_unrolled(model);
  const ir::ResidualProgram templated = lower(model);  // templates are the default
  REQUIRE(templated.pairs != nullptr);
  REQUIRE(templated.nrows == unrolled.nrows);
  REQUIRE(templated.params.size() == unrolled.params.size());
  for (int i = 0; i < unrolled.nrows; ++i) CHECK(templated.rows[i].label == unrolled.rows[i].label);
  std::mt19937_64 rng(11);
  const ir::KernelPoint p = ir::random_kernel_point(unrolled, rng);
  for (const ir::Kernel& k : unrolled.kernels) {
    const std::string& name = k.function.name;
    INFO("kernel " << name);
    const Vector extra = extra_inputs(k, p, rng);
    const Vector expected = ir::evaluate_kernel(unrolled, name, p, extra);
    const Vector got = ir::evaluate_kernel(templated, name, p, extra);
    if (name != "jhat") {
      REQUIRE(got.size() == expected.size());
      std::vector<int> all(expected.size());
      for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
      check_group(name, expected, all, got);
      continue;
    }
    // The templates' extra structural entries (zero where the program folds a constant) are
    // compared with 0.
    const auto expected_entries = jhat_entries(unrolled, expected);
    Vector program;
    std::vector<int> at;
    Vector values;
    const auto got_entries = jhat_entries(templated, got);
    for (const auto& [entry, value] : got_entries) {
      const auto found = expected_entries.find(entry);
      at.push_back(static_cast<int>(program.size()));
      program.push_back(found == expected_entries.end() ? 0.0 : found->second);
      values.push_back(value);
    }
    check_group("jhat", program, at, values);
    for (const auto& [entry, value] : expected_entries) {
      INFO("jhat entry (" << entry.first << ", " << entry.second << ") of the unrolled program");
      CHECK(got_entries.count(entry) == 1);
    }
  }
  check_staged_jvps(templated, p, rng);
}

std::string shipped(const char* name) {
  return std::string(TALON_MODELS_DIR) + "/" + name;
}
std::string scene(const char* name) {
  return std::string(TALON_TEST_DATA_DIR) + "/scenes/" + name;
}

// Scenes whose every geom type (a mesh hull among them) stands on models/bumps.obj.
const char* kOnTerrain[] = {"primitive_pile.xml", "three_wheeler_scene.xml"};
LoadOptions on_bumps() {
  LoadOptions options;
  options.terrain = shipped("bumps.obj");
  return options;
}

}  // namespace

TEST_CASE("pair templates: a program lowered with templates has the unrolled kernels") {
  for (const char* name :
       {"primitive_pile.xml", "box_stack.xml", "push_box.xml", "three_wheeler_scene.xml"})
    check_templated_program(shipped(name));
  for (const char* name : {"cylinder_stacks.xml", "mesh_stacks.xml", "cans_on_mesh_table.xml"})
    check_templated_program(scene(name));
  for (const char* name : kOnTerrain) check_templated_program(shipped(name), on_bumps());
  check_templated_program(scene("mesh_stacks.xml"), on_bumps());
  if (std::filesystem::exists(kHumanoid)) check_templated_program(kHumanoid);
}

TEST_CASE("pair templates: every shipped scene's pairs equal the unrolled kernels") {
  for (const char* name : {"primitive_pile.xml", "box_stack.xml", "push_box.xml", "sliding_box.xml",
                           "sphere_drop.xml", "three_wheeler_scene.xml"})
    check_scene(shipped(name));
  for (const char* name :
       {"cylinder_stacks.xml", "mesh_stacks.xml", "cans_on_mesh_table.xml", "mesh_ledge.xml"})
    check_scene(scene(name));
}

TEST_CASE("pair templates: pairs on a terrain equal the unrolled kernels") {
  for (const char* name : kOnTerrain) check_scene(shipped(name), on_bumps());
  check_scene(scene("mesh_stacks.xml"), on_bumps());
}

TEST_CASE("pair templates: MuJoCo's humanoid's pairs equal the unrolled kernels", "[ir][large]") {
  if (!std::filesystem::exists(kHumanoid))
    TALON_SKIP("MuJoCo's humanoid.xml is not installed (Debian's libmujoco-samples)");
  check_scene(kHumanoid);
}

// The program's pairs by their template's key: how many pairs run each.
std::map<ir::PairTemplateKey, int> instances_by_key(const ir::PairTemplates& templates) {
  std::map<ir::PairTemplateKey, int> out;
  for (const ir::PairInstance& instance : templates.instances)
    ++out[templates.templates[instance.template_index].key];
  return out;
}

TEST_CASE("pair templates: one template per pair type, whatever the number of pairs") {
  const Model model = load(shipped("primitive_pile.xml"));
  const ir::ResidualProgram prog = lower_unrolled(model);
  const ir::PairTemplates templates = ir::pair_templates(model, prog, {});
  std::size_t slots = 0;
  for (const ir::PairInstance& instance : templates.instances)
    slots += templates.templates[instance.template_index].program.slots.size();
  CHECK(slots == prog.slots.size());  // every slot of the pile is an instance's
  CHECK(instances_by_key(templates).size() == templates.templates.size());
  CHECK(templates.templates.size() < templates.instances.size());
}

TEST_CASE(
    "pair templates: meshes with one hull share their templates; a terrain is one more type") {
  // mesh_stacks.xml: three geoms of one mesh (cube.obj at 0.1), on the floor, on each other
  // and on a box; on a terrain each of its four free geoms gets a terrain pair.
  const Model model = load(scene("mesh_stacks.xml"), on_bumps());
  const ir::ResidualProgram prog = lower_unrolled(model);
  const ir::PairTemplates templates = ir::pair_templates(model, prog, {});
  std::map<std::pair<GeomType, GeomType>, int> templates_of_types, instances_of_types;
  for (const auto& [key, instances] : instances_by_key(templates)) {
    ++templates_of_types[{key.a, key.b}];
    instances_of_types[{key.a, key.b}] += instances;
    if (key.b == GeomType::Mesh) CHECK(key.hull_b.size() == 8);  // the cube's corners
  }
  using T = GeomType;
  const std::pair<T, T> plane_mesh{T::Plane, T::Mesh}, mesh_mesh{T::Mesh, T::Mesh},
      terrain_mesh{T::Terrain, T::Mesh}, terrain_box{T::Terrain, T::Box};
  CHECK(templates_of_types[plane_mesh] == 1);
  CHECK(instances_of_types[plane_mesh] == 3);
  CHECK(templates_of_types[mesh_mesh] == 1);
  CHECK(templates_of_types[terrain_mesh] == 1);
  CHECK(instances_of_types[terrain_mesh] == 3);
  CHECK(instances_of_types[terrain_box] == 1);
  std::size_t slots = 0;
  for (const ir::PairInstance& instance : templates.instances) {
    slots += templates.templates[instance.template_index].program.slots.size();
    const bool terrain = model.geom_type[instance.geom_a] == T::Terrain;
    CHECK(instance.terrain.size() == (terrain ? ir::TerrainProbe::kInputs : 0u));
  }
  CHECK(slots == prog.slots.size());
}

// The joint sets' templates of a program lowered with templates (the default): name ->
// instances.
std::map<std::string, int> joint_set_instances(const ir::ResidualProgram& prog) {
  std::map<std::string, int> out;
  REQUIRE(prog.pairs != nullptr);
  for (const ir::PairInstance& instance : prog.pairs->instances) {
    const ir::PairTemplate& t = prog.pairs->templates[instance.template_index];
    if (t.kind == ir::TemplateKind::JointSet) ++out[t.name];
  }
  return out;
}

TEST_CASE("joint templates: every kind of joint set gives the unrolled kernels") {
  // Ball, slides and a hinge, three hinges, a skew pair, hinge then slide, two hinges on a
  // free body, a slide on the world; limits, springs, armature, motors (one clamped) and
  // servos; a planar joint, a slanted prismatic one and a damped continuous one (URDF).
  check_templated_program(scene("joint_kinds.xml"));
  check_templated_program(std::string(TALON_TEST_DATA_DIR) + "/urdf/planar_chain.urdf");
  check_templated_program(scene("pendulums.xml"));
  check_templated_program(scene("actuator_order.xml"));
}

TEST_CASE("joint templates: one template per kind of joint set, whatever its numbers") {
  // Four pendulums differing in anchor, axis, range, gain and pose: one kind.
  const std::map<std::string, int> pendulums =
      joint_set_instances(lower(load(scene("pendulums.xml"))));
  REQUIRE(pendulums.size() == 1);
  CHECK(pendulums.begin()->second == 4);
  CHECK(pendulums.begin()->first == "hinge (limited), on the world, 1 actuator");
  // Two arms whose servos are declared in opposite orders: one kind.
  const std::map<std::string, int> arms =
      joint_set_instances(lower(load(scene("actuator_order.xml"))));
  REQUIRE(arms.size() == 1);
  CHECK(arms.begin()->second == 2);
  if (!std::filesystem::exists(kHumanoid))
    TALON_SKIP("MuJoCo's humanoid.xml is not installed (Debian's libmujoco-samples)");
  // 22 humanoids have the kinds of one, each 22 times.
  const std::map<std::string, int> one = joint_set_instances(lower(load(kHumanoid)));
  const std::string many_path =
      std::filesystem::path(kHumanoid).replace_filename("22_humanoids.xml").string();
  if (!std::filesystem::exists(many_path)) TALON_SKIP("22_humanoids.xml is not installed");
  const std::map<std::string, int> many = joint_set_instances(lower(load(many_path)));
  REQUIRE(many.size() == one.size());
  for (const auto& [name, instances] : one) {
    INFO(name);
    CHECK(many.at(name) == 22 * instances);
  }
}

TEST_CASE("body templates: one template serves every body of a model") {
  // The pile's six free bodies and the wheeled robot's chassis, wheels and caster: one
  // template each model, one instance per sim body (its kernels are compared with the
  // unrolled ones above, with the pairs' and joint sets').
  for (const char* name : {"primitive_pile.xml", "three_wheeler_scene.xml"}) {
    INFO(name);
    const Model model = load(shipped(name));
    const ir::ResidualProgram prog = lower(model);
    REQUIRE(prog.pairs != nullptr);
    int templates = 0, instances = 0;
    for (const ir::PairTemplate& t : prog.pairs->templates)
      templates += t.kind == ir::TemplateKind::Body;
    for (const ir::PairInstance& instance : prog.pairs->instances)
      if (prog.pairs->templates[instance.template_index].kind == ir::TemplateKind::Body) {
        CHECK(instance.bodies == std::vector<int>{instances});
        ++instances;
      }
    CHECK(templates == 1);
    CHECK(instances == model.nsim);
  }
}
