#!/bin/sh
# Lists the C files that clang-format-19 would change under the repository's .clang-format and
# exits 1 if there are any (0 when all are formatted, 2 when clang-format-19 is missing).
#   tests/check_format.sh            every C file of compiler/ runtime/ include/ tests/ icd/ bench/
#                                    and samples/
#   tests/check_format.sh FILE...    only these
# CLANG_FORMAT names another binary. To fix a file: clang-format-19 -i FILE.
cd "$(dirname "$0")/.." || exit 2
cf=${CLANG_FORMAT:-clang-format-19}
command -v "$cf" >/dev/null 2>&1 || { echo "check_format: $cf not found" >&2; exit 2; }
if [ $# -eq 0 ]; then
  set -- $(git ls-files 'compiler/*.[ch]' 'runtime/*.[ch]' 'include/*.h' 'tests/*.[ch]' 'icd/*.[ch]' \
                        'bench/*.[ch]' 'samples/*.[ch]')
fi
bad=0
for f in "$@"; do
  if ! "$cf" --style=file "$f" | cmp -s "$f" -; then
    n=$("$cf" --style=file "$f" | diff "$f" - | grep -c '^<')
    echo "$f: $n lines would change"
    bad=1
  fi
done
exit $bad
