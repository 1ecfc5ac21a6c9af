#!/usr/bin/env bash
# RTL coverage of the device under its regressions (docs/testing.md, "Coverage"): builds the device
# verilated with Verilator's --coverage (line, toggle and the RTL's MXU_COVER points) in its own
# build tree (build-coverage/), runs the device, driver and random-program regressions on it,
# merges the counts and writes
#   build-coverage/coverage/html/index.html   HTML report (lcov's genhtml)
#   build-coverage/coverage/summary.txt       per module; the closure set against its targets;
#                                             FSM states and arcs; functional bins; waivers
# The waivers (points left out, each with its reason) are scripts/coverage_waivers.txt. Not part
# of the default suite (it rebuilds the device and runs slower than the normal build).
#   scripts/coverage.sh                      the regressions named below, all cases
#   scripts/coverage.sh --filter PATTERN     only the GoogleTest cases matching PATTERN
#                                            (--gtest_filter syntax), for a quick look
#   scripts/coverage.sh --json               the report as one JSON object on stdout (modules,
#                                            fsm, functional, closure; scripts/coverage_report.py)
#   scripts/coverage.sh --full               the PE array cell and the arithmetic units too
#                                            (left out by default: scripts/coverage_scope.vlt
#                                            says why; over an hour to build on 2 cores)
set -euo pipefail
source "$(dirname "$0")/lib/usage.sh"
help_if_asked "$@"
cd "$(dirname "$0")/.."

filter="*"
scope="$PWD/scripts/coverage_scope.vlt"
json=""
while (($#)); do
  case "$1" in
    --filter) (($# >= 2)) || usage_error "--filter needs a pattern"; filter=$2; shift ;;
    --full) scope="" ;;
    --json) json=--json ;;
    *) usage_error "unknown option '$1' (--filter PATTERN, --full, --json; --help)" ;;
  esac
  shift
done

# Debian's lcov has genhtml.
if ! command -v genhtml >/dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq lcov >/dev/null
fi

# Run after scripts/setup.sh (the packages and the normal build's prerequisites). With --json,
# stdout carries the report alone.
exec 3>&1  # the report's stdout
if [ -n "$json" ]; then exec 1>&2; fi
build=build-coverage
out=$build/coverage
# -fno-split: Verilator 5.006's block splitting loses the taken side of an `if` in a combinational
# block (it counts only the not-taken side: an `if (b > lim) b = lim;` reads 0 however often it
# runs; verilator#7119); without it the branch counts are right, and the blocks it no longer splits
# read as combinational loops (UNOPTFLAT: evaluated until they settle, same results, slower).
# -O1: the instrumented model compiles in less time than at -O3 (its toggle points are several
# times the code of the plain model) and runs the regressions ten times faster than at -O0 (the
# device regression: 64 s, against over 600 s).
# One device, the default: the regressions below run on it alone.
cmake -S . -B $build -G Ninja -Wno-dev -DMXU_COVERAGE=ON -DMXU_PYTHON=OFF -DCMAKE_BUILD_TYPE=Release \
  -DMXU_DEVICES=16x16 \
  -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
  -DMXU_EXHAUSTIVE=OFF -DMXU_COVERAGE_VERILATOR_ARGS="$scope;-fno-split;-Wno-UNOPTFLAT" >/dev/null
# device_test: the device regression; driver_gemm_test: tiled GEMMs of every option;
# model_agreement_test: the random programs, legal and illegal (isa_coverage_test counts their
# functional bins; it runs no RTL); platform_test: the CSR port's error answers, the platform.
tests=(device_test driver_gemm_test model_agreement_test platform_test)
cmake --build $build -j"$(nproc)" --target "${tests[@]}" isa_coverage_test

rm -rf "$out"
mkdir -p "$out/dat"
export MXU_COVERAGE_DIR=$PWD/$out/dat
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
status=0
for test in "${tests[@]}"; do
  echo "coverage: running $test"
  "$build/bin/$test" --gtest_filter="$filter" --gtest_brief=1 || status=1
done
MXU_ISA_COVERAGE_JSON=$PWD/$out/functional.json "$build/bin/isa_coverage_test" --gtest_brief=1 \
  >/dev/null || status=1

verilator_coverage --write "$out/merged.dat" "$out"/dat/*.dat
verilator_coverage --write-info "$out/coverage.info" "$out/merged.dat"
genhtml --quiet --output-directory "$out/html" --title "mxu device coverage" \
  "$out/coverage.info" >/dev/null

python3 scripts/coverage_report.py "$out/merged.dat" scripts/coverage_waivers.txt \
  "$out/summary.txt" --functional "$out/functional.json" $json >&3 || status=1
echo "coverage: HTML report in $out/html/index.html, summary in $out/summary.txt"
exit $status
