#include <cmath>
#include <iostream>
#include <set>
#include <sstream>

#include "cli/commands.h"
#include "frontend/scene_options.h"

namespace talon::cli {
namespace {

// "X,Y,Z": three finite numbers, or a usage error naming the text.
Vec3 parse_base_position(const std::string& text) {
  std::istringstream in(text);
  Vec3 pos;
  char comma1 = 0, comma2 = 0;
  in >> pos.x() >> comma1 >> pos.y() >> comma2 >> pos.z();
  const bool whole = in && comma1 == ',' && comma2 == ',' && (in >> std::ws).eof();
  if (!whole || !pos.allFinite())
    throw CLI::ValidationError("--base-pos", "must be three numbers X,Y,Z (m), not '" + text + "'");
  return pos;
}

// Each text as a servo; a malformed one or a joint named twice is a usage error (the joints'
// existence is checked when the model is read).
std::vector<JointServo> parse_servos(const std::vector<std::string>& texts) {
  std::vector<JointServo> servos;
  std::set<std::string> joints;
  for (const std::string& text : texts) {
    Expected<JointServo> servo = parse_joint_servo(text);
    // The reader's one error: its element is "--actuate TEXT", its message the reason.
    if (!servo)
      throw CLI::ValidationError("--actuate " + text, servo.diagnostics().items()[0].message);
    if (!joints.insert(servo->joint).second)
      throw CLI::ValidationError("--actuate " + text,
                                 "joint '" + servo->joint + "' is given a servo more than once");
    servos.push_back(*servo);
  }
  return servos;
}

}  // namespace

void add_model_args(CLI::App& command, ModelArgs& args) {
  command.add_option("model", args.path, "Robot model file: URDF (<robot>) or MJCF (<mujoco>)")
      ->required();
  CLI::Option* floating_base =
      command.add_flag("--floating-base", args.floating_base,
                       "URDF: attach the root link to the world with a free joint (mobile robots)");
  command.add_option("--package-path", args.package_paths,
                     "URDF: directory searched for package:// URIs (repeatable; "
                     "ROS_PACKAGE_PATH is searched after these)");
  command.add_flag("--ground", args.ground,
                   "Add a static ground plane z = 0 to the world (friction 1), for a URDF robot");
  command
      .add_option("--terrain", args.terrain,
                  "Add a static terrain: a triangle mesh file (STL, OBJ, DAE) in the world frame, "
                  "faces counter-clockwise seen from above (friction 1)")
      ->type_name("FILE");
  command
      .add_option_function<std::string>(
          "--base-pos",
          [&args](const std::string& text) { args.base_pos = parse_base_position(text); },
          "URDF with --floating-base: the root link's initial position X,Y,Z (m, world frame)")
      ->type_name("X,Y,Z")
      ->needs(floating_base);
  command
      .add_option_function<std::vector<std::string>>(
          "--actuate",
          [&args](const std::vector<std::string>& texts) { args.servos = parse_servos(texts); },
          "Add a servo on a joint: JOINT=velocity:KV (torque KV (ctrl - qdot)) or "
          "JOINT=position:KP (torque KP (ctrl - q)); repeatable. Its control is named after "
          "the joint (a --ctrl CSV's column)")
      ->type_name("JOINT=KIND:GAIN");
}

CLI::Option* add_templates_arg(CLI::App& command, bool& templates) {
  return command.add_flag(
      "--templates,!--no-templates,--pair-templates,!--no-pair-templates", templates,
      "Generate each contact pair type and each kind of joint set once, looped over its "
      "instances (the default), or with --no-templates every pair's and joint's code unrolled: "
      "the same results to round-off, far more code to compile (--no-pair-templates: the same)");
}

CLI::Option* add_param_args(CLI::App& command, std::vector<runtime::ParamOverride>& overrides) {
  return command
      .add_option_function<std::vector<std::string>>(
          "--param",
          [&overrides](const std::vector<std::string>& texts) {
            for (const std::string& text : texts) {
              Expected<runtime::ParamOverride> parsed = runtime::parse_param_override(text);
              if (!parsed)
                throw CLI::ValidationError("--param " + text,
                                           parsed.diagnostics().items()[0].message);
              overrides.push_back(*parsed);
            }
          },
          "Set a parameter of the model for every world, e.g. contact_compliance=1e-3, "
          "friction:floor=0.3, mass:box=2 (an unknown name lists the model's); "
          "repeatable. Parameters are inputs of the compiled step: no recompilation")
      ->type_name("NAME=VALUE");
}

Expected<Model> load_for_cli(const ModelArgs& args, bool quiet_notes) {
  Expected<Model> model = load_model(args.path, args.load_options());
  for (const Diagnostic& d : model.diagnostics().items())
    if (d.severity == Severity::Error || !quiet_notes) std::cerr << d.format() << '\n';
  return model;
}

}  // namespace talon::cli
