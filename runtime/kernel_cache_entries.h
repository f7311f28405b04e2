// The kernel cache's entries (one talon-KEY.a or talon-KEY.so per compiled unit, with its
// checksum file talon-KEY.a.sum: runtime/verified_entry.h): listing, the size cap and
// least-recently-used eviction, clearing (`talon cache`). An entry's checksum file is counted,
// evicted and cleared with its library, never as an entry of its own.
//
// Last use is the entry's modification time, set on every cache hit (access times are not
// kept on noatime/relatime mounts). Removing an entry is safe for other processes: one that
// has the library open keeps its mapping (Linux frees the file at the last close), and one
// that finds it gone compiles it again. Entries used within the last minute are never
// evicted, so a library another process has just built or looked up stays until it has
// been opened.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "common/expected.h"

namespace talon::runtime {

struct CacheEntry {
  std::filesystem::path path;  // the library
  std::uintmax_t bytes = 0;    // the library's size and its checksum file's
  std::filesystem::file_time_type last_used;
};

// The cache's libraries, least recently used first (none when the directory is missing).
std::vector<CacheEntry> list_cache_entries(const std::filesystem::path& directory);
std::uintmax_t total_bytes(const std::vector<CacheEntry>& entries);

// The size cap when TALON_CACHE_MAX_MB is not set: entries measure 36 KiB (a sphere) to
// 1.7 MiB (a wheeled robot with contacts and its backward step; bench/RESULTS.md), so
// hundreds of models fit.
constexpr std::uintmax_t kDefaultCacheMaxMegabytes = 1024;
// TALON_CACHE_MAX_MB MiB (0: keep only what is in use), else the default; an error for a
// value that is not a whole number.
Expected<std::uintmax_t> cache_size_limit();

// Records a use of the entry now (best effort: an entry we cannot touch just ages).
void mark_used(const std::filesystem::path& entry);

struct RemovedEntries {
  int count = 0;
  std::uintmax_t bytes = 0;
};

// How recently used an entry must be to be safe from eviction.
constexpr auto kEvictionGrace = std::chrono::minutes(1);

// Removes entries, least recently used first, until the rest total at most `max_bytes`;
// never `keep` (the entry just built) nor one used within `grace`.
RemovedEntries evict_least_recently_used(const std::filesystem::path& directory,
                                         std::uintmax_t max_bytes,
                                         const std::filesystem::path& keep = {},
                                         std::chrono::seconds grace = kEvictionGrace);

// Removes every entry, and build directories and checksum files without a library that
// interrupted compiles left behind (those older than an hour: a younger one may belong to a
// compile still running).
RemovedEntries clear_cache(const std::filesystem::path& directory);

}  // namespace talon::runtime
