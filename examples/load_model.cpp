// Example: load a robot model from C++ and walk its simulated bodies.
//
//   build/examples/load_model models/three_wheeler_scene.xml
//
// Errors come back as values: print them and exit non-zero; nothing throws.
#include <cstdio>

#include "frontend/load.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL [--floating-base]\n", argv[0]);
    return 2;
  }
  talon::LoadOptions options;
  options.floating_base = argc > 2 && std::string(argv[2]) == "--floating-base";
  talon::Expected<talon::Model> model = talon::load_model(argv[1], options);
  if (!model) {
    std::fputs(model.diagnostics().format().c_str(), stderr);
    return 1;
  }
  std::printf("%s: %d rigid bodies, %d dof, %.3f kg\n", model->name.c_str(), model->nsim,
              model->nv, model->total_mass());
  for (int s = 0; s < model->nsim; ++s)
    std::printf("  %-20s %8.3f kg\n", model->sim_name[s].c_str(), model->sim_mass[s]);
  return 0;
}
