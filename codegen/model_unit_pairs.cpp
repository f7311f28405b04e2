// Kernels per type in a model unit (docs/design.md, "Kernels per type", step 4): a program
// lowered with templates keeps its contact pairs' and joint sets' rows out of its kernels
// (zeros there), and the unit adds them back per instance. For each unit kernel K the
// templates have a share of, talon_unit_K(in, out, separation) is
//   talon_kernel_K_unrolled(in, out);          the program's own kernel
//   for each template T, for each of its instances i:
//     tin[k] = in[gather[i][k]]  (or the instance's constant −1 − gather[i][k])
//     talon_kernel_pairT_K(tin, tout);
//     out[scatter[i][o]] += tout[o];
// with the gather and scatter tables of ir::instance_map, so the code of the contacts and
// joints grows with their types and the tables with their instances. Where `separation` is
// non-null, a contact pair the broadphase set apart (separation[i] ≥ 0) adds its rows' root
// instead (model_unit_broadphase.cpp). A kernel no template has a share of is talon_unit_K
// too, a macro for the kernel itself. The JVP runs its templates in two stages (below).
//
// The tables are stored as runs. An instance's gathers are a few blocks of consecutive
// indices (a body's q, its u, the rows of a joint, its constants −1, −2, ...), placed the same
// way in every instance of a template; only where each block starts differs. So a table is
// one layout per template and kernel, `runs` (where each run begins, the same for every
// instance), and one start per instance and run: index k of run r is start + (k − begin_r),
// or start − (k − begin_r) for a run of constants (start < 0). An instance's constants are a
// row of the template's constants table, each distinct row stored once (a robot copied 22
// times has each pair's geometry 22 times); `constant_row` gives an instance's row.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <sstream>
#include <string_view>

#include "codegen/model_unit_parts.h"
#include "common/diagnostics.h"
#include "ir/lower/pair_templates.h"

