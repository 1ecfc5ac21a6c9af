#!/usr/bin/env bash
# Renders a GTKWave layout over a trace to a PNG, headless (Xvfb), e.g.
#   scripts/render_waves.sh waves/array.gtkw t.fst array.png [START_PS END_PS]
# START_PS/END_PS: the time window shown (trace time, ps: cycle c starts at c * 1000); default:
# the layout's own zoom. Never hangs: GTKWave is killed after MXU_RENDER_TIMEOUT seconds (60).
# Run from anywhere: GTKWave runs in the repository root, where the layouts' bf16 filter path
# (build/bin/mxu-bf16-filter) resolves.
set -euo pipefail
source "$(dirname "$0")/lib/usage.sh"
help_if_asked "$@"
if (($# != 3 && $# != 5)); then
  echo "render_waves.sh: expected LAYOUT.gtkw TRACE.fst OUT.png [START_PS END_PS], got $# arguments (--help)" >&2
  exit 2
fi
abs() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
layout=$(abs "$1")
trace=$(abs "$2")
out=$(abs "$3")
for file in "$layout" "$trace"; do
  [ -r "$file" ] || { echo "render_waves: cannot read $file" >&2; exit 2; }
done
for tool in xvfb-run gtkwave timeout; do
  command -v "$tool" >/dev/null || { echo "render_waves: $tool is not installed" >&2; exit 2; }
done
root=$(cd "$(dirname "$0")/.." && pwd)
export MXU_RENDER_OUT=$out
if (($# == 5)); then
  export MXU_RENDER_START=$4 MXU_RENDER_END=$5
fi
rm -f "$out"
cd "$root"
# A private X server per run (-a), its own auth file; the whole tree is killed on timeout.
timeout -k 5 "${MXU_RENDER_TIMEOUT:-60}" \
  xvfb-run -a -s "-screen 0 1700x1300x16" \
  gtkwave --rcvar 'splash_disable on' -S "$root/waves/render.tcl" "$trace" "$layout" \
  >/dev/null 2>&1 || true
if [ ! -s "$out" ]; then
  echo "render_waves: GTKWave wrote no image ($out)" >&2
  exit 1
fi
echo "$out"
