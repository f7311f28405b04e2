#include "codegen/object_jobs.h"

#include <optional>
#include <thread>

namespace talon::codegen {

Expected<std::vector<std::string>> run_object_jobs(
    const std::vector<std::function<Expected<std::string>()>>& jobs) {
  std::vector<std::optional<Expected<std::string>>> objects(jobs.size());
  {
    std::vector<std::jthread> threads;
    for (std::size_t k = 0; k < jobs.size(); ++k)
      threads.emplace_back([&, k] { objects[k].emplace(jobs[k]()); });
  }
  std::vector<std::string> out;
  for (std::optional<Expected<std::string>>& object : objects) {
    if (!*object) return object->diagnostics();
    out.push_back(std::move(**object));
  }
  return out;
}

}  // namespace talon::codegen
