#include "frontend/urdf/package_path.h"

#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace talon::urdf {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPackageScheme = "package://";
constexpr std::string_view kFileScheme = "file://";

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool is_file(const fs::path& path) {
  std::error_code ignored;  // a path we may not stat is simply not a match
  return fs::is_regular_file(path, ignored);
}

// The directories package:// searches: the caller's first, then ROS_PACKAGE_PATH's.
std::vector<std::string> package_roots(const std::vector<std::string>& package_paths) {
  std::vector<std::string> roots = package_paths;
  if (const char* env = std::getenv("ROS_PACKAGE_PATH")) {
    std::string_view rest = env;
    while (!rest.empty()) {
      const std::size_t colon = rest.find(':');
      const std::string_view entry = rest.substr(0, colon);
      if (!entry.empty()) roots.emplace_back(entry);
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
  }
  return roots;
}

// The last named component of a directory ("a/pkg/" -> "pkg").
std::string last_component(const std::string& dir) {
  fs::path path = fs::path(dir).lexically_normal();
  if (path.filename().empty()) path = path.parent_path();
  return path.filename().string();
}

// Tries `candidate`; records it as searched.
bool try_candidate(const fs::path& candidate, MeshLocation& location) {
  const std::string text = candidate.lexically_normal().string();
  location.searched.push_back(text);
  if (!is_file(candidate)) return false;
  location.found = true;
  location.path = text;
  return true;
}

MeshLocation locate_package(std::string_view uri, const std::vector<std::string>& package_paths) {
  MeshLocation location;
  std::string_view rest = uri.substr(kPackageScheme.size());
  if (const std::size_t start = rest.find_first_not_of('/');
      start > 0 && start != std::string_view::npos) {
    rest.remove_prefix(start);
    location.note =
        "read package:/// (an empty package name before the third slash) as package://: the "
        "first path component names the package";
  }
  const std::size_t slash = rest.find('/');
  if (slash == 0 || slash == std::string_view::npos || slash + 1 == rest.size()) {
    location.problem = "is not a valid package URI (expected package://PACKAGE/PATH)";
    return location;
  }
  const std::string package(rest.substr(0, slash));
  const std::string relative(rest.substr(slash + 1));
  for (const std::string& root : package_roots(package_paths)) {
    if (try_candidate(fs::path(root) / package / relative, location)) return location;
    if (last_component(root) == package && try_candidate(fs::path(root) / relative, location))
      return location;
  }
  if (location.searched.empty())
    location.problem =
        "not found: no package directories to search (give LoadOptions::package_paths or set "
        "ROS_PACKAGE_PATH)";
  return location;
}

MeshLocation locate_path(std::string_view name, const std::string& urdf_path) {
  MeshLocation location;
  if (name.empty()) {
    location.problem = "is an empty file name";
    return location;
  }
  fs::path path{std::string(name)};
  if (path.is_relative()) path = fs::path(urdf_path).parent_path() / path;
  try_candidate(path, location);
  return location;
}

}  // namespace

MeshLocation locate_mesh(const std::string& uri, const std::string& urdf_path,
                         const std::vector<std::string>& package_paths) {
  if (starts_with(uri, kPackageScheme)) return locate_package(uri, package_paths);
  if (starts_with(uri, kFileScheme)) return locate_path(uri.substr(kFileScheme.size()), urdf_path);
  const std::size_t scheme_end = uri.find("://");
  if (scheme_end != std::string::npos) {
    MeshLocation location;
    location.problem = "uses an unsupported URI scheme '" + uri.substr(0, scheme_end) +
                       "://' (Talon reads package://, file:// and plain paths)";
    return location;
  }
  return locate_path(uri, urdf_path);
}

std::string describe_search(const MeshLocation& location) {
  if (!location.problem.empty()) return location.problem;
  std::string text = "not found; searched:";
  for (std::size_t i = 0; i < location.searched.size(); ++i)
    text += (i ? ", " : " ") + location.searched[i];
  return text;
}

}  // namespace talon::urdf
