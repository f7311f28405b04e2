// A uniquely named directory that is removed (with its contents) when the owner goes away.
// Builds happen in one, next to their destination, so the result can be renamed into place
// atomically (rename is atomic only within one file system).
#pragma once

#include <filesystem>
#include <string>

#include "common/expected.h"

namespace talon::codegen {

class TemporaryDirectory {
 public:
  // Creates `parent`/`stem`XXXXXX (mkdtemp). Errors are diagnostics.
  static Expected<TemporaryDirectory> create(const std::filesystem::path& parent,
                                             const std::string& stem = ".talon-build-");

  TemporaryDirectory(TemporaryDirectory&& other) noexcept;
  TemporaryDirectory& operator=(TemporaryDirectory&& other) noexcept;
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  ~TemporaryDirectory();

  const std::filesystem::path& path() const { return path_; }

 private:
  explicit TemporaryDirectory(std::filesystem::path path) : path_(std::move(path)) {}
  void remove();

  std::filesystem::path path_;  // empty once moved from
};

}  // namespace talon::codegen
