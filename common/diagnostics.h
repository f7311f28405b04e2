// Diagnostics: user-facing errors and notes as values (never exceptions).
//
// Every message about a user's input carries the file, the line and the element it
// concerns, so a person can jump straight to the problem ("robot.urdf:12: <joint
// name='hip'>: axis has zero length"). Internal bugs are not diagnostics: they are
// TALON_INTERNAL_ASSERT failures (see below), which throw, because no user input should
// ever be able to reach them.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace talon {

struct SourceLoc {
  std::string file;  // as the user named it (or the included file's resolved path)
  int line = 0;      // 1-based; 0 = unknown
};

enum class Severity { Note, Error };

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceLoc loc;
  std::string element;  // e.g. "<joint name='hip'>"; empty when it concerns the whole file
  std::string message;

  // "file:line: error: <element>: message"
  std::string format() const;
};

// An ordered list of diagnostics. Readers append to it and keep going where they can, so
// a user sees every problem of a file in one run.
class Diagnostics {
 public:
  // A list holding one error that concerns no file (a bad run, a bad option).
  static Diagnostics single_error(std::string message);

  void error(const SourceLoc& loc, std::string element, std::string message);
  void note(const SourceLoc& loc, std::string element, std::string message);
  // A note that is printed once per key (e.g. once per unknown URDF tag name).
  void note_once(const std::string& key, const SourceLoc& loc, std::string element,
                 std::string message);
  void append(const Diagnostics& other);

  bool has_errors() const;
  std::size_t error_count() const;
  const std::vector<Diagnostic>& items() const { return items_; }
  std::vector<std::string> notes() const;  // the formatted notes
  std::string format() const;              // one formatted diagnostic per line

 private:
  std::vector<Diagnostic> items_;
  std::vector<std::string> once_keys_;
};

// Thrown only for programmer errors (broken invariants), never for bad user input.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void internal_error(const char* file, int line, const char* condition,
                                 const std::string& message);

}  // namespace talon

#define TALON_INTERNAL_ASSERT(cond, msg)                                  \
  do {                                                                    \
    if (!(cond)) ::talon::internal_error(__FILE__, __LINE__, #cond, msg); \
  } while (0)
