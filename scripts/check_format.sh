#!/usr/bin/env bash
# clang-format --dry-run --Werror over the project's C++ (.clang-format at the root): exit status
# non-zero and the offending lines listed when a file is not formatted. Generated and third-party
# files are not ours to format: none are tracked today.
set -euo pipefail
source "$(dirname "$0")/lib/usage.sh"
no_arguments "$@"
cd "$(dirname "$0")/.."
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cc' '*.h')
else
  mapfile -t files < <(find common driver backends sim host tests waves examples python \
                         -name '*.cc' -o -name '*.h' 2>/dev/null | sort)
fi
clang-format --dry-run --Werror "${files[@]}"
echo "format clean: ${#files[@]} files"
