#include "runtime/kernel_cache_entries.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string>

#include "runtime/verified_entry.h"

namespace talon::runtime {
namespace {

using FileClock = std::filesystem::file_time_type::clock;

constexpr auto kStaleBuildAge = std::chrono::hours(1);

bool is_build_directory_name(const std::string& name) {
  return name.starts_with(".talon-build-");
}

// The size of the entry's checksum file, 0 when it has none.
std::uintmax_t checksum_bytes(const std::filesystem::path& library) {
  std::error_code error;
  const std::uintmax_t bytes = std::filesystem::file_size(checksum_path(library), error);
  return error ? 0 : bytes;
}

// Removes the entry (its library, then its checksum file, so that an interruption leaves at
// worst a checksum without a library, which nothing loads) and adds what it held to
// `removed`; another process may have removed it first, which is no error.
void remove_counted(const CacheEntry& entry, RemovedEntries& removed) {
  std::error_code error;
  const bool library_removed = std::filesystem::remove(entry.path, error) && !error;
  std::filesystem::remove(checksum_path(entry.path), error);
  if (library_removed) {
    ++removed.count;
    removed.bytes += entry.bytes;
  }
}

// Checksum files whose library is gone (an interrupted publication or removal), last
// modified before `before`: a younger one may belong to a publication in progress.
void remove_orphan_checksums(const std::filesystem::path& directory,
                             std::filesystem::file_time_type before) {
  std::error_code error;
  for (std::filesystem::directory_iterator it(directory, error), end; !error && it != end;
       it.increment(error)) {
    const std::filesystem::path& sum = it->path();
    if (!is_checksum_name(sum.filename().string())) continue;
    std::filesystem::path library = sum;
    library.replace_extension();  // talon-KEY.so.sum -> talon-KEY.so
    std::error_code stat_error;
    if (!std::filesystem::exists(library, stat_error) && !stat_error &&
        it->last_write_time(stat_error) < before && !stat_error)
      std::filesystem::remove(sum, stat_error);
  }
}

}  // namespace

std::vector<CacheEntry> list_cache_entries(const std::filesystem::path& directory) {
  std::vector<CacheEntry> entries;
  std::error_code error;
  for (std::filesystem::directory_iterator it(directory, error), end; !error && it != end;
       it.increment(error)) {
    if (!is_entry_file_name(it->path().filename().string())) continue;
    std::error_code stat_error;
    CacheEntry entry{it->path(), it->file_size(stat_error), it->last_write_time(stat_error)};
    entry.bytes += checksum_bytes(entry.path);
    if (!stat_error) entries.push_back(std::move(entry));  // else removed meanwhile
  }
  std::sort(entries.begin(), entries.end(),
            [](const CacheEntry& a, const CacheEntry& b) { return a.last_used < b.last_used; });
  return entries;
}

std::uintmax_t total_bytes(const std::vector<CacheEntry>& entries) {
  std::uintmax_t total = 0;
  for (const CacheEntry& entry : entries) total += entry.bytes;
  return total;
}

Expected<std::uintmax_t> cache_size_limit() {
  const char* value = std::getenv("TALON_CACHE_MAX_MB");
  std::uintmax_t megabytes = kDefaultCacheMaxMegabytes;
  if (value == nullptr || *value == '\0') return megabytes << 20;
  const std::string text(value);
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), megabytes);
  if (error != std::errc() || end != text.data() + text.size() || megabytes > (1ULL << 40))
    return Diagnostics::single_error("TALON_CACHE_MAX_MB='" + text +
                                     "' is not a whole number of MiB");
  return megabytes << 20;
}

void mark_used(const std::filesystem::path& entry) {
  std::error_code ignored;
  std::filesystem::last_write_time(entry, FileClock::now(), ignored);
}

RemovedEntries evict_least_recently_used(const std::filesystem::path& directory,
                                         std::uintmax_t max_bytes,
                                         const std::filesystem::path& keep,
                                         std::chrono::seconds grace) {
  const std::vector<CacheEntry> entries = list_cache_entries(directory);
  std::uintmax_t total = total_bytes(entries);
  const auto recent = FileClock::now() - grace;
  RemovedEntries removed;
  for (const CacheEntry& entry : entries) {  // oldest first
    if (total <= max_bytes) break;
    if (entry.path == keep || entry.last_used >= recent) continue;
    total -= entry.bytes;  // gone either way: removed here or by another process
    remove_counted(entry, removed);
  }
  remove_orphan_checksums(directory, FileClock::now() - kStaleBuildAge);
  return removed;
}

RemovedEntries clear_cache(const std::filesystem::path& directory) {
  RemovedEntries removed;
  for (const CacheEntry& entry : list_cache_entries(directory)) remove_counted(entry, removed);
  const auto stale = FileClock::now() - kStaleBuildAge;
  remove_orphan_checksums(directory, stale);
  std::error_code error;
  for (std::filesystem::directory_iterator it(directory, error), end; !error && it != end;
       it.increment(error)) {
    std::error_code stat_error;
    if (is_build_directory_name(it->path().filename().string()) && it->is_directory(stat_error) &&
        it->last_write_time(stat_error) < stale && !stat_error) {
      std::error_code ignored;
      std::filesystem::remove_all(it->path(), ignored);
    }
  }
  return removed;
}

}  // namespace talon::runtime
