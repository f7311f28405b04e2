#include <iostream>

#include "cli/commands.h"

namespace talon::cli {

void add_model_args(CLI::App& command, ModelArgs& args) {
  command.add_option("model", args.path, "Robot model file: URDF (<robot>) or MJCF (<mujoco>)")
      ->required();
  command.add_flag("--floating-base", args.floating_base,
                   "URDF: attach the root link to the world with a free joint (mobile robots)");
  command.add_option("--package-path", args.package_paths,
                     "URDF: directory searched for package:// URIs (repeatable; "
                     "ROS_PACKAGE_PATH is searched after these)");
}

Expected<Model> load_for_cli(const ModelArgs& args, bool quiet_notes) {
  Expected<Model> model = load_model(args.path, args.load_options());
  for (const Diagnostic& d : model.diagnostics().items())
    if (d.severity == Severity::Error || !quiet_notes) std::cerr << d.format() << '\n';
  return model;
}

}  // namespace talon::cli
