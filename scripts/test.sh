#!/usr/bin/env bash
# Builds Talon and runs every test under AddressSanitizer + UndefinedBehaviorSanitizer
# (optimised, so the suite stays fast), then fuzzes each reader for 60 s.
# Set TALON_FUZZ_SECONDS=0 to skip fuzzing locally.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)
fuzz_seconds=${TALON_FUZZ_SECONDS:-60}

echo "== build + test under ASan + UBSan"
# -g1: line tables only, which is what the sanitizers' reports (file:line) need; full debug
# information only slows every file (CLI11's header alone: 40 s -> 31 s under the sanitizers).
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTALON_SANITIZE=ON \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  >/dev/null
cmake --build build-asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs"

if [ "$fuzz_seconds" -gt 0 ]; then
  echo "== fuzz the readers (${fuzz_seconds} s each)"
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTALON_FUZZ=ON -DTALON_SANITIZE=ON -DTALON_TESTS=OFF >/dev/null
  cmake --build build-fuzz -j "$jobs" --target fuzz_urdf fuzz_mjcf
  for reader in urdf mjcf; do
    corpus=$(mktemp -d)
    build-fuzz/fuzz/fuzz_"$reader" -max_total_time="$fuzz_seconds" -timeout=10 \
      -rss_limit_mb=4096 -print_final_stats=1 "$corpus" models tests/data/"$reader" 2>&1 | tail -n 12
    rm -rf "$corpus"
  done
fi
echo "== all tests passed"
