// bench_lowering: how the lowering (Model -> residual program with every derivative kernel)
// scales with model size. For each model: bodies, graph nodes, nodes per body (flat when the
// IR grows linearly), lowering seconds (wall and CPU) and peak RSS.
//
//   bench_lowering [MODEL...]   (default: MuJoCo's humanoid.xml, 22_humanoids.xml and, if
//                                present, humanoid100.xml)
//
// Each model is lowered in a child process, so that its peak RSS (wait4's ru_maxrss) is its
// own and not the high-water mark of the models before it.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "frontend/load.h"
#include "ir/lower/lower.h"

namespace {

struct Row {
  int bodies = 0, sim_bodies = 0;
  double graph_nodes = 0, build_seconds = 0, wall_seconds = 0;
};

std::vector<std::string> default_models() {
  const std::string dir = "/usr/share/mujoco/model/humanoid/";
  std::vector<std::string> out;
  for (const char* name : {"humanoid.xml", "22_humanoids.xml", "humanoid100.xml"})
    if (std::ifstream(dir + name)) out.push_back(dir + name);
  return out;
}

// Loads and lowers one model (in the child); false with a message on stderr on failure.
bool measure(const std::string& path, Row& row) {
  const auto start = std::chrono::steady_clock::now();
  talon::Expected<talon::Model> model = talon::load_model(path);
  if (!model) {
    std::fprintf(stderr, "%s", model.diagnostics().format().c_str());
    return false;
  }
  talon::Expected<talon::ir::ResidualProgram> prog = talon::ir::lower_model(*model);
  if (!prog) {
    std::fprintf(stderr, "%s", prog.diagnostics().format().c_str());
    return false;
  }
  row.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  row.bodies = model->nbody;
  row.sim_bodies = model->nsim;
  row.graph_nodes = static_cast<double>(prog->stats.graph_nodes);
  row.build_seconds = prog->stats.build_seconds;
  return true;
}

// Runs `measure` in a child; the row travels back through a pipe, the rusage through wait4.
bool measure_in_child(const std::string& path, Row& row, rusage& usage) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    close(fds[0]);
    Row child_row;
    const bool ok = measure(path, child_row);
    if (ok && write(fds[1], &child_row, sizeof child_row) != sizeof child_row) _exit(2);
    _exit(ok ? 0 : 1);
  }
  close(fds[1]);
  const bool got = read(fds[0], &row, sizeof row) == sizeof row;
  close(fds[0]);
  int status = 0;
  wait4(pid, &status, 0, &usage);
  return got && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

double seconds(const timeval& t) { return t.tv_sec + t.tv_usec * 1e-6; }

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> models(argv + 1, argv + argc);
  if (models.empty()) models = default_models();
  if (models.empty()) {
    std::fprintf(stderr, "bench_lowering: no models given and MuJoCo's humanoids not found\n");
    return 2;
  }
  std::printf("%-20s %7s %5s %12s %10s %10s %10s %10s %9s\n", "model", "bodies", "sim",
              "graph nodes", "nodes/body", "build s", "wall s", "cpu s", "peak MiB");
  int failures = 0;
  for (const std::string& path : models) {
    Row row;
    rusage usage{};
    const std::string name = path.substr(path.find_last_of('/') + 1);
    if (!measure_in_child(path, row, usage)) {
      std::printf("%-20s failed\n", name.c_str());
      ++failures;
      continue;
    }
    std::printf("%-20s %7d %5d %12.0f %10.0f %10.3f %10.3f %10.3f %9.1f\n", name.c_str(),
                row.bodies, row.sim_bodies, row.graph_nodes, row.graph_nodes / row.bodies,
                row.build_seconds, row.wall_seconds,
                seconds(usage.ru_utime) + seconds(usage.ru_stime), usage.ru_maxrss / 1024.0);
  }
  return failures == 0 ? 0 : 1;
}
