// `talon ir MODEL`: what the lowering produced — rows per block, kernel sizes before and
// after CSE, build time — and with --dump the IR of every kernel.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/json.h"
#include "ir/lower/lower.h"
#include "ir/lower/pair_templates.h"
#include "ir/printer.h"

namespace talon::cli {
namespace {

// Per template: its name, how many pairs or joint sets run it and its instructions (all its
// kernels, once).
struct TemplateSummary {
  std::string name;
  int instances = 0;
  std::size_t instructions = 0;
};

// The templates of one kind.
std::vector<TemplateSummary> template_summaries(const ir::ResidualProgram& program,
                                                ir::TemplateKind kind) {
  std::vector<TemplateSummary> out;
  if (!program.pairs) return out;
  std::vector<int> summary_of(program.pairs->templates.size(), -1);
  for (std::size_t i = 0; i < program.pairs->templates.size(); ++i) {
    const ir::PairTemplate& t = program.pairs->templates[i];
    if (t.kind != kind) continue;
    summary_of[i] = static_cast<int>(out.size());
    out.push_back({t.name, 0, t.program.stats.instructions()});
  }
  for (const ir::PairInstance& instance : program.pairs->instances)
    if (summary_of[instance.template_index] >= 0)
      ++out[summary_of[instance.template_index]].instances;
  return out;
}

void json_templates(JsonWriter& json, const char* key, const char* instance_key,
                    const std::vector<TemplateSummary>& templates) {
  json.key(key).begin_array();
  for (const TemplateSummary& t : templates) {
    json.begin_object();
    json.key(instance_key).value(t.name);
    json.key("instances").value(t.instances);
    json.key("instructions").value(t.instructions);
    json.end_object();
  }
  json.end_array();
}

void print_templates(const char* heading, const char* what,
                     const std::vector<TemplateSummary>& templates) {
  if (templates.empty()) return;
  std::size_t width = 34;
  for (const TemplateSummary& t : templates) width = std::max(width, t.name.size() + 2);
  const int w = static_cast<int>(width);
  std::cout << '\n'
            << heading << '\n'
            << "  " << std::left << std::setw(w) << what << std::right << std::setw(10)
            << "instances" << std::setw(14) << "instructions" << '\n';
  for (const TemplateSummary& t : templates)
    std::cout << "  " << std::left << std::setw(w) << t.name << std::right << std::setw(10)
              << t.instances << std::setw(14) << t.instructions << '\n';
}

void print_json(const Model& model, const ir::ResidualProgram& program) {
  const ir::LowerStats& stats = program.stats;
  JsonWriter json;
  json.begin_object();
  json.key("name").value(model.name);
  json.key("build_seconds").value(stats.build_seconds);
  json.key("graph_nodes").value(stats.graph_nodes);
  json.key("sim_bodies").value(program.nsim);
  json.key("rows").value(program.nrows);
  json.key("params").value(program.param_info.size());
  json.key("contact_pairs").value(stats.contact_pairs);
  json.key("contact_slots").value(program.slots.size());
  json.key("blocks").begin_object();
  for (const ir::RowBlock& block : program.blocks) json.key(block.name).value(block.size());
  json.end_object();
  json.key("kernels").begin_array();
  for (const ir::KernelStats& k : stats.kernels) {
    json.begin_object();
    json.key("name").value(k.name);
    json.key("nodes_before_cse").value(k.tree_nodes);
    json.key("nodes_after_cse").value(k.dag_nodes);
    json.key("instructions").value(k.instructions);
    json.end_object();
  }
  json.end_array();
  json_templates(json, "pair_templates", "pairs",
                 template_summaries(program, ir::TemplateKind::Pair));
  json_templates(json, "joint_templates", "joint_set",
                 template_summaries(program, ir::TemplateKind::JointSet));
  json_templates(json, "body_templates", "bodies",
                 template_summaries(program, ir::TemplateKind::Body));
  json.key("notes").array(program.notes);
  json.end_object();
  std::cout << json.str() << '\n';
}

void print_text(const Model& model, const ir::ResidualProgram& program) {
  const ir::LowerStats& stats = program.stats;
  std::cout << "model         " << model.name << '\n'
            << "build time    " << stats.build_seconds << " s\n"
            << "graph nodes   " << stats.graph_nodes << '\n'
            << "unknowns      u+ " << program.ndyn() << ", lambda " << program.nrows << '\n'
            << "params        " << program.param_info.size() << '\n'
            << "contact       " << stats.contact_pairs << " geom pairs, " << program.slots.size()
            << " slots\n\nrows per block:\n";
  for (const ir::RowBlock& block : program.blocks)
    std::cout << "  " << std::left << std::setw(16) << block.name << std::right << std::setw(8)
              << block.size() << '\n';
  std::cout << "\nkernels (nodes before CSE = fully expanded tree size):\n"
            << "  " << std::left << std::setw(20) << "name" << std::right << std::setw(18)
            << "nodes before CSE" << std::setw(16) << "after CSE" << std::setw(14) << "instructions"
            << '\n';
  for (const ir::KernelStats& k : stats.kernels)
    std::cout << "  " << std::left << std::setw(20) << k.name << std::right << std::setw(18)
              << std::setprecision(4) << k.tree_nodes << std::setw(16) << k.dag_nodes
              << std::setw(14) << k.instructions << '\n';
  print_templates("pair templates (each generated once, looped over its pairs):", "pairs",
                  template_summaries(program, ir::TemplateKind::Pair));
  print_templates("joint set templates (each generated once, looped over its bodies):", "joint set",
                  template_summaries(program, ir::TemplateKind::JointSet));
  print_templates("body templates (each body's own dynamics, looped over the bodies):", "bodies",
                  template_summaries(program, ir::TemplateKind::Body));
}

}  // namespace

void add_ir_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "ir", "Lower a model to its residual IR; print rows per block and kernel sizes");
  struct Args {
    ModelArgs model;
    bool json = false, dump = false;
    bool templates = true;
  };
  auto args = std::make_shared<Args>();  // lives as long as the callback that reads it
  add_model_args(*command, args->model);
  add_templates_arg(*command, args->templates);
  command->add_flag("--json", args->json, "Print one JSON object instead of text");
  command->add_flag("--dump", args->dump,
                    "Also print every kernel's IR as straight-line SSA (text mode)");
  command->callback([args, &exit_code] {
    const bool json = args->json;
    Expected<Model> model = load_for_cli(args->model, json);
    if (!model) {
      exit_code = 1;
      return;
    }
    // Per-kernel sizes are what `talon ir` is for; the lowering skips them by default.
    ir::LowerOptions options;
    options.kernel_stats = true;
    options.set_templates(args->templates);
    Expected<ir::ResidualProgram> program = ir::lower_model(*model, options);
    for (const Diagnostic& d : program.diagnostics().items())
      if (d.severity == Severity::Error || !json) std::cerr << d.format() << '\n';
    if (!program) {
      exit_code = 1;
      return;
    }
    if (json)
      print_json(*model, *program);
    else
      print_text(*model, *program);
    if (args->dump && !json)
      for (const ir::Kernel& kernel : program->kernels)
        std::cout << "\n== kernel " << kernel.function.name << '\n' << ir::dump(kernel.function);
    exit_code = 0;
  });
}

}  // namespace talon::cli
