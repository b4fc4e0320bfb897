#!/bin/sh
# `cmake --install` into a temporary prefix, then weft used from there as its users use it:
# the installed files are all there and refer to nothing in the build tree (the OpenCL ICD, when
# built, is found by clinfo through its installed weft.icd); host.c built with
# `pkg-config --cflags --libs weft` against libweft.so, and with `--static` against libweft.a;
# a CMake project that finds weft with find_package(weft) and links weft::weft. Each program
# must run its kernel and get the right results.
#
#     sh tests/install/install.sh BUILD SOURCE WORK LIBDIR VERSION CC CMAKE PKG_CONFIG
# (LIBDIR is CMAKE_INSTALL_LIBDIR; tests/CMakeLists.txt passes the rest.)
set -eu
build=$1 src=$2 work=$3 libdir=$4 version=$5 cc=$6 cmake=$7 pkgconfig=$8
prefix=$work/prefix
major=${version%%.*}

fail() { echo "install: $*"; exit 1; }

rm -rf "$work" && mkdir -p "$work"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" ||
  { cat "$work/install.log"; fail "cmake --install failed"; }

# ---- what is installed ----
for f in bin/weft include/weft.h "$libdir/libweft.so.$version" "$libdir/libweft.a" \
         "$libdir/pkgconfig/weft.pc" "$libdir/cmake/weft/weftConfig.cmake" \
         "$libdir/cmake/weft/weftConfigVersion.cmake" "$libdir/cmake/weft/weftTargets.cmake"; do
  [ -f "$prefix/$f" ] || fail "$f is not installed"
done
[ "$(readlink "$prefix/$libdir/libweft.so.$major")" = "libweft.so.$version" ] ||
  fail "$libdir/libweft.so.$major is not a link to libweft.so.$version"
[ "$(readlink "$prefix/$libdir/libweft.so")" = "libweft.so.$major" ] ||
  fail "$libdir/libweft.so is not a link to libweft.so.$major"
[ "$("$prefix/bin/weft" --version)" = "weft $version" ] || fail "installed weft --version"

# Nothing installed refers to the build tree: no RPATH into it, no path of it in the binaries
# (an in-source build's paths are the source's, which __FILE__ names in messages: not checked).
for f in bin/weft "$libdir/libweft.so.$version"; do
  if readelf -d "$prefix/$f" | grep -E 'R(UN)?PATH' | grep -qF "$build"; then
    fail "$f has an RPATH into the build tree"
  fi
  if [ "$build" != "$src" ] && grep -qF "$build/" "$prefix/$f"; then
    fail "$f names a path in the build tree $build"
  fi
done

# ---- the OpenCL ICD, when it was built: the library, weft.icd naming it where it is installed,
# and clinfo, through the loader, finding it there ----
if [ -f "$build/icd/libweft_icd.so" ]; then
  icd=$prefix/$libdir/libweft_icd.so vendors=$prefix/etc/OpenCL/vendors
  [ -f "$icd" ] || fail "$libdir/libweft_icd.so is not installed"
  [ "$(cat "$vendors/weft.icd")" = "$icd" ] || fail "etc/OpenCL/vendors/weft.icd does not name $icd"
  if readelf -d "$icd" | grep -E 'R(UN)?PATH' | grep -qF "$build"; then
    fail "$libdir/libweft_icd.so has an RPATH into the build tree"
  fi
  # (a sanitized library needs its runtime preloaded into clinfo: not checked there)
  if command -v clinfo >/dev/null 2>&1 && ! readelf -d "$icd" | grep -q libasan; then
    OCL_ICD_VENDORS=$vendors clinfo -l | grep -q "Platform #0: weft" ||
      fail "clinfo does not find the installed ICD through $vendors"
  fi
fi

# ---- pkg-config ----
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
[ "$("$pkgconfig" --modversion weft)" = "$version" ] || fail "weft.pc: not version $version"
[ "$("$pkgconfig" --variable=prefix weft)" = "$prefix" ] || fail "weft.pc: prefix is not $prefix"
strict="-std=c11 -Wall -Wextra -Wpedantic -Werror"

# shellcheck disable=SC2046 # pkg-config's output is a list of words
"$cc" $strict -o "$work/host_shared" "$src/tests/install/host.c" \
  $("$pkgconfig" --cflags --libs weft) "-Wl,-rpath,$prefix/$libdir" ||
  fail "host.c does not build with pkg-config --cflags --libs weft"
readelf -d "$work/host_shared" | grep -qF "[libweft.so.$major]" ||
  fail "host_shared does not need libweft.so.$major"
"$work/host_shared" || fail "host.c linked with libweft.so failed"

# libweft.a with what --static adds: it must need nothing else to link.
static_libs=$("$pkgconfig" --static --libs weft | sed 's/-lweft\b/-l:libweft.a/')
# shellcheck disable=SC2046
"$cc" $strict -o "$work/host_static" "$src/tests/install/host.c" \
  $("$pkgconfig" --cflags weft) $static_libs ||
  fail "host.c does not link with libweft.a and pkg-config --static --libs weft ($static_libs)"
if readelf -d "$work/host_static" | grep -q 'libweft\.so'; then fail "host_static needs libweft.so"; fi
"$work/host_static" || fail "host.c linked with libweft.a failed"

# ---- find_package(weft) ----
"$cmake" -S "$src/tests/install/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DWEFT_VERSION="$version" -DHOST_SOURCE="$src/tests/install/host.c" -DCMAKE_C_COMPILER="$cc" \
  >"$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; fail "find_package(weft) failed"; }
"$cmake" --build "$work/consumer" >>"$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log"; fail "the project that links weft::weft does not build"; }
"$work/consumer/host" || fail "host.c linked with weft::weft failed"
echo "install: weft $version installed into $prefix and used through pkg-config and CMake"
