// `talon inspect MODEL`: what the model contains, as Talon will simulate it.
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>

#include "cli/commands.h"
#include "common/json.h"

namespace talon::cli {
namespace {

// Joint census by type, fixed joints included (they are welded away but were written).
std::map<std::string, int> joint_counts(const Model& model) {
  std::map<std::string, int> counts;
  for (JointType type : model.jnt_type) ++counts[joint_type_name(type)];
  if (model.njnt_fixed > 0) counts["fixed"] = model.njnt_fixed;
  return counts;
}

void print_json(const Model& model) {
  JsonWriter json;
  json.begin_object();
  json.key("name").value(model.name);
  json.key("file").value(model.source_file);
  json.key("bodies").value(model.nbody);
  json.key("sim_bodies").value(model.nsim);
  json.key("joints").begin_object();
  for (const auto& [type, count] : joint_counts(model)) json.key(type).value(count);
  json.end_object();
  json.key("dof").value(model.nv);
  json.key("nq").value(model.nq);
  json.key("geoms").value(model.ngeom);
  json.key("actuators").value(model.nu);
  json.key("keyframes").array(model.key_name);
  json.key("total_mass").value(model.total_mass());
  json.key("timestep").value(model.timestep);
  json.key("gravity").array({model.gravity.x(), model.gravity.y(), model.gravity.z()});
  json.key("sim_body_names").array(model.sim_name);
  json.key("notes").array(model.notes);
  json.end_object();
  std::cout << json.str() << '\n';
}

void print_text(const Model& model) {
  std::cout << "model       " << model.name << "  (" << model.source_file << ")\n"
            << "bodies      " << model.nbody << " as written, " << model.nsim
            << " rigid bodies simulated after welding fixed children\n"
            << "joints     ";
  for (const auto& [type, count] : joint_counts(model)) std::cout << ' ' << count << ' ' << type;
  std::cout << "\ndof         " << model.nv << " (joint coordinates; nq " << model.nq << ")\n"
            << "geoms       " << model.ngeom << '\n'
            << "actuators   " << model.nu << '\n'
            << "keyframes   " << model.nkey << '\n'
            << "total mass  " << model.total_mass() << " kg\n"
            << "timestep    " << model.timestep << " s\n";
  if (model.nsim > 0) {
    std::cout
        << "\nsimulated bodies (mass kg, centre of mass in the world at the reference pose):\n";
    for (int s = 0; s < model.nsim; ++s) {
      const Vec3 com = model.sim_pose_world[s].apply(model.sim_com[s]);
      std::cout << "  " << std::left << std::setw(24) << model.sim_name[s] << std::right
                << std::setw(10) << model.sim_mass[s] << "   (" << com.x() << ", " << com.y()
                << ", " << com.z() << ")\n";
    }
  }
}

}  // namespace

void add_inspect_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "inspect", "Read and validate a model; print its bodies, joints, DOF and mass");
  struct Args {
    ModelArgs model;
    bool json = false;
  };
  auto args = std::make_shared<Args>();  // lives as long as the callback that reads it
  add_model_args(*command, args->model);
  command->add_flag("--json", args->json, "Print one JSON object instead of text");
  command->callback([args, &exit_code] {
    Expected<Model> model = load_for_cli(args->model, args->json);
    if (!model) {
      exit_code = 1;
      return;
    }
    if (args->json)
      print_json(*model);
    else
      print_text(*model);
    exit_code = 0;
  });
}

}  // namespace talon::cli
