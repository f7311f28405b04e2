#include "common/read_file.h"

#include <filesystem>
#include <fstream>

namespace talon {
namespace {

Diagnostics file_error(const std::string& path, const std::string& message) {
  Diagnostics diag;
  diag.error({path, 0}, "", message);
  return diag;
}

}  // namespace

Expected<std::string> read_text_file(const std::string& path, const std::string& message) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return file_error(path, message);
  // Read in chunks into one buffer sized from the file's length (a cached unit is megabytes;
  // a stream's copies each cost their pages' first touch); a file that changes length while
  // it is read still ends where the reads end.
  std::string text;
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (!error) text.reserve(static_cast<std::size_t>(size));
  char chunk[1 << 16];
  while (file.read(chunk, sizeof chunk) || file.gcount() > 0)
    text.append(chunk, static_cast<std::size_t>(file.gcount()));
  if (file.bad()) return file_error(path, message);
  return text;
}

}  // namespace talon
