#!/usr/bin/env bash
# The layers import one way (docs/architecture.md, Layers): each folder may include only the
# folders listed for it. Exit status non-zero, with every offending include listed, otherwise.
set -euo pipefail
source "$(dirname "$0")/lib/usage.sh"
no_arguments "$@"
cd "$(dirname "$0")/.."
declare -A allowed=(
  [common]="common"
  # The numeric contract in host floats: the reference everything else is checked against.
  [golden]="common golden"
  [driver]="common golden driver"
  [sim]="common sim"
  [backends]="common golden driver sim waves backends"
  # Files in and out (.npy/.npz, PNG charts), shared by the training library and the tool.
  [io]="common io"
  # The energy model and its tables (action counts x energy per action), for the tool and Python.
  [energy]="common energy"
  # train/data/: data sets, their loaders, the RNG and the curves, below the models.
  [train/data]="common io train/data"
  [train]="common golden driver io train train/data"
  # host/ is the tool, in rooms by command over one shared room (cli/: the command line, outputs,
  # device options, tracing); bench/ reuses gemm/'s operands and progress. main.cc sits above.
  [host]="common golden driver backends io energy train train/data host host/cli host/gemm host/bench host/train host/info"
  [host/cli]="common golden driver backends io energy train train/data host/cli"
  [host/gemm]="common golden driver backends io energy train train/data host/cli host/gemm"
  [host/bench]="common golden driver backends io energy train train/data host/cli host/gemm host/bench"
  [host/train]="common golden driver backends io energy train train/data host/cli host/train"
  [host/info]="common golden driver backends io energy train train/data host/cli host/info"
  [waves]="common sim waves"
  # Users of the installed library: the Python module and the examples see what a user sees
  # (Python also charges its replicas on train/'s ring interconnect).
  [python]="common golden driver backends io energy train python"
  [examples]="common golden driver backends examples"
)
# One exception, file by file, each with its reason.
declare -A exceptions=(
  # `mxu selfcheck` drives the verilated arithmetic units themselves: they are not a device,
  # so no backend stands between them and the tool.
  ["host/info/selfcheck.cc sim/arith_units.h"]=1
)
# A file's layer is the longest key its folder starts with (host/gemm/x.cc: host/gemm); so is an
# include's target.
layer_of() {
  local path=$1 best=""
  for key in "${!allowed[@]}"; do
    [[ $path == "$key"/* && ${#key} -gt ${#best} ]] && best=$key
  done
  echo "${best:-${path%%/*}}"
}
status=0
for layer in "${!allowed[@]}"; do
  [ -d "$layer" ] || continue
  while IFS=: read -r file line include; do
    [ "$(layer_of "$file")" = "$layer" ] || continue  # a room below this layer: checked as itself
    header=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"$include")
    target=$(layer_of "$header")
    [ -n "${exceptions["$file $header"]:-}" ] && continue
    if [[ " ${allowed[$layer]} " != *" $target "* ]]; then
      echo "$file:$line: $layer/ must not include $target/ ($(tr -s ' ' <<<"$include"))"
      status=1
    fi
  done < <(grep -rnE '^#include "[a-z_]+/' --include='*.cc' --include='*.h' "$layer" || true)
done
# rtl/ is in rooms the same way (docs/layout.md): a module instantiates modules of its own room
# and of the rooms below it only, the top (rtl/ itself) over them all.
declare -A rtl_allowed=(
  [rtl]="rtl rtl/ctrl rtl/dma rtl/datapath rtl/array rtl/arith rtl/prim"
  [rtl/ctrl]="rtl/ctrl rtl/prim"
  [rtl/dma]="rtl/dma rtl/prim"
  [rtl/datapath]="rtl/datapath rtl/array rtl/arith rtl/prim"
  [rtl/array]="rtl/array rtl/arith rtl/prim"
  [rtl/arith]="rtl/arith rtl/prim"
  [rtl/prim]="rtl/prim"
)
declare -A rtl_room=()
while read -r file; do
  rtl_room[$(basename "$file" .sv)]=$(dirname "$file")
done < <(find rtl -name '*.sv')
for file in "${!rtl_room[@]}"; do
  room=${rtl_room[$file]}
  if [ -z "${rtl_allowed[$room]:-}" ]; then
    echo "rtl: $room/ is no room of rtl/ (add it to scripts/check_layers.sh and docs/layout.md)"
    status=1
    continue
  fi
  while IFS=: read -r line inst; do
    module=$(grep -oE 'mxu_[a-z0-9_]+' <<<"$inst" | head -1)
    target=${rtl_room[$module]:-}
    if [ -z "$target" ]; then
      echo "$room/$file.sv:$line: instantiates $module, which no file of rtl/ defines"
      status=1
    elif [[ " ${rtl_allowed[$room]} " != *" $target "* ]]; then
      echo "$room/$file.sv:$line: $room/ must not instantiate $target/'s $module"
      status=1
    fi
  done < <(grep -nE '^\s*mxu_[a-z0-9_]+\s+(#|u_)' "$room/$file.sv" || true)
done
[ $status -eq 0 ] && echo "layers clean: ${!allowed[*]}; rtl rooms: ${!rtl_allowed[*]}"
exit $status
