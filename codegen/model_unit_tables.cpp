// The solver contract of a model unit: configuration macros and the static tables the loops
// read (see codegen/solver/talon_newton.h for the list).
#include <charconv>
#include <sstream>

#include "codegen/model_unit_parts.h"
#include "codegen/terrain_bvh.h"
#include "ir/ops.h"

namespace talon::codegen::unit {
namespace {

void macro(std::ostringstream& out, const char* name, long long value) {
  out << "#define " << name << " " << value << "\n";
}

void macro(std::ostringstream& out, const char* name, double value) {
  out << "#define " << name << " " << ir::c_literal(value) << "\n";
}

// `TALON_TABLE int name[n] = {...};` (at least one entry: C has no empty arrays), twelve
// entries a line, `append(text, value)` writing each. Built in a string and written once:
// 22_humanoids.xml's tables are 1.6 M entries, and an ostream insertion per entry was a
// tenth of its cache hit (bench/RESULTS.md, twenty-eighth session).
template <class T, class Append>
void table(std::ostringstream& out, const char* type, const char* name,
           const std::vector<T>& values, Append append) {
  std::string text = std::string("TALON_TABLE ") + type + " " + name + "[" +
                     std::to_string(array_size(static_cast<int>(values.size()))) + "] = {";
  text.reserve(text.size() + 8 * values.size() + 8);
  if (values.empty()) text += "0";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i % 12 == 0) text += "\n   ";
    text += ' ';
    append(text, values[i]);
    if (i + 1 < values.size()) text += ',';
  }
  text += "};\n";
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

}  // namespace

void int_table(std::ostringstream& out, const char* name, const std::vector<int>& values) {
  table(out, "int", name, values, [](std::string& text, int v) {
    char digits[16];
    text.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
  });
}

void real_table(std::ostringstream& out, const char* name, const std::vector<double>& values,
                ir::CPrecision precision) {
  table(out, "talon_real", name, values,
        [&](std::string& text, double v) { text += ir::c_literal(v, precision); });
}

