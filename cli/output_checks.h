// Checks that an output path can be written, made before a long compile so that a typo in
// --out or -o fails at once. They create nothing that outlives the check.
#pragma once

#include <filesystem>

#include "common/expected.h"

namespace talon::cli {

// `file` can be created or overwritten: its directory exists and accepts new files, and
// `file`, if present, is not a directory and opens for writing (without truncating it).
Expected<int> check_writable_file(const std::filesystem::path& file);

// `directory` exists and accepts new files, or can be created: its nearest existing
// ancestor is a directory that accepts new files.
Expected<int> check_writable_directory(const std::filesystem::path& directory);

}  // namespace talon::cli
