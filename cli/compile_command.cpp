// `talon compile MODEL -o DIR`: writes the model's freestanding C99 step (DIR/NAME.h,
// DIR/NAME.c), builds it into DIR/libNAME.so with the system C compiler, and writes a
// pkg-config file DIR/NAME.pc.
// `talon compile MODEL --target cuda -o DIR`: writes the same step as CUDA (DIR/NAME.cu, with
// batched entry points, one thread per world: codegen/model_unit.h) and its PTX for
// `--arch` (DIR/NAME.ptx, by NVRTC: no GPU needed to compile, one needed to run it).
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
#include "codegen/nvrtc_compiler.h"
#include "codegen/symbols.h"
#include "ir/lower/lower.h"
#include "runtime/simulator.h"

namespace talon::cli {
namespace {

struct CompileArgs {
  ModelArgs model;
  std::string out_dir, name, precision = "f64";
  std::string target = "c", arch = "sm_90";
  bool arch_given = false;  // --arch on the command line: it names a GPU, so only with cuda
  codegen::SolverOptions solver;
};

// The compute capability (major·10 + minor) that --arch names ("sm_90" or "compute_90": PTX
// is for the virtual architecture either way), when this Talon can compile for it; else an
// error saying why.
Expected<int> cuda_architecture(const std::string& arch) {
#ifndef TALON_HAVE_CUDA
  (void)arch;
  return Diagnostics::single_error(
      "--target cuda: this talon was built without the CUDA toolkit, so it has no NVRTC to "
      "compile CUDA with (install the toolkit and reconfigure)");
#else
  const std::size_t underscore = arch.find('_');
  const std::string prefix = arch.substr(0, underscore),
                    digits = underscore == std::string::npos ? "" : arch.substr(underscore + 1);
  const bool numeric = !digits.empty() && digits.size() <= 3 &&
                       digits.find_first_not_of("0123456789") == std::string::npos;
  const std::vector<int> supported = codegen::nvrtc_supported_architectures();
  std::string names;
  for (int cc : supported) names += (names.empty() ? "sm_" : ", sm_") + std::to_string(cc);
  if ((prefix == "sm" || prefix == "compute") && numeric) {
    const int cc = std::stoi(digits);
    for (int s : supported)
      if (s == cc) return cc;
  }
  return Diagnostics::single_error("--arch " + arch + ": not an architecture this NVRTC (" +
                                   codegen::nvrtc_version() + ") compiles for; it takes " +
                                   (names.empty() ? "none it reports" : names));
#endif
}

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

#ifdef TALON_HAVE_CUDA
// DIR/NAME.cu and its PTX DIR/NAME.ptx, by NVRTC for compute capability `arch`.
int write_cuda(const codegen::ModelUnit& unit, const std::filesystem::path& dir, int arch) {
  const std::filesystem::path cu = dir / (unit.name + ".cu"), ptx = dir / (unit.name + ".ptx");
  if (!write_file(cu, unit.source)) {
    std::cerr << cu.string() << ": error: cannot write the generated CUDA\n";
    return 1;
  }
  codegen::NvrtcOptions nvrtc;
  nvrtc.compute_capability = arch;
  nvrtc.program_name = cu.filename().string();
  Expected<std::string> compiled = with_elapsed_progress(
      "talon compile: NVRTC, " + ptx.filename().string() + " for sm_" + std::to_string(arch),
      [&] { return codegen::nvrtc_compile(unit.source, nvrtc); });
  for (const Diagnostic& d : compiled.diagnostics().items()) std::cerr << d.format() << '\n';
  if (!compiled) return 1;
  if (!write_file(ptx, *compiled)) {
    std::cerr << ptx.string() << ": error: cannot write the PTX\n";
    return 1;
  }
  const std::string& n = unit.name;
  std::cout << "wrote " << cu.string() << "\n      " << ptx.string() << " (sm_" << arch << ")\n"
            << n << "_step_batch(q, u, ctrl, params, h, ws, status, count): one thread per world, "
            << unit.nq << " position and " << unit.nv << " velocity values, " << unit.nctrl
            << " controls, " << unit.nrows << " constraint rows a world\n";
  return 0;
}
#endif

int compile(const CompileArgs& args) {
  const bool cuda = args.target == "cuda";
  if (args.arch_given && !cuda) {
    std::cerr << "talon compile: error: --arch " << args.arch
              << " names a GPU architecture, which only --target cuda compiles for (the C "
                 "target builds for this machine's CPU)\n";
    return 1;
  }
  Expected<int> arch = cuda ? cuda_architecture(args.arch) : Expected<int>(0);
  print_diagnostics(arch.diagnostics(), false);
  if (!arch) return 1;
  Expected<Model> model = load_for_cli(args.model, false);
  if (!model) return 1;
  const Expected<int> writable = check_writable_directory(args.out_dir);
  print_diagnostics(writable.diagnostics(), false);
  if (!writable) return 1;
  const std::string name = args.name.empty() ? default_name(model->name) : args.name;
  // As `talon simulate` steps it, with the kernels the unit's solver options call.
  const ir::LowerOptions lower = codegen::unit_lower_options(default_lower_options(), args.solver);
  Expected<ir::ResidualProgram> program = with_elapsed_progress(
      "talon compile: lowering the model", [&] { return ir::lower_model(*model, lower); });
  for (const Diagnostic& d : program.diagnostics().items()) std::cerr << d.format() << '\n';
  if (!program) return 1;
  codegen::ModelUnitOptions options;
  options.name = name;
  options.precision = args.precision == "f32" ? ir::CPrecision::Float : ir::CPrecision::Double;
  options.solver = args.solver;
  options.target = cuda ? codegen::UnitTarget::Cuda : codegen::UnitTarget::C;
  Expected<codegen::ModelUnit> unit = with_elapsed_progress(
      cuda ? "talon compile: generating CUDA" : "talon compile: generating C",
      [&] { return codegen::generate_model_unit(*model, *program, options); });
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
#ifdef TALON_HAVE_CUDA
  if (cuda) return write_cuda(*unit, dir, *arch);
#endif
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
      "write NAME.pc; or, with --target cuda, NAME.cu and NAME.ptx");
  auto args = std::make_shared<CompileArgs>();
  add_model_args(*command, args->model);
  command->add_option("-o,--output", args->out_dir, "Output directory")->required();
  command->add_option("--name", args->name,
                      "Symbol prefix and file name (default: the model's name)");
  command->add_option("--precision", args->precision, "Floating-point type: f64 or f32")
      ->check(CLI::IsMember({"f64", "f32"}));
  command
      ->add_option("--target", args->target,
                   "c: NAME.h, NAME.c, libNAME.so, NAME.pc; cuda: NAME.cu and its PTX NAME.ptx "
                   "(NVRTC; one thread per world)")
      ->check(CLI::IsMember({"c", "cuda"}));
  CLI::Option* arch =
      command->add_option("--arch", args->arch,
                          "--target cuda: the GPU architecture of the PTX, sm_XX (default sm_90)");
  add_solver_args(*command, args->solver);
  args->solver.adjoint_iterations = kDefaultAdjointIterations;  // NAME_step_backward by default
  add_adjoint_args(*command, args->solver);
  command->callback([args, arch, &exit_code] {
    args->arch_given = arch->count() > 0;
    exit_code = compile(*args);
  });
}

}  // namespace talon::cli
