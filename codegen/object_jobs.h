// Object files made in parallel: a model unit's text and its groups of kernels
// (unit_compiler.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/expected.h"

namespace talon::codegen {

// Runs each job (it makes one object's bytes) in a thread of its own; the objects in the
// jobs' order, or the first failed job's diagnostics.
Expected<std::vector<std::string>> run_object_jobs(
    const std::vector<std::function<Expected<std::string>()>>& jobs);

}  // namespace talon::codegen
