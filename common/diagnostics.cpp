#include "common/diagnostics.h"

#include <algorithm>
#include <sstream>

namespace talon {

std::string Diagnostic::format() const {
  std::ostringstream out;
  if (!loc.file.empty()) {
    out << loc.file;
    if (loc.line > 0) out << ':' << loc.line;
    out << ": ";
  }
  out << (severity == Severity::Error ? "error: " : "note: ");
  if (!element.empty()) out << element << ": ";
  out << message;
  return out.str();
}

Diagnostics Diagnostics::single_error(std::string message) {
  Diagnostics d;
  d.error({}, "", std::move(message));
  return d;
}

void Diagnostics::error(const SourceLoc& loc, std::string element, std::string message) {
  items_.push_back({Severity::Error, loc, std::move(element), std::move(message)});
}

void Diagnostics::note(const SourceLoc& loc, std::string element, std::string message) {
  items_.push_back({Severity::Note, loc, std::move(element), std::move(message)});
}

void Diagnostics::note_once(const std::string& key, const SourceLoc& loc, std::string element,
                            std::string message) {
  if (std::find(once_keys_.begin(), once_keys_.end(), key) != once_keys_.end()) return;
  once_keys_.push_back(key);
  note(loc, std::move(element), std::move(message));
}

void Diagnostics::append(const Diagnostics& other) {
  items_.insert(items_.end(), other.items_.begin(), other.items_.end());
  for (const auto& key : other.once_keys_)
    if (std::find(once_keys_.begin(), once_keys_.end(), key) == once_keys_.end())
      once_keys_.push_back(key);
}

bool Diagnostics::has_errors() const {
  return error_count() > 0;
}

std::size_t Diagnostics::error_count() const {
  return static_cast<std::size_t>(
      std::count_if(items_.begin(), items_.end(),
                    [](const Diagnostic& d) { return d.severity == Severity::Error; }));
}

std::vector<std::string> Diagnostics::notes() const {
  std::vector<std::string> out;
  for (const auto& d : items_)
    if (d.severity == Severity::Note) out.push_back(d.format());
  return out;
}

std::string Diagnostics::format() const {
  std::string out;
  for (const auto& d : items_) out += d.format() + "\n";
  return out;
}

void internal_error(const char* file, int line, const char* condition, const std::string& message) {
  std::ostringstream out;
  out << "talon internal error at " << file << ':' << line << ": (" << condition << ") " << message
      << " -- this is a bug in Talon, please report it";
  throw InternalError(out.str());
}

}  // namespace talon
