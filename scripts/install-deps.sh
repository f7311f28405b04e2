#!/usr/bin/env bash
# Installs what Talon needs on Debian 12 (run as root; idempotent: installs only what is
# missing). The CUDA toolkit is optional and never installed here: where it is found at
# /usr/local/cuda the NVRTC backend is built as well.
set -euo pipefail
packages=(cmake ninja-build g++ clang libclang-rt-14-dev llvm-dev libclang-14-dev libclang-cpp14-dev pkg-config
          libeigen3-dev libtinyxml2-dev libassimp-dev libqhull-dev libpng-dev catch2 libcli11-dev
          libmujoco-dev libmujoco-samples)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "talon: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
