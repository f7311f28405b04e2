// Content hashes for the kernel cache: equal text, equal name; different text, different name
// (to the odds of a 128-bit hash).
#pragma once

#include <string>
#include <string_view>

namespace talon::runtime {

// 32 hexadecimal digits: two 64-bit FNV-1a hashes of `text` with different offset bases.
std::string content_hash(std::string_view text);

}  // namespace talon::runtime
