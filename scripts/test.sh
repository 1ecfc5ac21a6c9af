#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs the test suite.
#   scripts/test.sh               the default suite (what CI runs)
#   scripts/test.sh exhaustive    only the exhaustive arithmetic checks (minutes; not in CI)
#   scripts/test.sh -L LABEL ...  any other ctest selection (labels: unit rtl golden lint synth)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = exhaustive ]; then
  bash scripts/setup.sh -DMXU_EXHAUSTIVE=ON
  exec ctest --test-dir build --output-on-failure -L exhaustive
fi
bash scripts/setup.sh -DMXU_EXHAUSTIVE=OFF
exec ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"
