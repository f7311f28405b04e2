#!/usr/bin/env bash
# Convergence of the step on the multi-body scenes of the well-posed-step work: for each scene
# and h, `talon simulate --json` with simulate's defaults, and the Newton iterations per step
# (mean, max), the extra substeps (substeps − steps: what splitting added over the run; a
# split step re-solved at full h counts as one), the unconverged steps, the deepest
# penetration and the wall time. Usage: bench/scenes.sh [path/to/talon] [extra simulate args]
# (run from the repository root; MuJoCo's humanoid.xml comes from libmujoco-samples).
set -euo pipefail
command -v jq >/dev/null || { echo "bench/scenes.sh: needs jq (apt-get install jq)" >&2; exit 1; }
talon=${1:-build/cli/talon}
[ -x "$talon" ] || { echo "bench/scenes.sh: no talon binary at $talon (build it first)" >&2; exit 1; }
shift || true
humanoid=/usr/share/mujoco/model/humanoid/humanoid.xml
ctrl=$(mktemp)
trap 'rm -f "$ctrl"' EXIT
(echo push; for _ in $(seq 1 400); do echo 1.0; done) >"$ctrl"
printf '%-22s %5s %6s %7s %5s %7s %7s %10s %8s\n' scene h steps newton max extra unconv pen_m wall_s
run() { # name model h time [args...]
  local name=$1 model=$2 h=$3 time=$4
  shift 4
  local json
  json=$("$talon" simulate "$model" --dt "$h" --time "$time" --json "$@" 2>/dev/null) || {
    printf '%-22s %5s failed\n' "$name" "$h"
    return
  }
  jq -r --arg n "$name" --arg h "$h" '[$n, $h, .steps, (.newton_iterations.mean*100|round/100),
      .newton_iterations.max, (.substeps - .steps), .unconverged_steps,
      .max_penetration, (.wall_seconds*1000|round/1000)] | @tsv' <<<"$json" |
    awk -F'\t' '{printf "%-22s %5s %6s %7s %5s %7s %7s %10.3g %8s\n", $1,$2,$3,$4,$5,$6,$7,$8,$9}'
}
for h in 0.01 0.05 0.1; do
  run push_box models/push_box.xml "$h" 1 --ctrl "$ctrl" "$@"
  run box_stack models/box_stack.xml "$h" 3 "$@"
  run box_tower models/box_tower.xml "$h" 3 "$@"
done
for h in 0.05 0.1; do run box_drop_incline bench/scenes/box_drop_incline.xml "$h" 1 "$@"; done
for h in 0.05 0.1; do run primitive_pile models/primitive_pile.xml "$h" 3 "$@"; done
if [ -f "$humanoid" ]; then run humanoid "$humanoid" 0.05 3 "$@"; fi
run three_wheeler_drive models/three_wheeler_scene.xml 0.1 3 --ctrl models/three_wheeler_drive.csv "$@"
