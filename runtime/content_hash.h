// Content hashes for the kernel cache: equal text, equal name; different text, different name
// (to the odds of a 128-bit hash).
#pragma once

#include <string>
#include <string_view>

namespace talon::runtime {

// The first 32 hexadecimal digits (128 bits) of the SHA-256 of `text`. 128 bits keep a
// collision out of reach for any number of models a cache will ever hold (~2^-64 odds at
// 2^32 entries) and keep entry names short enough to read in `talon cache --list`; the
// integrity checksum of an entry (runtime/verified_entry.h) uses the full digest.
std::string content_hash(std::string_view text);

}  // namespace talon::runtime
