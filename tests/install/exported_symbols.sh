#!/bin/sh
# libweft.so exports exactly the functions that include/weft.h declares with WEFT_API (every one
# of them, nothing else: -fvisibility=hidden keeps the rest inside), and its SONAME carries the
# major version.
#
#     sh tests/install/exported_symbols.sh LIBWEFT_SO WEFT_H SONAME
set -eu
lib=$1 header=$2 soname=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# A WEFT_API declaration starts its line and names its function before the first '('.
sed -n 's/^WEFT_API[^(]*[ *]\([a-z_0-9]*\)(.*/\1/p' "$header" | sort -u >"$dir/declared"
ndecl=$(grep -c '^WEFT_API' "$header")
if [ "$(wc -l <"$dir/declared")" -ne "$ndecl" ] || [ "$ndecl" -lt 10 ]; then
  echo "could not read the $ndecl WEFT_API declarations of $header"
  exit 1
fi
nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u >"$dir/exported"

status=0
extra=$(comm -13 "$dir/declared" "$dir/exported")
missing=$(comm -23 "$dir/declared" "$dir/exported")
[ -z "$extra" ] || { echo "$lib exports what weft.h does not declare:"; echo "$extra"; status=1; }
[ -z "$missing" ] || { echo "$lib does not export, of weft.h:"; echo "$missing"; status=1; }
got=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$got" = "$soname" ] || { echo "$lib: SONAME '$got', not '$soname'"; status=1; }
[ $status -ne 0 ] || echo "$lib: the $ndecl functions of weft.h and nothing else; SONAME $got"
exit $status
