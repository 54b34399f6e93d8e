#!/usr/bin/env bash
# The project's one C++ style (.clang-format at the root, clang-format 14 as Debian 12 ships it).
# Usage: tools/format.sh [--check] [REPO_ROOT]
#   without --check: rewrites every C++ file under lib/ formats/ tools/ tests/ in place (`make format`);
#   with --check:    changes nothing, names each file that drifts from the style and exits 1
#                    (CTest `format_check`); exits 77 (skipped) when clang-format 14 is not installed,
#                    because other major versions format some constructs differently.
set -euo pipefail
check=0
if [[ ${1:-} == --check ]]; then check=1; shift; fi
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"

clang_format=""
for candidate in clang-format-14 clang-format; do
  if command -v "$candidate" >/dev/null 2>&1 &&
     "$candidate" --version | grep -qE 'version 14\.'; then
    clang_format=$candidate
    break
  fi
done
if [[ -z $clang_format ]]; then
  found=$(command -v clang-format >/dev/null 2>&1 && clang-format --version || echo "none")
  echo "format: clang-format 14 not found (found: $found); install Debian 12's clang-format (make setup)" >&2
  exit 77
fi

mapfile -d '' files < <(find lib formats tools tests -type f \( -name '*.cpp' -o -name '*.h' \) -print0 | sort -z)
if (( check == 0 )); then
  "$clang_format" -i --style=file "${files[@]}"
  echo "format: ${#files[@]} files formatted with $("$clang_format" --version | sed 's/.*version //')"
  exit 0
fi

drift=()
for f in "${files[@]}"; do
  if ! "$clang_format" --style=file --dry-run --Werror "$f" >/dev/null 2>&1; then drift+=("$f"); fi
done
if (( ${#drift[@]} > 0 )); then
  echo "format_check: ${#drift[@]} of ${#files[@]} files differ from .clang-format (run \`make format\`):" >&2
  printf '  %s\n' "${drift[@]}" >&2
  exit 1
fi
echo "format_check: ${#files[@]} files follow .clang-format"
