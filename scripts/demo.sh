#!/usr/bin/env bash
# The main job: install what is missing, build Talon (Release), and run it on a shipped model.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DTALON_TESTS=OFF >/dev/null
cmake --build build-release --target talon
model=${1:-models/three_wheeler_scene.xml}
echo "== talon inspect $model"
build-release/cli/talon inspect "$model"
