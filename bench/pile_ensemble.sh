#!/usr/bin/env bash
# The primitive pile's Newton counts over an ensemble of starts (bench/ensemble.sh): box1 of
# models/primitive_pile.xml raised by k·1e-12 m (or ENSEMBLE_SPACING), k = 0 … N−1, each run
# for 3 s.
# Usage: bench/pile_ensemble.sh [path/to/talon] [h] [N] [extra simulate args]
# (run from the repository root).
set -euo pipefail
exec "$(dirname "$0")/ensemble.sh" models/primitive_pile.xml box1 "$@"
