// A host of Talon's C++ API (talon/talon.h): drops a ball from a different height in each of W
// worlds and reports where every ball ends up after 1.5 s.
//
//   cpp_host MODEL [WORLDS]      e.g. cpp_host models/sphere_drop.xml 4
//
// Errors (a missing file, a bad model, an array of the wrong size) come back as values with a
// message: print it and exit 1.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <talon/talon.h>

namespace api = talon::api;

int fail(const api::Error& error) {
  std::fputs(error.message.c_str(), stderr);
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL [WORLDS]\n", argv[0]);
    return 2;
  }
  const int count = argc > 2 ? std::atoi(argv[2]) : 4;

  // Compiles the model, or takes it from the kernel cache the `talon` command shares.
  api::Result<api::Simulator> sim = api::Simulator::load(argv[1]);
  if (!sim) return fail(sim.error());
  std::printf("%s: %d bodies, %d controls, %s\n", sim->name().c_str(),
              static_cast<int>(sim->body_names().size()), sim->nctrl(),
              sim->from_cache() ? "from the kernel cache" : "compiled");

  // World w starts 0.25·w m higher than the model's pose: q of body 0 is x, y, z, then its
  // orientation; u (velocities) stays zero.
  api::Worlds worlds = sim->make_worlds(count);
  for (int w = 0; w < count; ++w) {
    std::vector<double> q(worlds.q().begin() + w * worlds.nq(),
                          worlds.q().begin() + (w + 1) * worlds.nq());
    q[2] += 0.25 * w;
    if (api::Status set = worlds.set_state(w, q, std::vector<double>(worlds.nv())); !set)
      return fail(set.error());
  }

  const double h = sim->timestep();
  const int steps = static_cast<int>(1.5 / h + 0.5);
  if (api::Status run = sim->rollout(worlds, h, steps); !run) return fail(run.error());

  // World w's final height, and whether its last step converged.
  const std::vector<api::WorldStatus> status = worlds.status();
  int settled = 0;
  for (int w = 0; w < count; ++w) {
    const double z = worlds.q()[w * worlds.nq() + 2];
    std::printf("world %d: z = %.4f m%s\n", w, z, status[w].ok() ? "" : " (step failed)");
    if (status[w].ok()) ++settled;
  }
  std::printf("%d of %d worlds stepped %d x %g s\n", settled, count, steps, h);
  return settled == count ? 0 : 1;
}
