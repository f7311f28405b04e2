// Setting up worlds from command-line arguments (`talon simulate`, `talon gradient`).
#pragma once

#include <string>

#include "common/expected.h"
#include "runtime/simulator.h"

namespace talon::cli {

// Every world starts from keyframe `name` (its qpos/qvel mapped to maximal coordinates, its
// ctrl); an empty name leaves the reference pose at rest. Errors for an unknown keyframe.
Expected<int> apply_keyframe(const Simulator& sim, const std::string& name,
                             runtime::WorldBatch& worlds);

}  // namespace talon::cli
