#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs the test suite.
#   scripts/test.sh                the default suite (what CI runs)
#   scripts/test.sh exhaustive     only the exhaustive arithmetic checks (minutes; not in CI)
#   scripts/test.sh -L LABEL ...   a ctest selection (-L, -LE, -R, -E, -j, -N, -V...; labels: unit
#                                  rtl golden lint synth device sim driver train waves install
#                                  python torch formal io second_device; docs/testing.md)
#   scripts/test.sh --shard I/N    shard I (0-based) of N: the selection's tests number I+1, I+1+N,
#                                  I+1+2N, ... (ctest -I), for splitting the regression across N
#                                  machines: N shards run every selected test exactly once.
#                                  Combines with -L, -LE, -R and the other ctest options
# JUnit XML of every run goes to build/test-results/junit.xml (shard I of N:
# build/test-results/junit-I-of-N.xml) for CI's test report; the script prints the path.
set -euo pipefail
source "$(dirname "$0")/lib/usage.sh"
help_if_asked "$@"
cd "$(dirname "$0")/.."

if [ "${1:-}" = exhaustive ]; then
  bash scripts/setup.sh -DMXU_EXHAUSTIVE=ON
  exec ctest --test-dir build --output-on-failure -L exhaustive
fi

shard=()
junit=build/test-results/junit.xml
args=()
while (($#)); do
  case "$1" in
    --shard|--shard=*)
      if [ "$1" = --shard ]; then
        (($# >= 2)) || { echo "test.sh: --shard needs I/N" >&2; exit 2; }
        spec=$2
        shift
      else
        spec=${1#--shard=}
      fi
      if ! [[ $spec =~ ^([0-9]+)/([0-9]+)$ ]] || ((BASH_REMATCH[2] < 1)) ||
         ((BASH_REMATCH[1] >= BASH_REMATCH[2])); then
        echo "test.sh: --shard expects I/N with 0 <= I < N, got '$spec'" >&2
        exit 2
      fi
      index=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]}
      junit=build/test-results/junit-$index-of-$total.xml
      ;;
    # ctest's selection and output options, checked before the setup's build: a typo would
    # otherwise be ctest's to ignore after minutes of building.
    -L | -LE | -R | -E | -j | --parallel | --timeout | --repeat | --repeat-until-fail | -C)
      (($# >= 2)) || usage_error "$1 needs a value"
      args+=("$1" "$2")
      shift ;;
    -j[0-9]* | -N | -V | -VV | -Q | --output-on-failure | --stop-on-failure | --rerun-failed | \
      --schedule-random | --no-tests=error | --no-tests=ignore | --progress)
      args+=("$1") ;;
    *) usage_error "unknown argument '$1' (exhaustive, --shard I/N, or ctest's -L, -LE, -R, -E," \
                   "-j, --timeout, --repeat, -N, -V, --output-on-failure...; --help)" ;;
  esac
  shift
done

bash scripts/setup.sh -DMXU_EXHAUSTIVE=OFF
if [ -n "${total:-}" ]; then
  # ctest -I numbers the tests of the selection (after -L/-LE/-R) from 1: this shard takes
  # index+1, index+1+total, ... as an explicit list ("0,0,0,n,n,...": a range start beyond the
  # selection would select everything).
  count=$(ctest --test-dir build -N "${args[@]}" | sed -nE 's/^Total Tests: ([0-9]+)$/\1/p')
  numbers=""
  for ((n = index + 1; n <= count; n += total)); do numbers+=",$n"; done
  echo "test.sh: shard $index/$total: $(((count - index + total - 1) / total)) of $count tests"
  if [ -z "$numbers" ]; then
    exit 0
  fi
  shard=(-I "0,0,0$numbers")
fi
mkdir -p "$(dirname "$junit")"
status=0
ctest --test-dir build --output-on-failure -j"$(nproc)" --output-junit "$PWD/$junit" \
  "${shard[@]}" "${args[@]}" || status=$?
echo "test.sh: JUnit XML in $junit"
exit $status
