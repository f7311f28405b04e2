// `talon cache [--list | --clear]`: where the kernel cache is, what it holds and its cap;
// its entries with size and last use; or removing them all.
#include <ctime>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "runtime/kernel_cache.h"
#include "runtime/kernel_cache_entries.h"

namespace talon::cli {
namespace {

struct CacheArgs {
  bool list = false, clear = false;
};

std::string format_bytes(std::uintmax_t bytes) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1);
  if (bytes < (1u << 20))
    out << bytes / 1024.0 << " KiB";
  else
    out << bytes / double(1u << 20) << " MiB";
  return out.str();
}

std::string format_local_time(std::filesystem::file_time_type when) {
  const auto system = std::chrono::system_clock::now() +
                      std::chrono::duration_cast<std::chrono::system_clock::duration>(
                          when - std::filesystem::file_time_type::clock::now());
  const std::time_t seconds = std::chrono::system_clock::to_time_t(system);
  std::tm local{};
  localtime_r(&seconds, &local);
  std::ostringstream out;
  out << std::put_time(&local, "%Y-%m-%d %H:%M:%S");
  return out.str();
}

std::string format_cap() {
  const Expected<std::uintmax_t> limit = runtime::cache_size_limit();
  if (!limit)
    return limit.diagnostics().items().front().message + "; the default " +
           std::to_string(runtime::kDefaultCacheMaxMegabytes) + " MiB applies";
  return format_bytes(*limit);
}

void print_summary(const std::filesystem::path& directory) {
  const std::vector<runtime::CacheEntry> entries = runtime::list_cache_entries(directory);
  std::cout << "kernel cache " << directory.string() << "\n"
            << entries.size() << (entries.size() == 1 ? " entry, " : " entries, ")
            << format_bytes(runtime::total_bytes(entries)) << "; cap " << format_cap() << '\n';
}

// Most recently used first: the entries eviction would keep longest.
void print_entries(const std::filesystem::path& directory) {
  const std::vector<runtime::CacheEntry> entries = runtime::list_cache_entries(directory);
  for (auto it = entries.rbegin(); it != entries.rend(); ++it)
    std::cout << format_local_time(it->last_used) << "  " << std::setw(10)
              << format_bytes(it->bytes) << "  " << it->path.filename().string() << '\n';
}

int run(const CacheArgs& args) {
  const std::filesystem::path directory = runtime::default_cache_directory();
  if (args.clear) {
    const runtime::RemovedEntries removed = runtime::clear_cache(directory);
    std::cout << "removed " << removed.count << (removed.count == 1 ? " entry (" : " entries (")
              << format_bytes(removed.bytes) << ") from " << directory.string() << '\n';
    return 0;
  }
  if (args.list) print_entries(directory);
  print_summary(directory);
  return 0;
}

}  // namespace

void add_cache_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "cache",
      "Show the kernel cache (compiled models): its directory, entries, total size and cap.\n"
      "Directory: $TALON_CACHE_DIR, else $XDG_CACHE_HOME/talon, else ~/.cache/talon.\n"
      "Cap: $TALON_CACHE_MAX_MB MiB (default " +
          std::to_string(runtime::kDefaultCacheMaxMegabytes) +
          "); after each new entry the least recently\n"
          "used ones are removed until the cache fits (never one used in the last minute).");
  auto args = std::make_shared<CacheArgs>();
  auto* list = command->add_flag(
      "--list", args->list, "List the entries, most recently used first: last use, size, file");
  auto* clear = command->add_flag("--clear", args->clear, "Remove every entry");
  list->excludes(clear);
  command->callback([args, &exit_code] { exit_code = run(*args); });
}

}  // namespace talon::cli
