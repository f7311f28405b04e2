#!/usr/bin/env bash
# A scene's Newton counts over an ensemble of starts: MODEL with body BODY raised by k·SPACING,
# k = 0 … N−1 (k = 0 is the file as it is), each run for 3 s with `talon simulate`'s defaults.
# SPACING is the environment's ENSEMBLE_SPACING in metres, 1e-12 by default. A picometre moves
# a pile's counts by a factor of two (bench/RESULTS.md, thirteenth session), so one run says
# little about a solver change; this prints each start's mean / max Newton updates per step
# and extra substeps, then the median of the means, the largest max and the median of the
# extra substeps. Picometre starts part only where a step's rounding decides something, and
# many follow one trajectory (MuJoCo's humanoid: two to three distinct ones in sixteen);
# ENSEMBLE_SPACING=1e-3 gives starts that fall differently (bench/RESULTS.md,
# twenty-fourth session). BODY's element must be written <body name="BODY" pos="X Y Z"
# (a file that includes others must be copied with them: MODEL is rewritten into a scratch
# folder).
# Usage: bench/ensemble.sh MODEL BODY [path/to/talon] [h] [N] [extra simulate args]
# e.g.   bench/ensemble.sh /usr/share/mujoco/model/humanoid/humanoid.xml torso build/cli/talon 0.05 8
#        ENSEMBLE_SPACING=1e-3 bench/ensemble.sh …  (starts a millimetre apart)
# (run from the repository root; bench/pile_ensemble.sh is this on models/primitive_pile.xml).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: bench/ensemble.sh MODEL BODY [talon] [h] [N] [simulate args]" >&2; exit 2; }
model=$1
body=$2
talon=${3:-build/cli/talon}
h=${4:-0.05}
count=${5:-8}
spacing=${ENSEMBLE_SPACING:-1e-12}
shift $(($# < 5 ? $# : 5))
# A spacing awk cannot read as a positive number would raise every start by 0: 8 copies of one run.
awk -v d="$spacing" 'BEGIN {exit !(d ~ /^[0-9.]+([eE][-+]?[0-9]+)?$/ && d + 0 > 0)}' ||
  { echo "bench/ensemble.sh: ENSEMBLE_SPACING='$spacing' is not a positive number of metres" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench/ensemble.sh: needs jq (apt-get install jq)" >&2; exit 1; }
[ -x "$talon" ] || { echo "bench/ensemble.sh: no talon binary at $talon (build it first)" >&2; exit 1; }
[ -f "$model" ] || { echo "bench/ensemble.sh: no model at $model" >&2; exit 1; }
pattern="<body name=\"$body\" pos=\"\([^ \"]*\) \([^ \"]*\) \([^ \"]*\)\""
position=$(sed -n "s|.*$pattern.*|\1 \2 \3|p" "$model" | head -1)
[ -n "$position" ] ||
  { echo "bench/ensemble.sh: $model has no <body name=\"$body\" pos=\"X Y Z\"" >&2; exit 1; }
read -r x y z <<<"$position"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
printf '%3s %8s %5s %6s %s\n' k mean max extra world
touch "$scratch/means" "$scratch/extra"
for k in $(seq 0 $((count - 1))); do
  raised=$(awk -v z="$z" -v k="$k" -v d="$spacing" 'BEGIN {printf "%.15g", z + k * d}')
  sed "s|<body name=\"$body\" pos=\"$x $y $z\"|<body name=\"$body\" pos=\"$x $y $raised\"|" "$model" \
    >"$scratch/start_$k.xml"
  # simulate exits non-zero when the world diverged; its JSON still has the counts.
  json=$("$talon" simulate "$scratch/start_$k.xml" --dt "$h" --time 3 --json "$@" 2>/dev/null || true)
  if [ -z "$json" ]; then
    printf '%s\t-\t-\t-\tfailed\n' "$k"
    continue
  fi
  jq -r --arg k "$k" '[$k, (.newton_iterations.mean*10|round/10), .newton_iterations.max,
      (.substeps - .steps), (if .diverged_worlds > 0 then "diverged" else "ok" end)] | @tsv' \
    <<<"$json"
done >"$scratch/rows"
awk -F'\t' '{printf "%3s %8s %5s %6s %s\n", $1, $2, $3, $4, $5}' "$scratch/rows"
awk -F'\t' -v means="$scratch/means" -v extra="$scratch/extra" '
    $5 == "ok" {print $2 > means; print $4 > extra}
    $5 != "failed" && $3 > max {max = $3}
    $5 != "ok" {bad++}
    END {printf "largest max %s; %d of %d starts diverged or failed\n", max, bad, NR}' "$scratch/rows"
median() { sort -g "$1" | awk '{v[NR] = $1} END {print (NR == 0 ? "-" : NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }
echo "over the converged starts: median mean $(median "$scratch/means"), median extra substeps $(median "$scratch/extra")"
