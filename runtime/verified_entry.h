// A kernel cache entry is a compiled unit, talon-KEY.a (the object files of a unit) or
// talon-KEY.so (a shared library), and its checksum file, talon-KEY.a.sum ("<length in bytes>
// <SHA-256>"). A unit is loaded only after its length and checksum match: dlopen maps the file, and
// a truncated one (a full disk, a crash, an interrupted copy of the cache) kills the process with
// SIGBUS instead of failing; a damaged object file would link garbage.
//
// Publishing renames the checksum into place first and the library second, each from a
// build directory next to them (atomic within one file system); nothing is ever rewritten in
// place, so a process that has the old library mapped keeps its own file. A crash between
// the two renames leaves a new checksum beside the old library (or none), which does not
// match, so the entry is rebuilt: a pair that matches always holds the bytes that some
// complete build hashed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "common/expected.h"

namespace talon::runtime {

// talon-KEY.so -> talon-KEY.so.sum (talon-KEY.a -> talon-KEY.a.sum)
std::filesystem::path checksum_path(const std::filesystem::path& library);
// An entry's file: talon-KEY.a (object files) or talon-KEY.so (a shared library).
bool is_entry_file_name(const std::string& file_name);
bool is_checksum_name(const std::string& file_name);

struct FileChecksum {
  std::uintmax_t bytes = 0;
  std::string sha256;  // 64 hexadecimal digits
};

// The length and SHA-256 of the file's bytes.
Expected<FileChecksum> checksum_of_file(const std::filesystem::path& path);

// Why the library at `library` must not be loaded (missing, no checksum file, another length,
// another checksum), or nothing when it matches its checksum file.
std::optional<std::string> entry_damage(const std::filesystem::path& library);

// The bytes of the entry `library`, read once and checked as entry_damage checks the file:
// what is verified is what gets linked (an object archive, loaded from memory), even when
// the file changes in between.
struct VerifiedBytes {
  std::string bytes;                  // when damage is empty
  std::optional<std::string> damage;  // why the entry must not be loaded
};
VerifiedBytes read_verified_entry(const std::filesystem::path& library);

// Moves `built` (a library in a build directory next to `library`) into place as the entry
// `library`, its checksum file first. The build directory receives the checksum file
// before its rename.
Diagnostics publish_entry(const std::filesystem::path& built, const std::filesystem::path& library);

}  // namespace talon::runtime
