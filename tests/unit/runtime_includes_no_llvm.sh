#!/bin/sh
# runtime/ (policies, scheduler, pool, launch) runs what the compiler built and includes no LLVM
# header (`llvm-c/` or `llvm/`): the dependency runs one way, compiler to runtime.
#
#     sh tests/unit/runtime_includes_no_llvm.sh SOURCE_DIR

runtime=$1/runtime
[ -f "$runtime/runtime.h" ] || { echo "no runtime/ under '$1'"; exit 1; }
found=$(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]llvm(-c)?/' "$runtime")
if [ -n "$found" ]; then
  echo "runtime/ includes LLVM headers:"
  echo "$found"
  exit 1
fi
echo "runtime/ includes no LLVM header"
