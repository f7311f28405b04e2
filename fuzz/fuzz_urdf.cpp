#include "fuzz/fuzz_one.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return talon::fuzz::read_and_compile(&talon::read_urdf_string, data, size);
}
