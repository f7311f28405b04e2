#!/usr/bin/env bash
# The main job: install what is missing, build Talon (Release), then, on a shipped model (or the
# model given as $1): inspect it, compile it to a model-specific C library, and simulate it on
# the CPU. The default scene drives the three-wheeled robot straight for 1.5 s at h = 0.1 s.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DTALON_TESTS=OFF >/dev/null
cmake --build build-release --target talon
talon=build-release/cli/talon
model=${1:-models/three_wheeler_scene.xml}
out=build-release/generated
echo "== talon inspect $model"
"$talon" inspect "$model"
echo "== talon compile $model -o $out"
"$talon" compile "$model" -o "$out"
if [ "$model" = models/three_wheeler_scene.xml ]; then
  echo "== talon simulate $model --time 1.5 --ctrl models/three_wheeler_drive.csv"
  "$talon" simulate "$model" --time 1.5 --ctrl models/three_wheeler_drive.csv --out "$out/trajectory.csv"
else
  echo "== talon simulate $model --time 1"
  "$talon" simulate "$model" --time 1 --out "$out/trajectory.csv"
fi
echo "== trajectory (body poses and solver statistics per step): $out/trajectory.csv"
