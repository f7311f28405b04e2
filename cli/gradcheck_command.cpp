// `talon gradcheck MODEL --kernels`: every derivative kernel of the lowered model,
// evaluated with the reference interpreter at random valid states, against central finite
// differences of the residual (fourth-order Richardson estimates; entries at kinks are
// skipped and counted). Exit status 1 when the worst relative error exceeds the tolerance
// (1e-6 by default).
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "common/json.h"
#include "ir/lower/gradcheck.h"
#include "ir/lower/lower.h"

namespace talon::cli {
namespace {

struct GradcheckArgs {
  ModelArgs model;
  bool kernels = false;
  bool json = false;
  int samples = 3;
  uint64_t seed = 1;
  int max_columns = 64;
  double tolerance = 1e-6;
};

void print_json(const ir::GradcheckReport& report, double tolerance) {
  JsonWriter json;
  json.begin_object();
  json.key("samples").value(report.samples);
  json.key("max_rel_error").value(report.max_rel_error);
  json.key("tolerance").value(tolerance);
  json.key("passed").value(report.max_rel_error <= tolerance);
  json.key("compared").value(report.compared);
  json.key("skipped").value(report.skipped);
  json.key("kernels").begin_object();
  for (const ir::KernelCheck& k : report.kernels) {
    json.key(k.kernel).begin_object();
    json.key("max_rel_error").value(k.max_rel_error);
    json.key("compared").value(k.compared);
    json.key("skipped").value(k.skipped);
    json.key("worst").value(k.worst);
    json.end_object();
  }
  json.end_object();
  json.end_object();
  std::cout << json.str() << '\n';
}

// The noise model (ir/lower/gradcheck.h), for --help.
constexpr const char* kNoiseModel = R"(How entries are compared:
  Each derivative is estimated by Richardson extrapolation of central differences at steps
  s, s/2, s/4 (s = 1e-3 of the input's scale; fourth-order, ~1e-10 relative accuracy).
  Relative error = max(0, |k - f| - noise - spread) / max(|k|, |f|, 1e-3 * M), with k the
  kernel's value, f the estimate, noise its rounding (100 eps |r| / step), spread the
  disagreement of the estimates from (s, s/2) and (s/2, s/4), and M the largest entry of the
  compared column (or of the gradient over the same input).
  Entries whose spread exceeds 1e-7 of their size sit within a step of a kink (max, min, abs,
  select switch): differencing cannot certify them, so they are skipped and counted
  ("skipped" in the report and in --json).)";

int run(const GradcheckArgs& args) {
  if (!args.kernels) {
    std::cerr << "talon gradcheck: nothing to check; pass --kernels (per-kernel derivatives "
                 "against finite differences)\n";
    return 2;
  }
  Expected<Model> model = load_for_cli(args.model, args.json);
  if (!model) return 1;
  Expected<ir::ResidualProgram> program = ir::lower_model(*model);
  for (const Diagnostic& d : program.diagnostics().items())
    if (d.severity == Severity::Error || !args.json) std::cerr << d.format() << '\n';
  if (!program) return 1;
  ir::GradcheckOptions options;
  options.max_columns = args.max_columns;
  const ir::GradcheckReport report =
      ir::gradcheck_kernels(*program, args.samples, args.seed, options);
  const bool passed = report.max_rel_error <= args.tolerance;
  if (args.json) {
    print_json(report, args.tolerance);
  } else {
    std::cout << report.format() << "max relative error " << report.max_rel_error << " over "
              << report.samples << " random states (" << report.skipped
              << " entries skipped at kinks): " << (passed ? "PASS" : "FAIL")
              << " (tolerance " << args.tolerance << ")\n";
  }
  return passed ? 0 : 1;
}

}  // namespace

void add_gradcheck_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("gradcheck",
                                     "Check derivative kernels against central finite differences");
  auto args = std::make_shared<GradcheckArgs>();  // lives as long as the callback
  command->footer(kNoiseModel);
  add_model_args(*command, args->model);
  command->add_flag("--kernels", args->kernels,
                    "Check every derivative kernel of the lowered residual at random states");
  command->add_flag("--json", args->json, "Print one JSON object (max_rel_error, per kernel)");
  command->add_option("--samples", args->samples, "Random states to check")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  command->add_option("--seed", args->seed, "Random seed")->capture_default_str();
  command
      ->add_option("--max-columns", args->max_columns,
                   "Columns differenced per kernel and state (<= 0: all)")
      ->capture_default_str();
  command->add_option("--tolerance", args->tolerance, "Largest accepted relative error")
      ->capture_default_str();
  command->callback([args, &exit_code] { exit_code = run(*args); });
}

}  // namespace talon::cli
