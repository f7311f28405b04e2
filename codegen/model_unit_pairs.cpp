// Kernels per type in a model unit (docs/design.md, "Kernels per type", step 4): a program
// lowered with templates keeps its contact pairs' and joint sets' rows out of its kernels
// (zeros there), and the unit adds them back per instance. For each unit kernel K the
// templates have a share of, talon_kernel_K is
//   talon_kernel_K_unrolled(in, out);          the program's own kernel
//   for each template T, for each of its instances i:
//     tin[k] = in[gather[i][k]]  (or the instance's constant −1 − gather[i][k])
//     talon_kernel_pairT_K(tin, tout);
//     out[scatter[i][o]] += tout[o];
// with the gather and scatter tables of ir::instance_map, so the code of the contacts and
// joints grows with their types and the tables with their instances.
#include <sstream>

#include "codegen/model_unit_parts.h"
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
  InstanceTables tables;
  for (const ir::PairInstance& instance : program.pairs->instances) {
    if (instance.template_index != template_index) continue;
    ++tables.count;
    tables.constants = static_cast<int>(instance.constants.size());
    int unit_offset = 0;  // where the program kernel's outputs start in the unit kernel's
    for (std::size_t j = 0; j < k.kernels.size(); ++j) {
      const ir::InstanceMap map = ir::instance_map(program, t, instance, k.kernels[j]);
      if (j == 0) tables.gather.insert(tables.gather.end(), map.gather.begin(), map.gather.end());
      for (int o : map.scatter) tables.scatter.push_back(unit_offset + o);
      unit_offset += static_cast<int>(program.kernel(k.kernels[j]).function.outputs.size());
    }
  }
  tables.inputs = static_cast<int>(t.program.kernel(k.kernels.front()).function.inputs.size());
  tables.outputs = static_cast<int>(tables.scatter.size()) / tables.count;
  return tables;
}

std::vector<double> instance_constants(const ir::ResidualProgram& program, int template_index) {
  std::vector<double> out;
  for (const ir::PairInstance& instance : program.pairs->instances)
    if (instance.template_index == template_index)
      out.insert(out.end(), instance.constants.begin(), instance.constants.end());
  return out;
}

// The loop adding template T's instances' shares of unit kernel K.
void instance_loop(std::ostringstream& out, const std::string& prefix, int t, const UnitKernel& k,
                   const InstanceTables& tables) {
  const std::string kernel = k.name;
  const std::string n = std::to_string(tables.count), in = std::to_string(tables.inputs),
                    outputs = std::to_string(tables.outputs);
  out << "static TALON_CALLABLE void " << prefix << "_" << kernel
      << "_add(const talon_real* in, talon_real* out) {\n"
      << "  talon_real tin[" << in << "], tout[" << outputs << "];\n"
      << "  int i, k;\n"
      << "  for (i = 0; i < " << n << "; ++i) {\n"
      << "    const int* gather = " << prefix << "_" << kernel << "_gather + i * " << in << ";\n"
      << "    const int* scatter = " << prefix << "_" << kernel << "_scatter + i * " << outputs
      << ";\n"
      << "    const talon_real* constants = " << prefix << "_constants + i * " << tables.constants
      << ";\n"
      << "    for (k = 0; k < " << in
      << "; ++k) tin[k] = gather[k] >= 0 ? in[gather[k]] : constants[-1 - gather[k]];\n"
      << "    talon_kernel_" << template_function(t, k) << "(tin, tout);\n"
      << "    for (k = 0; k < " << outputs << "; ++k) out[scatter[k]] += tout[k];\n"
      << "  }\n}\n";
}

}  // namespace

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
    for (std::size_t t = 0; t < program.pairs->templates.size(); ++t)
      if (template_has_share(program.pairs->templates[t], k))
        out.push_back(unit_function(program.pairs->templates[t].program, k,
                                    template_function(static_cast<int>(t), k)));
  }
  return out;
}

std::string pair_text(const ir::ResidualProgram& program, const ModelUnitOptions& options,
                      bool with_jvp, bool with_backward) {
  if (!program.pairs) return {};
  std::ostringstream out;
  out << "/* ---- Contact pairs and joint sets by type: one template each, over its instances "
         "---- */\n";
  const int ntemplates = static_cast<int>(program.pairs->templates.size());
  for (int t = 0; t < ntemplates; ++t)
    real_table(out, ("talon_pair" + std::to_string(t) + "_constants").c_str(),
               instance_constants(program, t), options.precision);
  for (const UnitKernel& k : unit_kernels(with_jvp, with_backward)) {
    if (!has_template_share(program, k)) continue;
    std::string calls;
    for (int t = 0; t < ntemplates; ++t) {
      if (!template_has_share(program.pairs->templates[t], k)) continue;
      const std::string prefix = "talon_pair" + std::to_string(t);
      const InstanceTables tables = instance_tables(program, t, k);
      int_table(out, (prefix + "_" + k.name + "_gather").c_str(), tables.gather);
      int_table(out, (prefix + "_" + k.name + "_scatter").c_str(), tables.scatter);
      instance_loop(out, prefix, t, k, tables);
      calls += "  " + prefix + "_" + k.name + "_add(in, out);\n";
    }
    out << "static TALON_CALLABLE void talon_kernel_" << k.name
        << "(const talon_real* in, talon_real* out) {\n"
        << "  talon_kernel_" << k.name << "_unrolled(in, out);\n"
        << calls << "}\n";
  }
  return out.str();
}

}  // namespace talon::codegen::unit
