// SHA-256 against the FIPS 180-4 examples (NIST's "Examples with intermediate values" and
// the million-'a' message of FIPS 180-2), piecewise hashing, and the cache key built on it.
#include <catch2/catch.hpp>

#include <string>

#include "runtime/content_hash.h"
#include "runtime/sha256.h"
#include "runtime/sha256_blocks.h"
#include "skip.h"

namespace talon {

TEST_CASE("SHA-256 of the standard test vectors", "[runtime][sha256]") {
  CHECK(runtime::sha256_hex("") ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(runtime::sha256_hex("abc") ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 448 bits: the padding does not fit the last block, so a second one follows.
  CHECK(runtime::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(runtime::sha256_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                            "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu") ==
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  CHECK(runtime::sha256_hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("SHA-256 fed in pieces equals SHA-256 in one call", "[runtime][sha256]") {
  std::string message;
  for (int i = 0; i < 1000; ++i) message += static_cast<char>(i * 37 % 256);
  runtime::Sha256 pieces;
  // Piece sizes that straddle, fill and skip whole 64-byte blocks.
  for (std::size_t at = 0, size = 1; at < message.size(); at += size, size = size * 3 % 97 + 1)
    pieces.update(std::string_view(message).substr(at, size));
  CHECK(pieces.hex_digest() == runtime::sha256_hex(message));
}

namespace {

// Pseudo-random bytes over several blocks, the state carried across them: every round and
// schedule word of the compression function takes part.
std::string schedule_test_blocks() {
  std::string message;
  for (unsigned i = 0; i < 64 * 37; ++i) message += static_cast<char>((i * 2654435761u) >> 13);
  return message;
}

// The state after hashing `message`'s whole blocks with `blocks` from the initial state.
template <class Blocks>
runtime::Sha256State blocks_state(const std::string& message, Blocks blocks) {
  runtime::Sha256State state = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  blocks(state, reinterpret_cast<const unsigned char*>(message.data()), message.size() / 64);
  return state;
}

}  // namespace

TEST_CASE("SHA-256's SHA-extension blocks give the portable blocks' state", "[runtime][sha256]") {
  if (!runtime::cpu_has_sha_extensions())
    TALON_SKIP("this CPU has no SHA extensions (sha, sse4.1): the portable blocks hash here");
  const std::string message = schedule_test_blocks();
  CHECK(blocks_state(message, runtime::sha256_blocks_sha_extensions) ==
        blocks_state(message, runtime::sha256_blocks_portable));
}

TEST_CASE("SHA-256's dispatched blocks give the portable blocks' state", "[runtime][sha256]") {
  const std::string message = schedule_test_blocks();
  CHECK(blocks_state(message, runtime::sha256_blocks) ==
        blocks_state(message, runtime::sha256_blocks_portable));
}

TEST_CASE("the cache key is the first 128 bits of SHA-256", "[runtime][sha256]") {
  CHECK(runtime::content_hash("abc") == "ba7816bf8f01cfea414140de5dae2223");
  CHECK(runtime::content_hash("abd") != runtime::content_hash("abc"));
  // in pieces: the hash of their concatenation
  CHECK(runtime::content_hash({"a", "", "bc"}) == runtime::content_hash("abc"));
}

}  // namespace talon
