// api::Options -> the runtime's SimulatorOptions, on the same defaults as the `talon` command
// (`talon simulate`; with gradients, `talon gradient`), so that the same model and options build
// the same unit and find the same kernel cache entry.
#pragma once

#include "frontend/load.h"
#include "runtime/simulator.h"
#include "talon/talon.h"

namespace talon::api {

// Errors for settings out of their range (as the command's options check them).
Result<SimulatorOptions> simulator_options(const Options& options);

// The frontend's LoadOptions, as the command builds them from its flags (cli/model_args.cpp);
// an error for a malformed Options::actuate text.
Result<LoadOptions> load_options(const Options& options);

}  // namespace talon::api
