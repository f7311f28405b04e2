// SHA-256's compression function over whole 64-byte blocks (FIPS 180-4 §6.2.2), in two
// implementations that give the same state: portable C++, and x86's SHA extensions (SHA-NI:
// sha256rnds2 does two rounds, sha256msg1/msg2 the message schedule), about 6x faster. The
// kernel cache hashes a model unit's C text on every run (3.2 MB for MuJoCo's humanoid: 12 ms
// portable), so the cache hit's time depends on it (bench/RESULTS.md, twenty-sixth session).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace talon::runtime {

using Sha256State = std::array<uint32_t, 8>;

void sha256_blocks_portable(Sha256State& state, const unsigned char* data, std::size_t blocks);

// True when this CPU has the SHA extensions (and SSE4.1); sha256_blocks_sha_extensions may
// be called only then.
bool cpu_has_sha_extensions();
void sha256_blocks_sha_extensions(Sha256State& state, const unsigned char* data,
                                  std::size_t blocks);

// The faster of the two this CPU runs.
void sha256_blocks(Sha256State& state, const unsigned char* data, std::size_t blocks);

}  // namespace talon::runtime
