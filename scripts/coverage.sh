#!/usr/bin/env bash
# RTL coverage of the device under its regressions: builds the device verilated with Verilator's
# --coverage (line and toggle) in its own build tree (build-coverage/), runs the device and driver
# regressions on it, merges the counts and writes
#   build-coverage/coverage/html/index.html   HTML report (lcov's genhtml)
#   build-coverage/coverage/summary.txt       line and toggle coverage, least covered blocks
# and prints the one-line summary. Not part of the default suite (it rebuilds the device and
# runs slower than the normal build).
#   scripts/coverage.sh                      device_test and driver_gemm_test, all cases
#   scripts/coverage.sh --filter PATTERN     only the GoogleTest cases matching PATTERN
#                                            (--gtest_filter syntax), for a quick look
#   scripts/coverage.sh --full               the PE array cell and the arithmetic units too
#                                            (left out by default: scripts/coverage_scope.vlt
#                                            says why; over an hour to build on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."

filter="*"
scope="$PWD/scripts/coverage_scope.vlt"
while (($#)); do
  case "$1" in
    --filter) filter=${2:?--filter needs a pattern}; shift ;;
    --full) scope="" ;;
    *) echo "coverage.sh: unknown option '$1'" >&2; exit 2 ;;
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

# Run after scripts/setup.sh (the packages and the normal build's prerequisites).
build=build-coverage
out=$build/coverage
# The instrumented model is about four times the code of the plain one (toggle coverage): -O0
# compiles it in a fraction of -O3's time on 2 cores; the regressions run slower.
cmake -S . -B $build -G Ninja -Wno-dev -DMXU_COVERAGE=ON -DMXU_PYTHON=OFF -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O0 -DNDEBUG" \
  -DMXU_EXHAUSTIVE=OFF -DMXU_COVERAGE_VERILATOR_ARGS="$scope" >/dev/null
cmake --build $build -j"$(nproc)" --target device_test driver_gemm_test

rm -rf "$out"
mkdir -p "$out/dat"
export MXU_COVERAGE_DIR=$PWD/$out/dat
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
status=0
for test in device_test driver_gemm_test; do
  echo "coverage: running $test"
  "$build/bin/$test" --gtest_filter="$filter" --gtest_brief=1 || status=1
done

verilator_coverage --write "$out/merged.dat" "$out"/dat/*.dat
verilator_coverage --write-info "$out/coverage.info" "$out/merged.dat"
genhtml --quiet --output-directory "$out/html" --title "mxu device coverage" \
  "$out/coverage.info" >/dev/null

# Line (Verilator's line and branch points) and toggle coverage, overall and per module.
python3 - "$out/merged.dat" "$out/summary.txt" <<'PY'
import collections, re, sys
points = collections.defaultdict(lambda: [0, 0])  # (kind, module) -> [covered, total]
for line in open(sys.argv[1], encoding="latin-1"):
    if not line.startswith("C '"):
        continue
    key, count = line[3:].rsplit("' ", 1)
    fields = dict(f.split("\x02", 1) for f in key.split("\x01") if "\x02" in f)
    page = fields.get("page", "")
    kind = page.split("/", 1)[0]
    kind = {"v_line": "line", "v_branch": "line", "v_toggle": "toggle"}.get(kind)
    if kind is None:
        continue
    module = page.split("/", 1)[1] if "/" in page else "?"
    entry = points[(kind, module)]
    entry[0] += int(count) > 0
    entry[1] += 1
def total(kind):
    c = sum(v[0] for k, v in points.items() if k[0] == kind)
    t = sum(v[1] for k, v in points.items() if k[0] == kind)
    return c, t
lines = []
(lc, lt), (tc, tt) = total("line"), total("toggle")
pct = lambda c, t: 100.0 * c / t if t else 0.0
summary = (f"coverage: line {pct(lc, lt):.1f}% ({lc}/{lt} points), "
           f"toggle {pct(tc, tt):.1f}% ({tc}/{tt} points)")
lines.append(summary)
for kind in ("line", "toggle"):
    lines.append(f"least covered blocks ({kind}):")
    mods = sorted(((pct(*v), m, v) for (k, m), v in points.items() if k == kind and v[1]),
                  key=lambda x: (x[0], x[1]))
    for p, m, v in mods[:8]:
        lines.append(f"  {m:32s} {p:5.1f}% ({v[0]}/{v[1]})")
lines.append("per module (line, toggle):")
for m in sorted({m for (_, m) in points}):
    l, t = points.get(("line", m), [0, 0]), points.get(("toggle", m), [0, 0])
    lines.append(f"  {m:32s} line {pct(*l):5.1f}% ({l[0]}/{l[1]})  toggle {pct(*t):5.1f}% ({t[0]}/{t[1]})")
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
print("\n".join(lines[1:]))
print(summary)
PY
echo "coverage: HTML report in $out/html/index.html, summary in $out/summary.txt"
exit $status
