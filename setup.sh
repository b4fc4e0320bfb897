#!/bin/sh
# Installs what weft needs from Debian 12 packages; does nothing when all is there.
set -eu
PKGS="cmake make gcc g++ pkg-config llvm-19-dev clang-19 clang-format-19 libffi-dev libcmocka-dev libzstd-dev git
ocl-icd-opencl-dev ocl-icd-libopencl1 opencl-c-headers clinfo"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "setup: installing$missing"
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
