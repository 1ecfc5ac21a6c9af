#!/usr/bin/env bash
# The scaling benchmark (docs/performance.md, "Array sizes"): for each device, a build tree of its
# own (build/scaling/NAME) with that device alone. The device's own code (its verilated model) is
# compiled afresh in every tree; the rest comes from ccache when warm, unless SCALING_COLD=1
# (no ccache at all: a clean machine's full build):
#   - verilation (CMake's configure step, where Verilator runs) and the `mxu` build: wall time,
#     and the peak memory of the largest single process (GNU time's maximum resident set);
#   - one GEMM on the RTL, every output bit checked against the golden model: simulated cycles
#     per second and PE-cycles per second (cycles/s x rows x cols). The GEMM is S x S x S with
#     S = max(256, 4 x the array's larger side).
# Prints a table and writes build/scaling/scaling.json. A benchmark, not a test: nothing here is
# asserted. Usage: scripts/scaling.sh [DEVICE...]   (default: 8x8 16x16 32x32 64x64 128x128;
# a DEVICE is an MXU_DEVICES entry, e.g. 16x16:hier=1)
set -euo pipefail
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

rows_json=()
printf '%-18s %5s %9s %9s %9s %9s %8s %11s %13s %s\n' device hier verilate_s peak_MB build_s \
  peak_MB gemm cycles/s PE-cycles/s check
for device in "${devices[@]}"; do
  name=${device%%:*}
  tag=${device//[^A-Za-z0-9]/_}
  tree=$out/$tag
  rm -rf "$tree"
  [ "${SCALING_COLD:-0}" = 1 ] && export CCACHE_DISABLE=1
  /usr/bin/time -v -o "$out/$tag.configure.time" \
    cmake -S "$root" -B "$tree" -G Ninja -Wno-dev -DCMAKE_BUILD_TYPE=Release -DMXU_PYTHON=OFF \
    -DMXU_DEVICES="$device" >"$out/$tag.configure.log" 2>&1
  /usr/bin/time -v -o "$out/$tag.build.time" \
    cmake --build "$tree" -j"$(nproc)" --target mxu >"$out/$tag.build.log" 2>&1
  unset CCACHE_DISABLE
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
  "$tree/bin/mxu" gemm --m $s --k $s --n $s --check --json >"$out/$tag.gemm.json"
  read -r cps util mismatches < <(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(r["sim_cycles_per_second"], r["utilization"], r["mismatches"])' "$out/$tag.gemm.json")
  vs=$(elapsed "$out/$tag.configure.time")
  vm=$(($(peak_kb "$out/$tag.configure.time") / 1024))
  bs=$(elapsed "$out/$tag.build.time")
  bm=$(($(peak_kb "$out/$tag.build.time") / 1024))
  pecps=$(python3 -c "print(round($cps * $rows * $cols))")
  check=$([ "$mismatches" = 0 ] && echo bit-exact || echo "$mismatches mismatches")
  printf '%-18s %5s %9.0f %9s %9.0f %9s %8s %11.0f %13s %s\n' "$device" $hier "$vs" $vm "$bs" \
    $bm "${s}^3" "$cps" "$pecps" "$check"
  rows_json+=("{\"device\":\"$device\",\"rows\":$rows,\"cols\":$cols,\"hier\":$hier,\
\"verilate_seconds\":$vs,\"verilate_peak_mb\":$vm,\"build_seconds\":$bs,\"build_peak_mb\":$bm,\
\"gemm\":$s,\"utilization\":$util,\"cycles_per_second\":$cps,\"pe_cycles_per_second\":$pecps,\
\"mismatches\":$mismatches}")
done
(IFS=,; echo "{\"nproc\":$(nproc),\"devices\":[${rows_json[*]}]}") | python3 -m json.tool \
  >"$out/scaling.json"
echo "wrote $out/scaling.json"
