#include "codegen/subprocess.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

extern char** environ;

namespace talon::codegen {
namespace {

// posix_spawn file actions that send stdout and stderr to `log_file` and read /dev/null.
class Redirections {
 public:
  explicit Redirections(const std::string& log_file) {
    posix_spawn_file_actions_init(&actions_);
    posix_spawn_file_actions_addopen(&actions_, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions_, 1, log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_adddup2(&actions_, 1, 2);
  }
  Redirections(const Redirections&) = delete;
  Redirections& operator=(const Redirections&) = delete;
  ~Redirections() { posix_spawn_file_actions_destroy(&actions_); }
  const posix_spawn_file_actions_t* get() const { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

int wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string command_line(std::span<const std::string> argv) {
  std::string text;
  for (const std::string& arg : argv) text += (text.empty() ? "" : " ") + arg;
  return text;
}

Expected<ProcessResult> run_process(std::span<const std::string> argv,
                                    const std::filesystem::path& log_file) {
  TALON_INTERNAL_ASSERT(!argv.empty(), "run_process without a program");
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  Redirections redirections(log_file.string());
  pid_t pid = 0;
  const int spawn_error =
      posix_spawnp(&pid, args[0], redirections.get(), nullptr, args.data(), environ);
  if (spawn_error != 0) {
    Diagnostics diagnostics;
    diagnostics.error({}, argv[0],
                      "cannot run `" + command_line(argv) + "`: " + std::strerror(spawn_error));
    return diagnostics;
  }
  ProcessResult result;
  result.exit_code = wait_for(pid);
  result.output = read_file(log_file);
  return result;
}

}  // namespace talon::codegen
