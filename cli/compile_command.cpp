// `talon compile MODEL -o DIR`: writes the model's freestanding C99 step (DIR/NAME.h,
// DIR/NAME.c), builds it into DIR/libNAME.so with the system C compiler, and writes a
// pkg-config file DIR/NAME.pc.
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/output_checks.h"
#include "cli/progress.h"
#include "codegen/c_compiler.h"
#include "codegen/model_unit.h"
#include "codegen/symbols.h"
#include "ir/lower/lower.h"
#include "runtime/simulator.h"

namespace talon::cli {
namespace {

struct CompileArgs {
  ModelArgs model;
  std::string out_dir, name, precision = "f64";
  codegen::SolverOptions solver;
};

// The model's name as a C identifier ("my-robot" -> "my_robot"); "model" when nothing usable
// is left (a keyword, a reserved name).
std::string default_name(const std::string& model_name) {
  std::string name;
  for (char c : model_name) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "model_" + name;
  Diagnostics ignored;
  const std::string symbols[] = {name, name + "_step"};
  return codegen::check_symbols(symbols, ignored) ? name : "model";
}

bool write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

// Relocatable: pkg-config sets ${pcfiledir} to the directory it found the file in, so the
// output directory can be moved (or copied into a host's tree) and still be found.
std::string pkg_config(const std::string& name, const Model& model) {
  return "prefix=${pcfiledir}\nlibdir=${prefix}\nincludedir=${prefix}\n\n"
         "Name: " +
         name + "\nDescription: Talon simulation step of the model '" + model.name +
         "' (generated; freestanding C99)\nVersion: 0.1.0\n"
         "Libs: -L${libdir} -Wl,-rpath,${libdir} -l" +
         name +
         " -lm\n"
         "Cflags: -I${includedir}\n";
}

// What an f32 user must know (docs/solver_options.md, "Precision"): where the bar comes from,
// what it was checked on, and that an unconverged step is flagged, not failed.
void print_f32_note(const std::string& name) {
  std::cout << "note: f32: a step converges at its residual's round-off floor, 4 FLT_EPSILON "
               "(|q|/h + |u|),\n"
               "      where that is above --convergence-tolerance (checked against f64 on a "
               "drop, a slide\n"
               "      and the three-wheeler's drive over its obstacle). A step that misses it "
               "returns\n      "
            << name << "_STEP_OK with stats.converged = 0: read " << name
            << "_step_statistics after each step.\n";
}

int compile(const CompileArgs& args) {
  Expected<Model> model = load_for_cli(args.model, false);
  if (!model) return 1;
  const Expected<int> writable = check_writable_directory(args.out_dir);
  print_diagnostics(writable.diagnostics(), false);
  if (!writable) return 1;
  const std::string name = args.name.empty() ? default_name(model->name) : args.name;
  const ir::LowerOptions lower = default_lower_options();  // as `talon simulate` steps it
  Expected<ir::ResidualProgram> program = with_elapsed_progress(
      "talon compile: lowering the model", [&] { return ir::lower_model(*model, lower); });
  for (const Diagnostic& d : program.diagnostics().items()) std::cerr << d.format() << '\n';
  if (!program) return 1;
  codegen::ModelUnitOptions options;
  options.name = name;
  options.precision = args.precision == "f32" ? ir::CPrecision::Float : ir::CPrecision::Double;
  options.solver = args.solver;
  Expected<codegen::ModelUnit> unit = with_elapsed_progress("talon compile: generating C", [&] {
    return codegen::generate_model_unit(*model, *program, options);
  });
  for (const Diagnostic& d : unit.diagnostics().items()) std::cerr << d.format() << '\n';
  if (!unit) return 1;

  std::error_code error;
  const std::filesystem::path dir = std::filesystem::absolute(args.out_dir, error);
  std::filesystem::create_directories(dir, error);
  if (error) {
    std::cerr << dir.string() << ": error: cannot create the output directory: " << error.message()
              << '\n';
    return 1;
  }
  const std::filesystem::path header = dir / (name + ".h"), source = dir / (name + ".c");
  const std::filesystem::path pc = dir / (name + ".pc");
  if (!write_file(header, unit->header) || !write_file(source, unit->source) ||
      !write_file(pc, pkg_config(name, *model))) {
    std::cerr << dir.string() << ": error: cannot write the generated files\n";
    return 1;
  }
  const std::filesystem::path library = dir / ("lib" + name + ".so");
  Expected<std::filesystem::path> built =
      with_elapsed_progress("talon compile: compiling " + library.filename().string(),
                            [&] { return codegen::compile_shared_library(unit->source, library); });
  for (const Diagnostic& d : built.diagnostics().items()) std::cerr << d.format() << '\n';
  if (!built) return 1;
  std::cout << "wrote " << header.string() << "\n      " << source.string() << "\n      "
            << library.string() << "\n      " << pc.string() << "\n"
            << name << "_step: " << unit->nq << " position and " << unit->nv << " velocity values, "
            << unit->nctrl << " controls, " << unit->nrows << " constraint rows\n";
  if (options.precision == ir::CPrecision::Float) print_f32_note(name);
  return 0;
}

}  // namespace

void add_compile_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "compile",
      "Generate the model's freestanding C99 step (NAME.h, NAME.c), build libNAME.so and\n"
      "write NAME.pc");
  auto args = std::make_shared<CompileArgs>();
  add_model_args(*command, args->model);
  command->add_option("-o,--output", args->out_dir, "Output directory")->required();
  command->add_option("--name", args->name,
                      "Symbol prefix and file name (default: the model's name)");
  command->add_option("--precision", args->precision, "Floating-point type: f64 or f32")
      ->check(CLI::IsMember({"f64", "f32"}));
  add_solver_args(*command, args->solver);
  args->solver.adjoint_iterations = kDefaultAdjointIterations;  // NAME_step_backward by default
  add_adjoint_args(*command, args->solver);
  command->callback([args, &exit_code] { exit_code = compile(*args); });
}

}  // namespace talon::cli