namespace {

// The block index (into program.blocks, 0 = dynamics) of every constraint row.
std::vector<int> row_blocks(const ir::ResidualProgram& p) {
  std::vector<int> out(p.nrows, 0);
  for (std::size_t b = 0; b < p.blocks.size(); ++b)
    for (int r = p.blocks[b].begin; r < p.blocks[b].end; ++r)
      if (r >= p.ndyn()) out[r - p.ndyn()] = static_cast<int>(b);
  return out;
}

std::vector<int> unilateral_rows(const ir::ResidualProgram& p) {
  std::vector<int> out;
  for (const ir::ConstraintRowInfo& row : p.rows)
    out.push_back(row.kind == ir::RowKind::ContactNormal || row.kind == ir::RowKind::Limit);
  return out;
}

// The lowering names a geom's friction parameter "friction:<geom name>" ("friction:geom<i>"
// when unnamed); -1 when the parameters are folded into the code.
int friction_param(const Model& model, const ir::ResidualProgram& p, int geom) {
  const std::string& name = model.geom_name[geom];
  const std::string wanted = "friction:" + (name.empty() ? "geom" + std::to_string(geom) : name);
  for (std::size_t i = 0; i < p.params.size(); ++i)
    if (p.param_info[i].name == wanted) return static_cast<int>(i);
  TALON_INTERNAL_ASSERT(p.params.empty(), "no parameter " + wanted + " among unfolded params");
  return -1;
}

struct FrictionTables {
  std::vector<int> row, normal, mu_param;
  std::vector<double> mu_value;
};

FrictionTables friction_tables(const Model& model, const ir::ResidualProgram& p) {
  FrictionTables t;
  t.row.assign(p.nfriction, 0);
  t.normal.assign(p.nfriction, 0);
  t.mu_param.assign(2 * p.nfriction, -1);
  t.mu_value.assign(2 * p.nfriction, 0.0);
  for (const ir::ContactSlot& slot : p.slots) {
    const int f = slot.friction_index;
    if (f < 0) continue;
    TALON_INTERNAL_ASSERT(f < p.nfriction && slot.friction_row >= 0 && slot.normal_row >= 0,
                          "a frictional slot without its rows");
    t.row[f] = slot.friction_row;
    t.normal[f] = slot.normal_row;
    const std::array<int, 2> geoms = contact_friction_geoms(model, slot.geom_a, slot.geom_b);
    for (int side = 0; side < 2; ++side) {
      t.mu_param[2 * f + side] = friction_param(model, p, geoms[side]);
      t.mu_value[2 * f + side] = model.geom_friction[geoms[side]].x();
    }
  }
  return t;
}

// The contact sides whose geom a turn can carry past a face it never touched (the solver's
// talon_contact_turns_resolved, codegen/solver/talon_newton.h): per contact normal row and
// side on a sim body, the row, the body and the axis in its sim frame about which the geom is
// round (a capsule's or a cylinder's; zero for a box, an ellipsoid or a mesh, which no turn
// leaves the same). Spheres turn freely.
struct TurnTables {
  std::vector<int> row, body;
  std::vector<double> axis;
};

TurnTables turn_tables(const Model& model, const ir::ResidualProgram& p) {
  TurnTables t;
  for (const ir::ContactSlot& slot : p.slots)
    for (const int geom : {slot.geom_a, slot.geom_b}) {
      const GeomType type = model.geom_type[geom];
      if (model.geom_sim[geom] < 0 || type == GeomType::Sphere || type == GeomType::Plane ||
          type == GeomType::Terrain)
        continue;
      const bool round = type == GeomType::Capsule || type == GeomType::Cylinder;
      const Vec3 axis = round ? Vec3(model.geom_pose[geom].quat * Vec3(0, 0, 1)) : Vec3::Zero();
      t.row.push_back(slot.normal_row);
      t.body.push_back(model.geom_sim[geom]);
      t.axis.insert(t.axis.end(), {axis.x(), axis.y(), axis.z()});
    }
  return t;
}

void check_jhat_pattern(const ir::ResidualProgram& p) {
  TALON_INTERNAL_ASSERT(p.jhat_row.size() == p.jhat_col.size(), "jhat pattern sizes differ");
  for (std::size_t k = 0; k < p.jhat_row.size(); ++k)
    TALON_INTERNAL_ASSERT(p.jhat_row[k] >= 0 && p.jhat_row[k] < p.nrows && p.jhat_col[k] >= 0 &&
                              p.jhat_col[k] < p.ndyn(),
                          "jhat entry outside the matrix");
}

// The terrain plane under a geom is queried again after each solve until it stays put (the
// plane is a continuous function of where the geom ends, each round shrinking the mismatch),
// and the colliders choose their features again at the solution's end pose until the
// solution holds with them (talon_settle). Beyond these rounds the step is split instead.
constexpr int kSettleRounds = 4;

// The probes (ir::TerrainProbe) and the terrain's triangles with their BVH (terrain_bvh.h).
// One terrain per model: generate_model_unit refuses more.
void terrain_tables(std::ostringstream& out, const Model& model, const ir::ResidualProgram& p,
                    ir::CPrecision precision) {
  std::vector<int> body;
  std::vector<double> offset, reach;
  for (const ir::TerrainProbe& probe : p.terrain_probes) {
    body.push_back(probe.sim_body);
    offset.insert(offset.end(), probe.offset.data(), probe.offset.data() + 3);
    reach.push_back(probe.reach);
  }
  int_table(out, "talon_terrain_probe_body", body);
  real_table(out, "talon_terrain_probe_offset", offset, precision);
  real_table(out, "talon_terrain_probe_reach", reach, precision);
  const int terrain = p.terrain_probes.front().terrain_geom;
  out << render_terrain_tables(build_terrain_bvh(model.geom_terrain[terrain]), precision);
}

}  // namespace

