#include "common/read_file.h"

#include <fstream>
#include <sstream>

namespace talon {

Expected<std::string> read_text_file(const std::string& path, const std::string& message) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    Diagnostics diag;
    diag.error({path, 0}, "", message);
    return diag;
  }
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace talon
