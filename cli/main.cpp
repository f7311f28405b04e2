// talon: compile robot models (URDF, MJCF) into fast, differentiable simulation code.
#include <iostream>
#include <new>

#include "cli/commands.h"
#include "cli/usage.h"

int main(int argc, char** argv) {
  CLI::App app{
      "talon - compiles robot models (URDF, MJCF) into fast, differentiable simulation code\n"
      "with hard contact at large time steps.\n\nExamples:\n"
      "  talon inspect models/three_wheeler.urdf --floating-base\n"
      "  talon inspect /usr/share/mujoco/model/humanoid/humanoid.xml --json\n\n"
      "Compiled models are kept in a kernel cache, capped in size: see talon cache --help.\n",
      "talon"};
  app.require_subcommand(1);
  app.failure_message(talon::cli::one_line_usage_error);
  app.set_version_flag("--version", "talon 0.1.0");
  int exit_code = 0;
  talon::cli::add_inspect_command(app, exit_code);
  talon::cli::add_ir_command(app, exit_code);
  talon::cli::add_simulate_command(app, exit_code);
  talon::cli::add_compile_command(app, exit_code);
  talon::cli::add_gradcheck_command(app, exit_code);
  talon::cli::add_gradient_command(app, exit_code);
  talon::cli::add_cache_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const talon::InternalError& e) {
    std::cerr << e.what() << '\n';
    return 3;
  } catch (const std::bad_alloc&) {
    std::cerr << "talon: out of memory\n";
    return 3;
  }
  return exit_code;
}
