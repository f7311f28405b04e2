#include "runtime/verified_entry.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include "common/read_file.h"
#include "runtime/sha256.h"

namespace talon::runtime {
namespace {

constexpr const char* kChecksumSuffix = ".sum";

Diagnostics entry_error(const std::filesystem::path& path, const std::string& message) {
  Diagnostics d;
  d.error({path.string(), 0}, "", message);
  return d;
}

std::string format_checksum(const FileChecksum& sum) {
  return std::to_string(sum.bytes) + " " + sum.sha256 + "\n";
}

std::optional<FileChecksum> read_checksum(const std::filesystem::path& path) {
  std::ifstream in(path);
  FileChecksum sum;
  if (!(in >> sum.bytes >> sum.sha256) || sum.sha256.size() != 64) return std::nullopt;
  return sum;
}

bool write_checksum(const std::filesystem::path& path, const FileChecksum& sum) {
  std::ofstream out(path, std::ios::binary);
  out << format_checksum(sum);
  out.close();
  return static_cast<bool>(out);
}

std::string describe_mismatch(const FileChecksum& actual, const FileChecksum& expected) {
  if (actual.bytes != expected.bytes)
    return "it is " + std::to_string(actual.bytes) + " bytes long, not " +
           std::to_string(expected.bytes);
  return "its SHA-256 is " + actual.sha256 + ", not " + expected.sha256;
}

}  // namespace

std::filesystem::path checksum_path(const std::filesystem::path& library) {
  std::filesystem::path sum = library;
  sum += kChecksumSuffix;
  return sum;
}

// .a: an in-process unit (its objects); .so: the system compiler's; .o: a single
// object, as the in-process compiler wrote entries before units came in parts (still
// counted, so the cap evicts them).
bool is_entry_file_name(const std::string& file_name) {
  return file_name.starts_with("talon-") &&
         (file_name.ends_with(".a") || file_name.ends_with(".o") || file_name.ends_with(".so"));
}

bool is_checksum_name(const std::string& file_name) {
  return file_name.ends_with(kChecksumSuffix) &&
         is_entry_file_name(file_name.substr(0, file_name.size() - std::strlen(kChecksumSuffix)));
}

Expected<FileChecksum> checksum_of_file(const std::filesystem::path& path) {
  // read(), not a mapping: a file that shrinks while we read it ends early, never faults.
  std::ifstream in(path, std::ios::binary);
  if (!in) return entry_error(path, "cannot open the file");
  Sha256 hash;
  FileChecksum sum;
  std::string chunk(1 << 16, '\0');
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
    const auto got = static_cast<std::size_t>(in.gcount());
    hash.update(std::string_view(chunk.data(), got));
    sum.bytes += got;
  }
  if (in.bad()) return entry_error(path, "cannot read the file");
  sum.sha256 = hash.hex_digest();
  return sum;
}

namespace {

// The checksum file's record of `library`, or why there is none. Read before the library: a
// writer renames it before the library, so a library read after it is at least as new, and a
// mismatch between the two only costs a rebuild.
std::optional<std::string> expected_checksum(const std::filesystem::path& library,
                                             FileChecksum& expected) {
  std::error_code error;
  if (!std::filesystem::exists(library, error)) return "it is missing";
  if (!std::filesystem::exists(checksum_path(library), error)) return "it has no checksum file";
  const std::optional<FileChecksum> read = read_checksum(checksum_path(library));
  if (!read) return "its checksum file is malformed";
  expected = *read;
  return std::nullopt;
}

std::optional<std::string> mismatch(const FileChecksum& actual, const FileChecksum& expected) {
  if (actual.bytes != expected.bytes || actual.sha256 != expected.sha256)
    return describe_mismatch(actual, expected);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> entry_damage(const std::filesystem::path& library) {
  FileChecksum expected;
  if (std::optional<std::string> missing = expected_checksum(library, expected)) return missing;
  const Expected<FileChecksum> actual = checksum_of_file(library);
  if (!actual) return actual.diagnostics().items().front().message;
  return mismatch(*actual, expected);
}

VerifiedBytes read_verified_entry(const std::filesystem::path& library) {
  VerifiedBytes out;
  FileChecksum expected;
  if ((out.damage = expected_checksum(library, expected))) return out;
  Expected<std::string> bytes = read_text_file(library.string(), "cannot read the file");
  if (!bytes) {
    out.damage = bytes.diagnostics().items().front().message;
    return out;
  }
  Sha256 hash;
  hash.update(*bytes);
  if ((out.damage = mismatch({bytes->size(), hash.hex_digest()}, expected))) return out;
  out.bytes = std::move(*bytes);
  return out;
}

Diagnostics publish_entry(const std::filesystem::path& built,
                          const std::filesystem::path& library) {
  const Expected<FileChecksum> sum = checksum_of_file(built);
  if (!sum) return sum.diagnostics();
  const std::filesystem::path staged_sum = checksum_path(built);
  if (!write_checksum(staged_sum, *sum))
    return entry_error(staged_sum, "cannot write the library's checksum");
  std::error_code error;
  std::filesystem::rename(staged_sum, checksum_path(library), error);
  if (!error) std::filesystem::rename(built, library, error);
  if (error)
    return entry_error(library, "cannot move the library into the cache: " + error.message());
  return {};
}

}  // namespace talon::runtime
