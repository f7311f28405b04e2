#include "cli/output_checks.h"

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <string>

namespace talon::cli {
namespace {

Diagnostics cannot_write(const std::filesystem::path& path, const std::string& reason) {
  Diagnostics d;
  d.error({path.string(), 0}, "", "cannot write: " + reason);
  return d;
}

// Creates and removes a uniquely named file in `directory`: the only test that answers for
// permissions, read-only mounts and ACLs alike (access(2) does not for root).
Expected<int> probe_directory(const std::filesystem::path& directory,
                              const std::filesystem::path& reported) {
  std::error_code error;
  if (!std::filesystem::is_directory(directory, error))
    return cannot_write(reported, directory.string() + " is not a directory");
  std::string name = (directory / ".talon-write-probe-XXXXXX").string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return cannot_write(reported, std::strerror(errno));
  ::close(fd);
  ::unlink(name.c_str());
  return 0;
}

std::filesystem::path directory_of(const std::filesystem::path& file) {
  const std::filesystem::path parent = file.parent_path();
  return parent.empty() ? std::filesystem::path(".") : parent;
}

}  // namespace

Expected<int> check_writable_file(const std::filesystem::path& file) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(file, error);
  if (std::filesystem::is_directory(status)) return cannot_write(file, "it is a directory");
  if (std::filesystem::exists(status)) {
    const int fd = ::open(file.c_str(), O_WRONLY | O_APPEND);  // leaves the contents alone
    if (fd < 0) return cannot_write(file, std::strerror(errno));
    ::close(fd);
    return 0;
  }
  const std::filesystem::path directory = directory_of(file);
  if (!std::filesystem::exists(directory, error))
    return cannot_write(file, "no directory " + directory.string());
  return probe_directory(directory, file);
}

Expected<int> check_writable_directory(const std::filesystem::path& directory) {
  std::error_code error;
  std::filesystem::path existing = std::filesystem::absolute(directory, error);
  if (error) return cannot_write(directory, error.message());
  while (!std::filesystem::exists(existing, error) && existing.has_relative_path())
    existing = existing.parent_path();
  return probe_directory(existing, directory);
}

}  // namespace talon::cli
