// bench_templates: the code a model's contacts need, unrolled against per-type templates
// (ir/lower/pair_templates.h; docs/design.md, "Kernels per type"). For each model: geom
// pairs (templated / left unrolled), contact slots, the templates its pairs need, the
// unrolled program's instructions (all kernels) and the templates' (all their kernels,
// each template once), and the seconds each lowering takes.
//
//   bench_templates MODEL...
#include <chrono>
#include <cstdio>
#include <string>

#include "frontend/load.h"
#include "ir/lower/pair_templates.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::size_t instructions(talon::ir::ResidualProgram& prog) {
  talon::ir::compute_kernel_stats(prog);
  return prog.stats.instructions();
}

bool measure(const std::string& path) {
  talon::Expected<talon::Model> model = talon::load_model(path);
  if (!model) {
    std::fprintf(stderr, "%s", model.diagnostics().format().c_str());
    return false;
  }
  auto start = std::chrono::steady_clock::now();
  talon::ir::LowerOptions unrolled;
  unrolled.set_templates(false);
  talon::Expected<talon::ir::ResidualProgram> prog = talon::ir::lower_model(*model, unrolled);
  if (!prog) {
    std::fprintf(stderr, "%s", prog.diagnostics().format().c_str());
    return false;
  }
  const double unrolled_seconds = seconds_since(start);
  start = std::chrono::steady_clock::now();
  talon::ir::PairTemplates templates = talon::ir::pair_templates(*model, *prog, {});
  const double template_seconds = seconds_since(start);
  std::size_t template_instructions = 0;
  for (talon::ir::PairTemplate& t : templates.templates)
    template_instructions += instructions(t.program);
  const std::string name = path.substr(path.find_last_of('/') + 1);
  std::printf("%-24s %9zu %6zu %9zu %14zu %14zu %10.2f %10.2f\n", name.c_str(),
              templates.instances.size(), prog->slots.size(), templates.templates.size(),
              instructions(*prog), template_instructions, unrolled_seconds, template_seconds);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_templates MODEL...\n");
    return 2;
  }
  std::printf("%-24s %9s %6s %9s %14s %14s %10s %10s\n", "model", "pairs", "slots", "templates",
              "unrolled ins", "template ins", "unrolled s", "template s");
  int failures = 0;
  for (int i = 1; i < argc; ++i) failures += measure(argv[i]) ? 0 : 1;
  return failures == 0 ? 0 : 1;
}
