#include "codegen/temp_dir.h"

#include <stdlib.h>  // mkdtemp (POSIX)

#include <cerrno>
#include <cstring>
#include <vector>

namespace talon::codegen {

Expected<TemporaryDirectory> TemporaryDirectory::create(const std::filesystem::path& parent,
                                                        const std::string& stem) {
  const std::string pattern = (parent / (stem + "XXXXXX")).string();
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr) {
    Diagnostics diagnostics;
    diagnostics.error({parent.string(), 0}, "",
                      std::string("cannot create a temporary directory: ") + std::strerror(errno));
    return diagnostics;
  }
  return TemporaryDirectory(std::filesystem::path(buffer.data()));
}

TemporaryDirectory::TemporaryDirectory(TemporaryDirectory&& other) noexcept
    : path_(std::move(other.path_)) {
  other.path_.clear();
}

TemporaryDirectory& TemporaryDirectory::operator=(TemporaryDirectory&& other) noexcept {
  if (this != &other) {
    remove();
    path_ = std::move(other.path_);
    other.path_.clear();
  }
  return *this;
}

TemporaryDirectory::~TemporaryDirectory() {
  remove();
}

void TemporaryDirectory::remove() {
  if (path_.empty()) return;
  std::error_code ignored;  // best effort: a leftover temp dir is not worth failing over
  std::filesystem::remove_all(path_, ignored);
  path_.clear();
}

}  // namespace talon::codegen
