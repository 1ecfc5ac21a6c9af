#!/usr/bin/env bash
# The memory port's width against the array's size (docs/performance.md, "The memory port"): a
# GEMM of S x S x S (default 1024) on the model backend for every array size and bus width given,
# the host memory as wide as the port (--mem-bytes-per-cycle = bus bytes) and taking as many
# requests as the DMA's three engines issue (3 x 8, or 3 x bus/32 beyond 256 bytes:
# common/device_spec.h, DmaMaxInFlight), its latency at the default 100 cycles. Prints a table of
# utilization and writes its JSON to --json FILE, or to a new temporary directory (never into the
# build tree), and says where. A benchmark, not a test: nothing is asserted; the model's cycles
# are within about 1% of the RTL's (tests/backends/model_agreement_test.cc).
# Usage: scripts/port_width.sh [--size S] [--arrays "16x16 64x64 128x128"] [--buses "32 128 512"]
#        [--pe N] [--json FILE] [--build DIR (default build: DIR/bin/mxu runs)]
set -euo pipefail
source "$(dirname "$0")/lib/usage.sh"
help_if_asked "$@"
size=1024 arrays="16x16 32x32 64x64 128x128" buses="32 64 128 256 512 1024" pe="" json_file=""
build=""
while (($#)); do
  case "$1" in
    --size | --arrays | --buses | --pe | --json | --build) ;;
    *) usage_error "unknown option '$1' (--size, --arrays, --buses, --pe, --json, --build)" ;;
  esac
  [ $# -ge 2 ] || usage_error "$1 needs a value"
  case "$1" in
    --size) size=$2; shift 2 ;;
    --arrays) arrays=$2; shift 2 ;;
    --buses) buses=$2; shift 2 ;;
    --pe) pe=":pe=$2"; shift 2 ;;
    --json) json_file=$(realpath -m -- "$2"); shift 2 ;;
    --build) build=$(realpath -m -- "$2"); shift 2 ;;
    *) echo "port_width.sh: unknown option '$1' (--size, --arrays, --buses, --pe, --json," \
         "--build)" >&2; exit 2 ;;
  esac
done
# The values checked before any build or run.
[[ $size =~ ^[1-9][0-9]*$ ]] || usage_error "--size '$size': expected a positive integer"
[[ $pe =~ ^(:pe=[1-9][0-9]*)?$ ]] || usage_error "--pe '${pe#:pe=}': expected a positive integer"
for a in $arrays; do
  [[ $a =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || usage_error "--arrays: '$a' is not ROWSxCOLS"
done
for b in $buses; do
  [[ $b =~ ^[1-9][0-9]*$ ]] || usage_error "--buses: '$b' is not a positive integer"
done
cd "$(dirname "$0")/.."
[ -n "$json_file" ] || json_file=$(mktemp -d "${TMPDIR:-/tmp}/port_width.XXXXXX")/port_width.json
mxu=${build:-build}/bin/mxu
[ -x "$mxu" ] || { echo "port_width.sh: $mxu is not built (bash scripts/setup.sh)" >&2; exit 2; }
exec python3 scripts/lib/port_width.py "$mxu" "$size" "$arrays" "$buses" "$pe" "$json_file"
