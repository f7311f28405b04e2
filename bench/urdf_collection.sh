#!/bin/bash
# Which URDFs of a robot collection load: `talon inspect --floating-base` on every *.urdf
# under ROOT/robots, one line each (OK, or FAIL with the first error), then a count.
#
#   bench/urdf_collection.sh build/cli/talon /path/to/example-robot-data
#
# ROOT is a checkout of github.com/Gepetto/example-robot-data (with its meshes): its files
# name meshes as package://example-robot-data/..., so ROOT's parent directory must be a
# package root, or ROOT itself named example-robot-data. The script puts a link to ROOT named
# example-robot-data in a temporary directory and passes that as ROS_PACKAGE_PATH.
set -u
talon=$1
root=$(cd "$2" && pwd)
packages=$(mktemp -d)
trap 'rm -rf "$packages"' EXIT
ln -s "$root" "$packages/example-robot-data"
export ROS_PACKAGE_PATH=$packages
loaded=0
total=0
while IFS= read -r file; do
  total=$((total + 1))
  if errors=$("$talon" inspect "$file" --floating-base 2>&1 >/dev/null); then
    loaded=$((loaded + 1))
    echo "OK   ${file#"$root"/robots/}"
  else
    echo "FAIL ${file#"$root"/robots/}: $(grep -m1 'error' <<<"$errors")"
  fi
done < <(find "$root/robots" -name '*.urdf' | sort)
echo "loaded $loaded of $total"
