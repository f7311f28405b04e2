// Whole-file reads at the boundaries (model readers, control tables): the file's bytes, or a
// Diagnostics error "<path>: error: <message>" when it cannot be opened.
#pragma once

#include <string>

#include "common/expected.h"

namespace talon {

Expected<std::string> read_text_file(const std::string& path, const std::string& message);

}  // namespace talon
