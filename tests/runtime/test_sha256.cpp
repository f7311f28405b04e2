// SHA-256 against the FIPS 180-4 examples (NIST's "Examples with intermediate values" and
// the million-'a' message of FIPS 180-2), piecewise hashing, and the cache key built on it.
#include <catch2/catch.hpp>

#include <string>

#include "runtime/content_hash.h"
#include "runtime/sha256.h"

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

TEST_CASE("the cache key is the first 128 bits of SHA-256", "[runtime][sha256]") {
  CHECK(runtime::content_hash("abc") == "ba7816bf8f01cfea414140de5dae2223");
  CHECK(runtime::content_hash("abd") != runtime::content_hash("abc"));
  // in pieces: the hash of their concatenation
  CHECK(runtime::content_hash({"a", "", "bc"}) == runtime::content_hash("abc"));
}

}  // namespace talon
