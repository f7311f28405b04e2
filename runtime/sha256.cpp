#include "runtime/sha256.h"

#include <algorithm>

#include "runtime/sha256_blocks.h"

namespace talon::runtime {
namespace {

// §5.3.3: the first 32 bits of the fractional parts of the square roots of the first 8 primes.
constexpr std::array<uint32_t, 8> kInitialState = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

}  // namespace

Sha256::Sha256() : state_(kInitialState) {}

void Sha256::update(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t left = bytes.size();
  length_ += left;
  if (buffered_ > 0) {  // top up the waiting block first
    const std::size_t take = std::min(left, buffer_.size() - buffered_);
    std::copy(p, p + take, buffer_.data() + buffered_);
    buffered_ += take;
    p += take;
    left -= take;
    if (buffered_ < buffer_.size()) return;
    sha256_blocks(state_, buffer_.data(), 1);
    buffered_ = 0;
  }
  const std::size_t blocks = left / buffer_.size();  // whole blocks straight from the input
  sha256_blocks(state_, p, blocks);
  p += blocks * buffer_.size();
  left -= blocks * buffer_.size();
  std::copy(p, p + left, buffer_.data());
  buffered_ = left;
}

// §5.1.1: a 1 bit, zeros up to 56 bytes mod 64, then the length in bits, big-endian.
std::string Sha256::hex_digest() {
  const uint64_t bits = length_ * 8;
  unsigned char padding[72] = {0x80};
  const std::size_t zeros = (buffered_ < 56 ? 56 : 120) - buffered_;
  for (int i = 0; i < 8; ++i) padding[zeros + i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
  update(std::string_view(reinterpret_cast<const char*>(padding), zeros + 8));
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (uint32_t word : state_)
    for (int shift = 28; shift >= 0; shift -= 4) hex += kDigits[(word >> shift) & 0xf];
  return hex;
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 hash;
  hash.update(bytes);
  return hash.hex_digest();
}

}  // namespace talon::runtime