std::string config_text(const Layout& l, const ModelUnitOptions& options) {
  const SolverOptions& s = options.solver;
  const bool cuda = options.target == UnitTarget::Cuda;
  std::ostringstream out;
  out << "/* ---- The solver loops' contract (codegen/solver/talon_newton.h) ---- */\n";
  macro(out, "TALON_SINGLE_PRECISION", options.precision == ir::CPrecision::Float ? 1LL : 0LL);
  out << "#define TALON_CALLABLE" << (cuda ? " __device__" : "") << "\n"
      << "#define TALON_TABLE static" << (cuda ? " __device__" : "") << " const\n";
  const std::pair<const char*, int> sizes[] = {
      {"TALON_NSIM", l.nsim},
      {"TALON_NV", l.nv},
      {"TALON_NQ", l.nq},
      {"TALON_NROWS", l.nrows},
      {"TALON_NNZ", l.nnz},
      {"TALON_NFRICTION", l.nfriction},
      {"TALON_NNORMAL", l.nnormal},
      {"TALON_NCTRL", l.nctrl},
      {"TALON_NPARAM", l.nparam},
      {"TALON_NBLOCKS", l.nblocks},
      {"TALON_IN_Q_MINUS", l.in_q_minus},
      {"TALON_IN_U_MINUS", l.in_u_minus},
      {"TALON_IN_U_PLUS", l.in_u_plus},
      {"TALON_IN_LAMBDA", l.in_lambda},
      {"TALON_IN_CTRL", l.in_ctrl},
      {"TALON_IN_PARAMS", l.in_params},
      {"TALON_IN_H", l.in_h},
      {"TALON_IN_TERRAIN", l.in_terrain},
      {"TALON_IN_Q_CHOOSE", l.in_q_choose},
      {"TALON_NTERRAIN_PROBES", l.nprobe},
      {"TALON_CHOOSES", l.chooses ? 1 : 0},
      {"TALON_TERRAIN_DATA", ir::TerrainProbe::kInputs},
      {"TALON_NTERRAIN_INPUTS", ir::TerrainProbe::kInputs * l.nprobe},
      {"TALON_IN_W", l.in_w},
      {"TALON_RES_DYN", l.res_dyn},
      {"TALON_RES_CON", l.res_con},
      {"TALON_RES_MERIT", l.res_merit},
      {"TALON_RES_Q_PLUS", l.res_q_plus},
      {"TALON_RES_W", l.res_w},
      {"TALON_RES_GAP", l.res_gap},
      {"TALON_RES_SIZE", l.res_size},
      {"TALON_LIN_JHAT", l.lin_jhat},
      {"TALON_LIN_C", l.lin_c},
      {"TALON_LIN_DIAG", l.lin_diag},
      {"TALON_NEWTON_ITERATIONS", s.newton_iterations},
      {"TALON_PCR_ITERATIONS", s.pcr_iterations},
      {"TALON_DENSE_ROWS", l.dense_rows},
      {"TALON_WARM_START", s.warm_start ? 1 : 0},
      {"TALON_MAX_SUBSTEP_DEPTH", s.max_substep_depth},
      {"TALON_LINE_SEARCH_STEPS", s.line_search_steps},
      {"TALON_KRYLOV_ITERATIONS", l.krylov},
      {"TALON_RESOLVE_SPLIT_STEPS", l.resolve_split_steps ? 1 : 0},
      {"TALON_JVP_IN_TANGENT_U", l.jvp_tangent_u},
      {"TALON_JVP_IN_TANGENT_LAMBDA", l.jvp_tangent_lambda},
      {"TALON_BACKWARD", l.adjoint > 0 ? 1 : 0},
      {"TALON_ADJOINT_ITERATIONS", l.adjoint},
      {"TALON_ADJOINT_RESTARTS", s.adjoint_restarts},
      {"TALON_MAX_SUBSTEPS", l.max_substeps},
      {"TALON_VJP_IN_COT_DYN", l.vjp_cot_dyn},
      {"TALON_VJP_IN_COT_CON", l.vjp_cot_con},
      {"TALON_VJPI_OUT_Q_MINUS", l.vjpi_q_minus},
      {"TALON_VJPI_OUT_U_MINUS", l.vjpi_u_minus},
      {"TALON_VJPI_OUT_CTRL", l.vjpi_ctrl},
      {"TALON_VJPI_OUT_PARAMS", l.vjpi_params},
      {"TALON_POSE_IN_COT_Q", l.pose_cot_q},
      {"TALON_POSE_OUT_Q_MINUS", l.pose_q_minus},
      {"TALON_POSE_OUT_U_PLUS", l.pose_u_plus},
      {"TALON_TRACE_CAPACITY", l.trace_capacity},
      {"TALON_TRACE_WIDTH", l.trace_width},
      {"TALON_TRACE_BLOCKS", kTraceBlockResiduals}};
  for (const auto& [name, value] : sizes) macro(out, name, static_cast<long long>(value));
  macro(out, "TALON_PCR_RELATIVE_TOLERANCE", s.pcr_tolerance * s.pcr_tolerance);
  macro(out, "TALON_KRYLOV_TOLERANCE", s.krylov_tolerance);
  // The bar below which a step has converged, in every precision; the solver raises it to
  // the residual's round-off floor where that is higher, which in practice means f32
  // (codegen/solver/talon_convergence.h, docs/solver_options.md "Precision").
  macro(out, "TALON_CONVERGED_MERIT", s.convergence_tolerance * s.convergence_tolerance);
  macro(out, "TALON_MAX_ROTATION", s.max_rotation);
  macro(out, "TALON_DIVERGED_MERIT", s.divergence_tolerance * s.divergence_tolerance);
  macro(out, "TALON_ADJOINT_TOLERANCE", s.adjoint_tolerance);
  // The terrain planes settle when none moves by more than this × h at its geom
  // (talon_settle): the convergence tolerance, a contact row's residual being its
  // gap over h.
  macro(out, "TALON_TERRAIN_TOLERANCE", s.convergence_tolerance);
  macro(out, "TALON_SETTLE_ROUNDS", static_cast<long long>(kSettleRounds));
  out << "typedef " << options.name << "_workspace talon_workspace;\n"
      << "typedef " << options.name << "_stats talon_stats;\n";
  return out.str();
}

