// compile_model: validates a ModelSpec and produces the immutable Model.
#pragma once

#include "common/expected.h"
#include "frontend/model.h"
#include "frontend/spec.h"

namespace talon {

// Checks every rule that holds whatever the file format (see compile.cpp for the list),
// welds bodies without moving joints into their parents, and fills the Model. Errors
// carry the spec element's file:line. The spec's notes pass through to Model::notes.
Expected<Model> compile_model(const ModelSpec& spec);

}  // namespace talon