namespace talon::codegen::unit {
namespace {

// The unit's function of template t's share of unit kernel K (talon_kernel_pairT_K).
std::string template_function(int t, const UnitKernel& k) {
  return "pair" + std::to_string(t) + "_" + k.name;
}

// Whether template t has a share of unit kernel K: a contact pair's template has none of the
// per-body `mass`, a joint set's moves ũ, the bodies' has no rows to linearise.
bool template_has_share(const ir::PairTemplate& t, const UnitKernel& k) {
  std::size_t outputs = 0;
  for (const char* name : k.kernels)
    if (const ir::Kernel* kernel = t.program.find_kernel(name))
      outputs += kernel->function.outputs.size();
  return outputs > 0;
}

bool has_template_share(const ir::ResidualProgram& program, const UnitKernel& k) {
  if (!program.pairs) return false;
  for (const ir::PairTemplate& t : program.pairs->templates)
    if (template_has_share(t, k)) return true;
  return false;
}

// The tables of one template and unit kernel over its instances, flattened row by row.
struct InstanceTables {
  std::vector<int> gather, scatter;
  int inputs = 0, outputs = 0, count = 0;
  int constants = 0;  // per instance
};

InstanceTables instance_tables(const ir::ResidualProgram& program, int template_index,
                               const UnitKernel& k) {
  const ir::PairTemplate& t = program.pairs->templates[template_index];
  // Per program kernel, the same for every instance: its plan, and where its outputs start
  // in the unit kernel's.
  std::vector<ir::InstanceMapPlan> plans;
  std::vector<int> unit_offsets;
  int unit_outputs = 0;
  for (const char* kernel : k.kernels) {
    plans.push_back(ir::instance_map_plan(program, t, kernel));
    unit_offsets.push_back(unit_outputs);
    unit_outputs += static_cast<int>(program.kernel(kernel).function.outputs.size());
  }
  InstanceTables tables;
  for (const ir::PairInstance& instance : program.pairs->instances) {
    if (instance.template_index != template_index) continue;
    ++tables.count;
    tables.constants = static_cast<int>(instance.constants.size());
    for (std::size_t j = 0; j < k.kernels.size(); ++j) {
      const ir::InstanceMap map = ir::instance_map(program, plans[j], instance);
      if (j == 0) tables.gather.insert(tables.gather.end(), map.gather.begin(), map.gather.end());
      for (int o : map.scatter) tables.scatter.push_back(unit_offsets[j] + o);
    }
  }
  tables.inputs = static_cast<int>(t.program.kernel(k.kernels.front()).function.inputs.size());
  tables.outputs = static_cast<int>(tables.scatter.size()) / tables.count;
  return tables;
}

// The constants of a template's instances, each distinct list once (a robot copied 22 times
// has each pair's geometry 22 times): `rows` the distinct lists, flattened, and `row_of` the
// list each instance reads, in instance order.
struct ConstantRows {
  std::vector<double> rows;
  std::vector<int> row_of;
};

ConstantRows instance_constants(const ir::ResidualProgram& program, int template_index) {
  ConstantRows out;
  // Keyed by the values' bits: equal lists are equal bit for bit (and NaN cannot unorder it).
  std::map<std::vector<std::uint64_t>, int> row_of_bits;
  for (const ir::PairInstance& instance : program.pairs->instances) {
    if (instance.template_index != template_index) continue;
    std::vector<std::uint64_t> bits;
    for (double value : instance.constants) bits.push_back(std::bit_cast<std::uint64_t>(value));
    const auto [found, inserted] =
        row_of_bits.emplace(std::move(bits), static_cast<int>(row_of_bits.size()));
    if (inserted)
      out.rows.insert(out.rows.end(), instance.constants.begin(), instance.constants.end());
    out.row_of.push_back(found->second);
  }
  return out;
}

// One table as runs (see the top of this file): `begin` has a run's first index per run and
// then the table's width; `starts` one index per instance and run.
struct RunTable {
  std::vector<int> begin, starts;
  int runs() const { return static_cast<int>(begin.size()) - 1; }
};

// Whether `value` continues the run of `previous`: the next index, or the next constant
// (constant k is −1 − k, so they count down).
bool continues_run(int previous, int value) {
  return previous >= 0 ? value == previous + 1 : value == previous - 1;
}

// `flat` (`count` instances of `width` entries) as runs: a run breaks wherever it breaks in
// any instance.
RunTable run_table(const std::vector<int>& flat, int width, int count) {
  RunTable t;
  for (int k = 0; k < width; ++k) {
    bool breaks = k == 0;
    for (int i = 0; i < count && !breaks; ++i)
      breaks = !continues_run(flat[i * width + k - 1], flat[i * width + k]);
    if (breaks) t.begin.push_back(k);
  }
  t.begin.push_back(width);
  for (int i = 0; i < count; ++i)
    for (int r = 0; r < t.runs(); ++r) t.starts.push_back(flat[i * width + t.begin[r]]);
  return t;
}

// Writes the run table `name` as NAME_begin and NAME (the starts).
void run_table_text(std::ostringstream& out, const std::string& name, const RunTable& t) {
  int_table(out, (name + "_begin").c_str(), t.begin);
  int_table(out, name.c_str(), t.starts);
}

// The run of table `t` that holds index k, and k's place in it.
std::pair<int, int> run_of(const RunTable& t, int k) {
  const int r =
      static_cast<int>(std::upper_bound(t.begin.begin(), t.begin.end(), k) - t.begin.begin()) - 1;
  return {r, k - t.begin[r]};
}

// `name`(in, out, gather, scatter, separation): a separated instance's `terms` added to the
// unit kernel's outputs straight through the instance's runs, with no template inputs
// gathered and no zeros scattered (model_unit_broadphase.cpp).
void skip_function(std::ostringstream& out, const std::string& name,
                   const std::vector<SkipTerm>& terms, const RunTable& gather,
                   const RunTable& scatter) {
  out << "static TALON_CALLABLE void " << name
      << "(const talon_real* in, talon_real* out, const int* gather, const int* scatter,\n"
      << "    talon_real separation) {\n"
      << "  (void)in;\n  (void)gather;\n  (void)separation;\n";
  for (const SkipTerm& term : terms) {
    const auto [run, place] = run_of(scatter, term.output);
    out << "  out[scatter[" << run << "] + " << place << "] += " << term.value;
    if (term.input >= 0) {
      const auto [input_run, input_place] = run_of(gather, term.input);
      for (std::size_t i = input_run; i < gather.starts.size(); i += gather.runs())
        TALON_INTERNAL_ASSERT(gather.starts[i] >= 0, "a skipped instance reads a constant");
      out << "in[gather[" << input_run << "] + " << input_place << "]";
    }
    out << ";\n";
  }
  out << "}\n";
}

// An instance loop's body: tin[k] = the input of run table `name` (the runs of `gather` in
// scope), or with `constants` a constant of the instance where the run holds constants.
void gather_text(std::ostringstream& out, const std::string& name, const RunTable& table,
                 bool constants) {
  out << "    for (r = 0; r < " << table.runs() << "; ++r)\n"
      << "      for (k = " << name << "_begin[r]; k < " << name << "_begin[r + 1]; ++k) {\n"
      << "        const int step = k - " << name << "_begin[r];\n"
      << (constants ? "        tin[k] = gather[r] >= 0 ? in[gather[r] + step] : constants[-1 - "
                      "gather[r] + step];\n"
                    : "        tin[k] = in[gather[r] + step];\n")
      << "      }\n";
}

// An instance loop's body: out[...] += tout[k] through run table `name` (`scatter` in scope).
void scatter_text(std::ostringstream& out, const std::string& name, const RunTable& table) {
  out << "    for (r = 0; r < " << table.runs() << "; ++r)\n"
      << "      for (k = " << name << "_begin[r]; k < " << name << "_begin[r + 1]; ++k)\n"
      << "        out[scatter[r] + k - " << name << "_begin[r]] += tout[k];\n";
}

// The loop adding template T's instances' shares of unit kernel K; `skip` names the function
// that stands in for the template at a separated instance (skip_function), or is empty where
// the loop evaluates every instance.
void instance_loop(std::ostringstream& out, const std::string& prefix, int t, const UnitKernel& k,
                   const InstanceTables& tables, const RunTable& gather, const RunTable& scatter,
                   const std::string& skip) {
  const std::string table = prefix + "_" + k.name;
  const std::string n = std::to_string(tables.count), in = std::to_string(tables.inputs),
                    outputs = std::to_string(tables.outputs);
  out << "static TALON_CALLABLE void " << table
      << "_add(const talon_real* in, talon_real* out, const talon_real* separation) {\n"
      << "  talon_real tin[" << in << "], tout[" << outputs << "];\n"
      << "  int i, r, k;\n"
      << (skip.empty() ? "  (void)separation;\n" : "") << "  for (i = 0; i < " << n << "; ++i) {\n"
      << "    const int* gather = " << table << "_gather + i * " << gather.runs() << ";\n"
      << "    const int* scatter = " << table << "_scatter + i * " << scatter.runs() << ";\n"
      << "    const talon_real* constants = " << prefix << "_constants + " << prefix
      << "_constant_row[i] * " << tables.constants << ";\n";
  if (!skip.empty())
    out << "    if (separation && separation[i] >= 0) {\n"
        << "      " << skip << "(in, out, gather, scatter, separation[i]);\n"
        << "      continue;\n"
        << "    }\n";
  gather_text(out, table + "_gather", gather, true);
  out << "    talon_kernel_" << template_function(t, k) << "(tin, tout);\n";
  scatter_text(out, table + "_scatter", scatter);
  out << "  }\n}\n";
}

// ---- The exact JVP in two stages (ir/passes/stages.h) ----
// FGMRES applies J(x) at one iterate x to a new tangent t each iteration. Each template's
// jvp_exact is split into jvp_primal (x → the values the product with t reads) and jvp_tangent
// (those values, t → J t). talon_unit_jvp_prepare(in, cache, separation) runs jvp_primal once
// per Newton direction for every instance not set apart, into the instance's block of `cache`:
//   cache_T + i · stride_T = [jvp_primal(instance i's inputs) | room for its tangents];
// talon_unit_jvp(in, out, separation, cache) then gathers only the tangents into that room and
// runs jvp_tangent on the block. Same values to the bit as jvp_exact (the same operations).

const UnitKernel kJvpPrimal{"jvp_primal", {"jvp_primal"}};
const UnitKernel kJvpTangent{"jvp_tangent", {"jvp_tangent"}};

// Columns [begin, end) of each of `count` rows of `width` entries.
std::vector<int> columns(const std::vector<int>& flat, int width, int count, int begin, int end) {
  std::vector<int> out;
  for (int i = 0; i < count; ++i)
    out.insert(out.end(), flat.begin() + i * width + begin, flat.begin() + i * width + end);
  return out;
}

// A template's JVP stages over its instances: the jvp_exact tables split into the primal
// inputs (the first `primal` of jvp_exact's, the base groups) and the tangents (the rest).
struct StagedJvp {
  InstanceTables tables;  // jvp_exact's
  RunTable primal, tangent, scatter;
  int stride = 0;  // an instance's cache block: cached values, then its tangents
  int cached = 0;  // values jvp_primal writes
};

StagedJvp staged_jvp(const ir::ResidualProgram& program, int t, const UnitKernel& k) {
  const ir::ResidualProgram& tp = program.pairs->templates[t].program;
  StagedJvp s;
  s.tables = instance_tables(program, t, k);
  const int primal = static_cast<int>(tp.kernel("jvp_primal").function.inputs.size());
  const int tangents = s.tables.inputs - primal;
  TALON_INTERNAL_ASSERT(tp.kernel("jvp_exact").input("tangent_u")->offset == primal,
                        "jvp_exact's tangents do not follow jvp_primal's inputs");
  s.stride = static_cast<int>(tp.kernel("jvp_tangent").function.inputs.size());
  s.cached = s.stride - tangents;
  const InstanceTables& tb = s.tables;
  s.primal = run_table(columns(tb.gather, tb.inputs, tb.count, 0, primal), primal, tb.count);
  s.tangent =
      run_table(columns(tb.gather, tb.inputs, tb.count, primal, tb.inputs), tangents, tb.count);
  s.scatter = run_table(tb.scatter, tb.outputs, tb.count);
  return s;
}

// The loops of template t's two stages (talon_pairT_jvp_prepare, talon_pairT_jvp_add).
void staged_jvp_loops(std::ostringstream& out, const std::string& prefix, int t, const StagedJvp& s,
                      const std::string& skip) {
  const std::string n = std::to_string(s.tables.count), stride = std::to_string(s.stride);
  const std::string separated = "    if (separation && separation[i] >= 0)";
  out << "static TALON_CALLABLE void " << prefix << "_jvp_prepare(const talon_real* in, "
      << "talon_real* cache,\n    const talon_real* separation) {\n"
      << "  talon_real tin[" << array_size(s.primal.begin.back()) << "];\n  int i, r, k;\n"
      << (skip.empty() ? "  (void)separation;\n" : "") << "  for (i = 0; i < " << n << "; ++i) {\n"
      << "    const int* gather = " << prefix << "_jvp_primal_gather + i * " << s.primal.runs()
      << ";\n    const talon_real* constants = " << prefix << "_constants + " << prefix
      << "_constant_row[i] * " << s.tables.constants << ";\n"
      << (skip.empty() ? "" : separated + " continue;\n");
  gather_text(out, prefix + "_jvp_primal_gather", s.primal, true);
  out << "    talon_kernel_" << template_function(t, kJvpPrimal) << "(tin, cache + i * " << stride
      << ");\n  }\n}\n";
  out << "static TALON_CALLABLE void " << prefix << "_jvp_add(const talon_real* in, "
      << "talon_real* out,\n    const talon_real* separation, talon_real* cache) {\n"
      << "  talon_real tout[" << s.tables.outputs << "];\n  int i, r, k;\n"
      << (skip.empty() ? "  (void)separation;\n" : "") << "  for (i = 0; i < " << n << "; ++i) {\n"
      << "    const int* gather = " << prefix << "_jvp_tangent_gather + i * " << s.tangent.runs()
      << ";\n    const int* scatter = " << prefix << "_jvp_scatter + i * " << s.scatter.runs()
      << ";\n    talon_real* block = cache + i * " << stride << ";\n"
      << "    talon_real* tin = block + " << s.cached << ";\n";
  if (!skip.empty())
    out << separated << " {\n      " << skip << "(in, out, gather, scatter, separation[i]);\n"
        << "      continue;\n    }\n";
  gather_text(out, prefix + "_jvp_tangent_gather", s.tangent, false);
  out << "    talon_kernel_" << template_function(t, kJvpTangent) << "(block, tout);\n";
  scatter_text(out, prefix + "_jvp_scatter", s.scatter);
  out << "  }\n}\n";
}

// The `separation` argument of template t's loop: its pairs' slice of the broadphase's
// array where the loop skips pairs set apart, else none.
std::string separation_argument(const BoundedInstances& bounded, int t, bool skips) {
  return skips ? "separation ? separation + " + std::to_string(bounded.offset[t]) + " : 0" : "0";
}

// Where each template's instances' blocks begin in the JVP cache (-1: no JVP share), and the
// cache's size last: each instance's block is jvp_tangent's inputs (cached values, tangents).
std::vector<int> jvp_cache_offsets(const ir::ResidualProgram& program) {
  const std::vector<ir::PairTemplate>& templates = program.pairs->templates;
  std::vector<int> offsets(templates.size() + 1, -1);
  int size = 0;
  for (std::size_t t = 0; t < templates.size(); ++t) {
    if (!template_has_share(templates[t], kJvpTangent)) continue;
    offsets[t] = size;
    const int stride =
        static_cast<int>(templates[t].program.kernel("jvp_tangent").function.inputs.size());
    for (const ir::PairInstance& instance : program.pairs->instances)
      if (instance.template_index == static_cast<int>(t)) size += stride;
  }
  offsets.back() = size;
  return offsets;
}

// talon_unit_jvp_prepare and talon_unit_jvp with their tables and loops.
std::string staged_jvp_text(const ir::ResidualProgram& program, const ModelUnitOptions& options,
                            const BoundedInstances& bounded, const UnitKernel& k) {
  std::ostringstream out;
  std::string prepares, adds;
  const std::vector<int> offsets = jvp_cache_offsets(program);
  for (int t = 0; t < static_cast<int>(program.pairs->templates.size()); ++t) {
    const ir::PairTemplate& pair_template = program.pairs->templates[t];
    if (!template_has_share(pair_template, k)) continue;
    const std::string prefix = "talon_pair" + std::to_string(t);
    const StagedJvp s = staged_jvp(program, t, k);
    run_table_text(out, prefix + "_jvp_primal_gather", s.primal);
    run_table_text(out, prefix + "_jvp_tangent_gather", s.tangent);
    run_table_text(out, prefix + "_jvp_scatter", s.scatter);
    std::string skip;
    if (skips_instances(bounded, t, k)) {
      skip = prefix + "_jvp_skip";
      std::vector<SkipTerm> terms = skip_terms(pair_template, k, options.precision);
      for (SkipTerm& term : terms)
        if (term.input >= 0) term.input -= s.primal.begin.back();  // into the tangents
      skip_function(out, skip, terms, s.tangent, s.scatter);
    }
    const std::string separation = separation_argument(bounded, t, !skip.empty());
    staged_jvp_loops(out, prefix, t, s, skip);
    const std::string cache = "cache + " + std::to_string(offsets[t]);
    prepares += "  " + prefix + "_jvp_prepare(in, " + cache + ", " + separation + ");\n";
    adds += "  " + prefix + "_jvp_add(in, out, " + separation + ", " + cache + ");\n";
  }
  out << "static TALON_CALLABLE void talon_unit_jvp_prepare(const talon_real* in, "
      << "talon_real* cache,\n    const talon_real* separation) {\n"
      << "  (void)in;\n  (void)cache;\n  (void)separation;\n"
      << prepares << "}\n"
      << "static TALON_CALLABLE void talon_unit_jvp(const talon_real* in, talon_real* out,\n"
      << "    const talon_real* separation, talon_real* cache) {\n"
      << "  (void)separation;\n  (void)cache;\n"
      << "  talon_kernel_jvp_unrolled(in, out);\n"
      << adds << "}\n";
  return out.str();
}

bool is_jvp(const UnitKernel& k) {
  return std::string_view(k.name) == "jvp";
}

// talon_unit_K where K has no template share: the kernel itself (for `jvp`, no stages).
std::string whole_kernel_macro(const UnitKernel& k) {
  if (is_jvp(k))
    return "#define talon_unit_jvp_prepare(in, cache, separation) ((void)0)\n"
           "#define talon_unit_jvp(in, out, separation, cache) talon_kernel_jvp(in, out)\n";
  return std::string("#define talon_unit_") + k.name + "(in, out, separation) talon_kernel_" +
         k.name + "(in, out)\n";
}

}  // namespace

int jvp_cache_size(const ir::ResidualProgram& program) {
  return program.pairs ? jvp_cache_offsets(program).back() : 0;
}

std::vector<UnitKernel> unit_kernels(bool with_jvp, bool with_backward) {
  std::vector<UnitKernel> out = {
      {"mass", {"mass"}}, {"residual", {"residual"}}, {"linearize", {"jhat", "c_diag", "diag_a"}}};
  if (with_jvp) out.push_back({"jvp", {"jvp_exact"}});
  if (with_backward) {
    out.push_back({"vjp", {"vjp_exact"}});
    out.push_back({"vjp_inputs", {"vjp_inputs"}});
    out.push_back({"vjp_q_plus", {"vjp_q_plus"}});
  }
  return out;
}

ir::Function unit_function(const ir::ResidualProgram& program, const UnitKernel& k,
                           const std::string& name) {
  ir::Function f{name, program.kernel(k.kernels.front()).function.inputs, {}};
  for (const char* kernel : k.kernels) {
    const std::vector<ir::Expr>& outputs = program.kernel(kernel).function.outputs;
    f.outputs.insert(f.outputs.end(), outputs.begin(), outputs.end());
  }
  return f;
}

std::vector<ir::Function> unit_functions(const ir::ResidualProgram& program, bool with_jvp,
                                         bool with_backward) {
  std::vector<ir::Function> out;
  for (const UnitKernel& k : unit_kernels(with_jvp, with_backward)) {
    if (!has_template_share(program, k)) {
      out.push_back(unit_function(program, k, k.name));
      continue;
    }
    out.push_back(unit_function(program, k, std::string(k.name) + "_unrolled"));
    for (std::size_t t = 0; t < program.pairs->templates.size(); ++t) {
      const ir::PairTemplate& pair_template = program.pairs->templates[t];
      if (!template_has_share(pair_template, k)) continue;
      for (const UnitKernel& stage : is_jvp(k) ? std::vector<UnitKernel>{kJvpPrimal, kJvpTangent}
                                               : std::vector<UnitKernel>{k})
        out.push_back(unit_function(pair_template.program, stage,
                                    template_function(static_cast<int>(t), stage)));
    }
  }
  return out;
}

std::string pair_text(const ir::ResidualProgram& program, const ModelUnitOptions& options,
                      const BoundedInstances& bounded, bool with_jvp, bool with_backward) {
  std::ostringstream out;
  if (!program.pairs) {
    for (const UnitKernel& k : unit_kernels(with_jvp, with_backward)) out << whole_kernel_macro(k);
    return out.str();
  }
  out << "/* ---- Contact pairs and joint sets by type: one template each, over its instances "
         "---- */\n";
  const int ntemplates = static_cast<int>(program.pairs->templates.size());
  for (int t = 0; t < ntemplates; ++t) {
    const std::string prefix = "talon_pair" + std::to_string(t);
    const ConstantRows constants = instance_constants(program, t);
    real_table(out, (prefix + "_constants").c_str(), constants.rows, options.precision);
    int_table(out, (prefix + "_constant_row").c_str(), constants.row_of);
  }
  for (const UnitKernel& k : unit_kernels(with_jvp, with_backward)) {
    if (!has_template_share(program, k)) {
      out << whole_kernel_macro(k);
      continue;
    }
    if (is_jvp(k)) {
      out << staged_jvp_text(program, options, bounded, k);
      continue;
    }
    std::string calls;
    for (int t = 0; t < ntemplates; ++t) {
      const ir::PairTemplate& pair_template = program.pairs->templates[t];
      if (!template_has_share(pair_template, k)) continue;
      const std::string prefix = "talon_pair" + std::to_string(t);
      const InstanceTables tables = instance_tables(program, t, k);
      const RunTable gather = run_table(tables.gather, tables.inputs, tables.count);
      const RunTable scatter = run_table(tables.scatter, tables.outputs, tables.count);
      run_table_text(out, prefix + "_" + k.name + "_gather", gather);
      run_table_text(out, prefix + "_" + k.name + "_scatter", scatter);
      std::string skip;
      if (skips_instances(bounded, t, k)) {
        skip = prefix + "_" + k.name + "_skip";
        skip_function(out, skip, skip_terms(pair_template, k, options.precision), gather, scatter);
      }
      instance_loop(out, prefix, t, k, tables, gather, scatter, skip);
      const std::string separation = separation_argument(bounded, t, !skip.empty());
      calls += "  " + prefix + "_" + k.name + "_add(in, out, " + separation + ");\n";
    }
    out << "static TALON_CALLABLE void talon_unit_" << k.name
        << "(const talon_real* in, talon_real* out, const talon_real* separation) {\n"
        << "  (void)separation;\n"
        << "  talon_kernel_" << k.name << "_unrolled(in, out);\n"
        << calls << "}\n";
  }
  return out.str();
}

}  // namespace talon::codegen::unit
