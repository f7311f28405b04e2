// Shared body of the reader fuzzers: read the bytes as a model, compile it, and check the
// one invariant a fuzzer can: a failed read or compile always explains itself.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>

#include "frontend/compile.h"
#include "frontend/load.h"

namespace talon::fuzz {

using Reader = Expected<ModelSpec> (*)(const std::string&, const std::string&, const LoadOptions&);

inline int read_and_compile(Reader reader, const uint8_t* data, size_t size) {
  const std::string xml(reinterpret_cast<const char*>(data), size);
  LoadOptions options;
  options.floating_base = size % 2 == 1;  // exercise both root attachments
  Expected<ModelSpec> spec = reader(xml, "fuzz-input.xml", options);
  if (!spec) {
    if (spec.diagnostics().format().empty()) std::abort();  // an error must say why
    return 0;
  }
  Expected<Model> model = compile_model(*spec);
  if (!model && model.diagnostics().format().empty()) std::abort();
  return 0;
}

}  // namespace talon::fuzz
