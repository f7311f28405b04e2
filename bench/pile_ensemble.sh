#!/usr/bin/env bash
# The primitive pile's Newton counts over an ensemble of starts: models/primitive_pile.xml
# with box1 raised by k·1e-12 m, k = 0 … N−1 (k = 0 is the shipped file), each run for 3 s
# with `talon simulate`'s defaults. A picometre moves the pile's counts by a factor of two
# (bench/RESULTS.md, thirteenth session), so one run says little about a solver change; this
# prints each start's mean / max Newton updates per step and extra substeps, then the median
# of the means, the largest max and the median of the extra substeps.
# Usage: bench/pile_ensemble.sh [path/to/talon] [h] [N] [extra simulate args]
# (run from the repository root).
set -euo pipefail
command -v jq >/dev/null || { echo "bench/pile_ensemble.sh: needs jq (apt-get install jq)" >&2; exit 1; }
talon=${1:-build/cli/talon}
h=${2:-0.05}
count=${3:-8}
[ -x "$talon" ] || { echo "bench/pile_ensemble.sh: no talon binary at $talon (build it first)" >&2; exit 1; }
shift $(($# < 3 ? $# : 3))
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
pile=models/primitive_pile.xml
grep -q '<body name="box1" pos="0 0 0.1">' "$pile" ||
  { echo "bench/pile_ensemble.sh: $pile no longer starts box1 at 0 0 0.1" >&2; exit 1; }
printf '%3s %8s %5s %6s %s\n' k mean max extra world
touch "$scratch/means" "$scratch/extra"
for k in $(seq 0 $((count - 1))); do
  z=$(printf '0.1%011d' "$k")
  sed "s|<body name=\"box1\" pos=\"0 0 0.1\">|<body name=\"box1\" pos=\"0 0 $z\">|" "$pile" \
    >"$scratch/pile_$k.xml"
  # simulate exits non-zero when the world diverged; its JSON still has the counts.
  json=$("$talon" simulate "$scratch/pile_$k.xml" --dt "$h" --time 3 --json "$@" 2>/dev/null || true)
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
