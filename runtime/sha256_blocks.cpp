#include "runtime/sha256_blocks.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TALON_SHA_EXTENSIONS 1
#else
#define TALON_SHA_EXTENSIONS 0
#endif

#include "common/diagnostics.h"

namespace talon::runtime {
namespace {

// FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the
// first 64 primes.
alignas(16) constexpr std::array<uint32_t, 64> kRoundConstants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr uint32_t rotr(uint32_t x, int n) {
  return (x >> n) | (x << (32 - n));
}

uint32_t load_big_endian(const unsigned char* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

// §6.2.2 step 1: the message schedule W0..W63 of one block.
std::array<uint32_t, 64> message_schedule(const unsigned char* block) {
  std::array<uint32_t, 64> w;
  for (int t = 0; t < 16; ++t) w[t] = load_big_endian(block + 4 * t);
  for (int t = 16; t < 64; ++t) {
    const uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    const uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  return w;
}

// §6.2.2 steps 2-4 for one block.
void compress_portable(Sha256State& state, const unsigned char* block) {
  const std::array<uint32_t, 64> w = message_schedule(block);
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
  for (int t = 0; t < 64; ++t) {
    const uint32_t sigma1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    const uint32_t choose = (e & f) ^ (~e & g);
    const uint32_t t1 = h + sigma1 + choose + kRoundConstants[t] + w[t];
    const uint32_t sigma0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    const uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
    const uint32_t t2 = sigma0 + majority;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  const uint32_t working[8] = {a, b, c, d, e, f, g, h};
  for (int i = 0; i < 8; ++i) state[i] += working[i];
}

#if TALON_SHA_EXTENSIONS
// Intel's SHA extensions keep the state as two vectors of words, ABEF and CDGH (Intel, "New
// Instructions Supporting the Secure Hash Algorithm on Intel Architecture Processors", 2013).
// One group of four rounds: sha256rnds2 twice, each on two words of W + K.
__attribute__((target("sha,sse4.1"))) inline void four_rounds(__m128i& abef, __m128i& cdgh,
                                                              __m128i schedule, int group) {
  const __m128i constants =
      _mm_load_si128(reinterpret_cast<const __m128i*>(kRoundConstants.data() + 4 * group));
  __m128i words = _mm_add_epi32(schedule, constants);
  cdgh = _mm_sha256rnds2_epu32(cdgh, abef, words);
  words = _mm_shuffle_epi32(words, 0x0e);  // the group's upper two words
  abef = _mm_sha256rnds2_epu32(abef, cdgh, words);
}
#endif

}  // namespace

void sha256_blocks_portable(Sha256State& state, const unsigned char* data, std::size_t blocks) {
  for (std::size_t i = 0; i < blocks; ++i) compress_portable(state, data + 64 * i);
}

#if TALON_SHA_EXTENSIONS
bool cpu_has_sha_extensions() {
  return __builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1");
}

__attribute__((target("sha,sse4.1"))) void sha256_blocks_sha_extensions(Sha256State& state,
                                                                        const unsigned char* data,
                                                                        std::size_t blocks) {
  // The words of each 32-bit lane are big-endian in the message.
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  // Lanes are named from the highest: state[0..3] loads as DCBA, state[4..7] as HGFE.
  const __m128i cdab =
      _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(state.data())), 0xb1);
  const __m128i efgh =
      _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(state.data() + 4)), 0x1b);
  __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xf0);
  for (std::size_t b = 0; b < blocks; ++b, data += 64) {
    const __m128i abef_before = abef, cdgh_before = cdgh;
    __m128i w[4];  // W of groups g-4..g-1, as a ring
    for (int g = 0; g < 16; ++g) {
      __m128i& slot = w[g & 3];
      if (g < 4) {
        slot = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 16 * g)),
                                byte_swap);
      } else {
        // §6.2.2 step 1, four words at a time: σ0 terms (msg1), W[t-7] (alignr), σ1 (msg2).
        const __m128i& previous = w[(g - 1) & 3];
        const __m128i with_sigma0 = _mm_sha256msg1_epu32(slot, w[(g - 3) & 3]);
        const __m128i lagged = _mm_alignr_epi8(previous, w[(g - 2) & 3], 4);
        slot = _mm_sha256msg2_epu32(_mm_add_epi32(with_sigma0, lagged), previous);
      }
      four_rounds(abef, cdgh, slot, g);
    }
    abef = _mm_add_epi32(abef, abef_before);
    cdgh = _mm_add_epi32(cdgh, cdgh_before);
  }
  const __m128i feba = _mm_shuffle_epi32(abef, 0x1b);
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xb1);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state.data()), _mm_blend_epi16(feba, dchg, 0xf0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state.data() + 4), _mm_alignr_epi8(dchg, feba, 8));
}
#else
bool cpu_has_sha_extensions() {
  return false;
}

void sha256_blocks_sha_extensions(Sha256State&, const unsigned char*, std::size_t) {
  TALON_INTERNAL_ASSERT(false, "SHA extensions called on a CPU without them");
}
#endif

void sha256_blocks(Sha256State& state, const unsigned char* data, std::size_t blocks) {
  static const bool sha_extensions = cpu_has_sha_extensions();
  if (sha_extensions)
    sha256_blocks_sha_extensions(state, data, blocks);
  else
    sha256_blocks_portable(state, data, blocks);
}

}  // namespace talon::runtime
