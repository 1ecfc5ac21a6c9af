#!/usr/bin/env bash
# The scaling benchmark (docs/performance.md, "Array sizes"). For each device, a build tree of its
# own (build/scaling/NAME) with that device alone, and:
#   - verilation (CMake's configure step, where Verilator runs) and the `mxu` build: wall time,
#     and the peak memory of the largest single process (GNU time's maximum resident set). The
#     builds use a ccache of their own (build/scaling/ccache), warmed first by a throwaway 2 x 2
#     device: the code every device shares (driver, model, host commands...) comes from it, and
#     each device's own code (its verilated model, the platform and backends around it), which
#     differs from every other device's, is compiled afresh. SCALING_COLD=1 turns ccache off:
#     a clean machine's full build;
#   - one GEMM on the RTL, every output bit checked against the golden model: simulated cycles
#     per second and PE-cycles per second (cycles/s x rows x cols). The GEMM is S x S x S with
#     S = max(256, 4 x the array's larger side);
#   - utilization on a GEMM 16 times the array in each dimension (M = K = 16 x rows, N = 16 x
#     cols) on the fast model, with a memory port and host memory of 2 bytes per array column
#     per cycle (the device's bus=B rounded up to a power of two, 16 to 1024 bytes; it needs no
#     RTL).
# SCALING_REUSE=1 keeps what a tree already has (its build, its times, its GEMM results) and
# measures only what is missing. Prints a table and writes build/scaling/scaling.json. A
# benchmark, not a test: nothing here is asserted.
# Usage: scripts/scaling.sh [DEVICE...]   (default: 8x8 16x16 32x32 64x64 128x128; a DEVICE is an
# MXU_DEVICES entry, e.g. 16x16:hier=1)
set -euo pipefail
source "$(dirname "$0")/lib/usage.sh"
help_if_asked "$@"
for device in "$@"; do  # the form only; CMake's configure step checks the values
  [[ $device =~ ^[1-9][0-9]*x[1-9][0-9]*(-flush)?(:[a-z]+=[0-9]+)*$ ]] ||
    usage_error "'$device' is not a device (ROWSxCOLS[-flush][:key=N]..., e.g. 16x16:hier=1)"
done
cd "$(dirname "$0")/.."
root=$PWD
out=$root/build/scaling
mkdir -p "$out"
devices=("$@")
((${#devices[@]})) || devices=(8x8 16x16 32x32 64x64 128x128)


# seconds and peak kB of one command, from GNU time's report in file $1
elapsed() { awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0;
  for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$1"; }
peak_kb() { awk -F': ' '/Maximum resident set size/ {print $2}' "$1"; }

# fail MESSAGE LOG: one line naming the device and the log, exit 1.
fail() { echo "scaling.sh: $device: $1 (log: $2)" >&2; exit 1; }

export CCACHE_DIR=$out/ccache CCACHE_BASEDIR=$root
if [ "${SCALING_COLD:-0}" != 1 ] && [ ! -x "$out/warmup/bin/mxu" ]; then
  echo "warming build/scaling/ccache with a 2 x 2 device"
  cmake -S "$root" -B "$out/warmup" -G Ninja -Wno-dev -DCMAKE_BUILD_TYPE=Release \
    -DMXU_PYTHON=OFF -DMXU_DEVICES=2x2 >"$out/warmup.log" 2>&1
  /usr/bin/time -v -o "$out/warmup.time" \
    cmake --build "$out/warmup" -j"$(nproc)" --target mxu >>"$out/warmup.log" 2>&1
  echo "(the 2 x 2 device's full build from an empty cache: $(elapsed "$out/warmup.time") s)"
fi
row_files=()
printf '%-18s %4s %10s %7s %7s %7s %8s %6s %9s %11s %9s %s\n' device hier verilate_s peak_MB \
  build_s peak_MB gemm util cycles/s PE-cycles/s check util@16x
echo "(util@16x: the 16x GEMM on the model with a port and memory of 2 x cols bytes per cycle)"
for device in "${devices[@]}"; do
  name=${device%%:*}
  tag=${device//[^A-Za-z0-9]/_}
  tree=$out/$tag
  if [ "${SCALING_REUSE:-0}" = 1 ] && [ -x "$tree/bin/mxu" ] && [ -f "$out/$tag.build.time" ]; then
    cmake --build "$tree" --target mxu >/dev/null  # brought up to date; the times are the first's
  else
    rm -rf "$tree"
    [ "${SCALING_COLD:-0}" = 1 ] && export CCACHE_DISABLE=1
    /usr/bin/time -v -o "$out/$tag.configure.time" \
      cmake -S "$root" -B "$tree" -G Ninja -Wno-dev -DCMAKE_BUILD_TYPE=Release -DMXU_PYTHON=OFF \
      -DMXU_DEVICES="$device" >"$out/$tag.configure.log" 2>&1 ||
      fail "configuring failed: $(grep -m1 'MXU_DEVICES:' "$out/$tag.configure.log" ||
        grep -m1 Error "$out/$tag.configure.log")" \
        "$out/$tag.configure.log"
    /usr/bin/time -v -o "$out/$tag.build.time" \
      cmake --build "$tree" -j"$(nproc)" --target mxu >"$out/$tag.build.log" 2>&1 ||
      fail "the build failed" "$out/$tag.build.log"
    unset CCACHE_DISABLE
  fi
  hier=$(sed -n "s/^MXU_HIER_MIN_PES:STRING=//p" "$tree/CMakeCache.txt")
  dims=${name%%-*}
  rows=${dims%x*}
  cols=${dims#*x}
  if [[ $device == *hier=1* ]] || { [[ $device != *hier=0* ]] && ((rows * cols >= hier)); }; then
    hier=1
  else
    hier=0
  fi
  side=$((rows > cols ? rows : cols))
  s=$((4 * side > 256 ? 4 * side : 256))
  if [ "${SCALING_REUSE:-0}" != 1 ] || [ ! -s "$out/$tag.gemm.json" ]; then
    "$tree/bin/mxu" gemm --m $s --k $s --n $s --check --json >"$out/$tag.gemm.json" ||
      fail "the RTL GEMM failed or mismatched" "$out/$tag.gemm.json"
  fi
  bw=16
  while ((bw < 2 * cols && bw < 1024)); do bw=$((2 * bw)); done
  # The same device on the model with its port at that width (any bus= of the entry replaced).
  spec="$(echo "$device" | sed -E 's/:bus=[0-9]+//; s/:hier=[01]//; s/:threads=[0-9]+//'):bus=$bw"
  if [ "${SCALING_REUSE:-0}" != 1 ] || [ ! -s "$out/$tag.util.json" ]; then
    "$tree/bin/mxu" gemm --backend model --device "$spec" --m $((16 * rows)) \
      --k $((16 * rows)) --n $((16 * cols)) --mem-bytes-per-cycle $bw --json >"$out/$tag.util.json"
  fi
  python3 scripts/lib/scaling_rows.py row "$out/$tag.row.json" "$device" $rows $cols $hier $s $bw \
    "$(elapsed "$out/$tag.configure.time")" $(($(peak_kb "$out/$tag.configure.time") / 1024)) \
    "$(elapsed "$out/$tag.build.time")" $(($(peak_kb "$out/$tag.build.time") / 1024)) \
    "$out/$tag.gemm.json" "$out/$tag.util.json"
  row_files+=("$out/$tag.row.json")
done
python3 scripts/lib/scaling_rows.py collect "$out/scaling.json" "$(nproc)" "${row_files[@]}"
echo "wrote $out/scaling.json"