// Ĵ's pattern as runs of one row (talon_schur.h, talon_live_entries): run r holds entries
// [talon_jhat_run_begin[r], talon_jhat_run_begin[r + 1]), all of row talon_jhat_run_row[r].
void jhat_run_tables(std::ostringstream& out, const ir::ResidualProgram& p) {
  std::vector<int> begin, row;
  for (std::size_t k = 0; k < p.jhat_row.size(); ++k)
    if (k == 0 || p.jhat_row[k] != p.jhat_row[k - 1]) {
      begin.push_back(static_cast<int>(k));
      row.push_back(p.jhat_row[k]);
    }
  begin.push_back(static_cast<int>(p.jhat_row.size()));
  out << "#define TALON_NJHAT_RUNS " << row.size() << "\n";
  int_table(out, "talon_jhat_run_begin", begin);
  int_table(out, "talon_jhat_run_row", row);
}

std::string table_text(const Model& model, const ir::ResidualProgram& p, const Layout& l,
                       const ModelUnitOptions& options) {
  check_jhat_pattern(p);
  const ir::CPrecision precision = options.precision;
  std::ostringstream out;
  out << "/* ---- Model tables ---- */\n";
  int_table(out, "talon_jhat_col", p.jhat_col);
  jhat_run_tables(out, p);
  int_table(out, "talon_row_block", row_blocks(p));
  int_table(out, "talon_row_unilateral", unilateral_rows(p));
  const FrictionTables friction = friction_tables(model, p);
  int_table(out, "talon_friction_row", friction.row);
  int_table(out, "talon_friction_normal", friction.normal);
  std::vector<int> normal_rows;  // every contact slot's normal row, in slot order
  for (const ir::ContactSlot& slot : p.slots) normal_rows.push_back(slot.normal_row);
  TALON_INTERNAL_ASSERT(static_cast<int>(normal_rows.size()) == l.nnormal,
                        "a normal row per contact slot");
  int_table(out, "talon_normal_row", normal_rows);
  int_table(out, "talon_friction_mu_param", friction.mu_param);
  real_table(out, "talon_friction_mu_value", friction.mu_value, precision);
  const TurnTables turns = turn_tables(model, p);
  out << "#define TALON_NTURN_SIDES " << turns.row.size() << "\n";
  int_table(out, "talon_turn_row", turns.row);
  int_table(out, "talon_turn_body", turns.body);
  real_table(out, "talon_turn_axis", turns.axis, precision);
  std::vector<double> params;
  for (int i = 0; i < l.nparam; ++i) params.push_back(p.param_info[i].value);
  real_table(out, "talon_default_params", params, precision);
  if (options.target == UnitTarget::C)  // NAME_initial_state; the CUDA entry points take q
    real_table(out, "talon_initial_q", p.reference_q, precision);
  if (l.nprobe > 0) terrain_tables(out, model, p, precision);
  return out.str();
}

}  // namespace talon::codegen::unit
