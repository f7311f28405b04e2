// Content hashes for the kernel cache: equal text, equal name; different text, different name
// (to the odds of a 128-bit hash).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace talon::runtime {

// The first 32 hexadecimal digits (128 bits) of the SHA-256 of `text`. 128 bits keep a
// collision out of reach for any number of models a cache will ever hold (~2^-64 odds at
// 2^32 entries) and keep entry names short enough to read in `talon cache --list`; the
// integrity checksum of an entry (runtime/verified_entry.h) uses the full digest.
std::string content_hash(std::string_view text);
// The same of the pieces' concatenation, without concatenating them (a unit's source is
// megabytes; its cache key appends the compiler's identity).
std::string content_hash(std::initializer_list<std::string_view> pieces);

}  // namespace talon::runtime
