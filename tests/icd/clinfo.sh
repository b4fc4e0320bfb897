#!/bin/sh
# clinfo, through the ICD loader, lists the platform "weft" with its CPU device and OpenCL 1.2.
command -v clinfo >/dev/null 2>&1 || { echo "clinfo is missing (./setup.sh installs it): skipped"; exit 77; }
[ -z "${CLINFO_SKIP:-}" ] || { echo "$CLINFO_SKIP: skipped"; exit 77; }
# CLINFO_PRELOAD: a sanitizer's runtime, which an instrumented weft needs loaded first (only into
# clinfo: a shell under ThreadSanitizer's runtime crashes).
out=$(LD_PRELOAD=${CLINFO_PRELOAD:-} clinfo) || { echo "clinfo failed"; exit 1; }
for want in "Platform Name  *weft" "Platform Version  *OpenCL 1.2 weft" "Device Type  *CPU" \
            "Device OpenCL C Version  *OpenCL C 1.2" "Image support  *No" \
            "Max clock frequency  *[1-9][0-9]*MHz" \
            "clCreateContextFromType(NULL, CL_DEVICE_TYPE_CPU)  *Success"; do
  printf '%s\n' "$out" | grep -q "$want" || { printf '%s\n' "$out"; echo "clinfo: no line matching '$want'"; exit 1; }
done
echo "clinfo lists the platform weft"
