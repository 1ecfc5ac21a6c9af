#!/usr/bin/env bash
# What the arithmetic costs in hardware, from Yosys 0.23: the processing element and the systolic
# array at the sizes given, mapped to two-input gates (AND, NAND, OR, NOR, XOR, XNOR, MUX), with
# their flip-flops and the longest combinational path in gates (`ltp -noff`). A benchmark for
# docs/performance.md, not a test: the array's synthesis time grows faster than its PEs.
# The mapping is ABC's delay-oriented one (`abc -fast`: structural hashing, then `map`) on the
# structure Yosys builds, Brent-Kung adders included, as a timing-driven flow would keep them.
# ABC's default script recovers area by rebuilding every adder as a ripple chain (a 32-bit add:
# 18 levels here, 62 there), which no flow aiming at a clock would do; until 2026-11-26 the
# figures were taken that way (the PE at 6 stages: 53 levels then, 42 now).
# Usage: scripts/hw_cost.sh [ROWSxCOLS ...]   (default: 2x2 4x4; 4x4 takes about 5 minutes)
#        scripts/hw_cost.sh --devices ROWSxCOLS[-flush] ...
#        scripts/hw_cost.sh --pe-stages N|all [--flush] [--no-int8] [--json]
# --pe-stages: the PE at pipeline depth N (mxu_pkg::PeStages, 1 to PeMaxStages) or at every depth:
# a table row each, or with --json one JSON object per depth and line: pe_stages, int8, cells,
# flip_flops, max_stage_depth (the longest path between registers, in two-input gates).
# --no-int8: the PE without its int8 path (parameter Int8 = 0), to see what the mode costs.
# --devices: whole devices (mxu_top with each device's values, as cmake/devices.cmake gives them),
# synthesized module by module without flattening (each distinct module once, its cells counted
# once per instance: Yosys's hierarchy statistics), SRAMs as macros; their bits counted from the
# RTL's inferred memories. No longest path here: --depths (below) gives every module's and the
# device's.
#        scripts/hw_cost.sh --depths [--device SPEC] [--module NAME[,NAME...]] [--json]
# --depths: the longest register-to-register path (two-input gates, `ltp -noff`, as for the PE) of
# every module of mxu_top's hierarchy, mxu_top included, each module flattened with its
# submodules and cut at its flip-flops and at the SRAM macros' ports (see sram_macro_stub below),
# at the values of device SPEC (a cmake/devices.cmake entry, ROWSxCOLS[-flush][:ub=N][:acc=N]
# [:wfifo=N][:pe=N][:bus=B]..., parsed by the project's own parser, cmake/device_spec_tool.cc;
# default: MXU_DEVICES's first entry), with two exceptions where the array's size does not change
# a depth but makes Yosys far slower: the modules that hold the array (mxu_pe_col, the array, the
# datapath, mxu_top) at a 2x2 array (PE to PE paths included; a PE's paths are the same in any
# array), the lane-parallel accumulators and activation unit at one lane (lanes are copies, with
# nothing between them). A module elaborated with several parameter sets (the delay lines, FIFOs,
# DMA engines...) is measured at each and reported at its deepest. A Markdown row each, or with
# --json one JSON object per module and line: module, cells, flip_flops, max_stage_depth ("array":
# the array it was measured at where not SPEC's, "parameter_sets" where several), then one line
# for the device: device, max_stage_depth, module (the smallest module with the device's longest
# stage). --module NAME[,NAME...]: those modules only, and no device line. A bad value: one line, exit 2.
set -euo pipefail
source "$(dirname "$0")/lib/usage.sh"
help_if_asked "$@"
rtl=$(cd "$(dirname "$0")/../rtl" && pwd)
sources="$rtl/mxu_isa_pkg.sv $rtl/mxu_pkg.sv $(ls "$rtl"/*.sv | grep -v -e '_pkg\.sv$' -e 'mxu_sram_1r1w\.sv$' | tr '\n' ' ')"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(2x2 4x4)

# measure MODULE [chparam commands]: sets cells, flops and depth of the flattened module.
measure() {
  local module=$1 params=${2:-} log
  log=$(mktemp)
  start=$(date +%s)
  yosys -q -l "$log" -p "
      read_verilog -sv $sources
      read_verilog -sv -lib $rtl/mxu_sram_1r1w.sv
      $params
      synth -top $module -flatten
      abc -fast -g AND,NAND,OR,NOR,XOR,XNOR,MUX
      opt_clean
      ltp -noff
      stat" >/dev/null
  cells=$(grep -E '^ +Number of cells' "$log" | tail -1 | awk '{print $NF}')
  # The last statistics block is the mapped netlist's (synth prints one of its own before).
  flops=$(awk '/Printing statistics/ {n = 0; delete f} /\$_(S?DFFE?|ALDFF|DFFSRE?)_/ {f[n++] = $NF}
               END {s = 0; for (i in f) s += f[i]; print s}' "$log")
  depth=$(grep -oE 'Longest topological path in [^ ]+ \(length=[0-9]+\)' "$log" | tail -1 |
          grep -oE '[0-9]+\)$' | tr -d ')')
  rm -f "$log"
}

# cost MODULE LABEL [chparam commands]: one table row.
cost() {
  local start
  start=$(date +%s)
  measure "$1" "${3:-}"
  printf '| %s | %s | %s | %s | %s s |\n' "$2" "$cells" "$flops" "$depth" \
         "$(($(date +%s) - start))"
}

# device_cost ROWSxCOLS[-flush]: one table row for a whole device.
device_cost() {
  local spec=$1 dims rows cols flush=0 defines log start bits cells flops
  dims=${spec%%-*}
  rows=${dims%x*}
  cols=${dims#*x}
  [[ $spec == *-flush ]] && flush=1
  defines="-DMXU_ARRAY_ROWS=$rows -DMXU_ARRAY_COLS=$cols -DMXU_FLUSH_SUBNORMALS=$flush"
  log=$(mktemp)
  start=$(date +%s)
  # The SRAM bits: every memory the RTL infers (counted before any memory pass maps them).
  yosys -q -l "$log" -p "
      read_verilog -sv $defines $sources $rtl/mxu_sram_1r1w.sv
      hierarchy -top mxu_top
      proc
      stat -top mxu_top" >/dev/null
  bits=$(awk '/=== design hierarchy ===/ {h = 1} h && /Number of memory bits/ {print $NF}' "$log")
  yosys -q -l "$log" -p "
      read_verilog -sv $defines $sources
      read_verilog -sv -lib $rtl/mxu_sram_1r1w.sv
      synth -top mxu_top
      abc -fast -g AND,NAND,OR,NOR,XOR,XNOR,MUX
      opt_clean
      stat -top mxu_top" >/dev/null
  cells=$(awk '/=== design hierarchy ===/ {h = 1} h && /Number of cells/ {print $NF}' "$log" |
          tail -1)
  flops=$(awk '/=== design hierarchy ===/ {h = 1; s = 0} h && /\$_(S?DFFE?|ALDFF|DFFSRE?)_/ {s += $NF}
               END {print s}' "$log")
  printf '| %s | %s | %s | %s | %s s |\n' "$spec" "$cells" "$flops" "$bits" \
         "$(($(date +%s) - start))"
  rm -f "$log"
}

# The SRAM macro as Yosys sees it for --depths: mxu_sram_1r1w (the one memory of the device: the
# unified buffer, the accumulator banks, the weight FIFO and the transposer's lanes) replaced by
# two black boxes, so that a path ends at the macro's inputs and starts at its read data. A
# single black box would not do: `ltp` follows a black box's inputs to its outputs as if it were
# one gate, and would measure write address -> read data as a combinational path, which in the
# macro is a clock edge. mxu_macro_rd has only the read data (an output, a start point);
# mxu_macro_wr has every input, read address and enables included (an end point), and keeps
# them (`keep`: a black box with no outputs would otherwise be removed with the logic before it).
sram_macro_stub() {
  # The real module's header (parameters and ports), so that the stub cannot drift from it.
  sed -n '/^module mxu_sram_1r1w/,/^);/p' "$rtl/mxu_sram_1r1w.sv"
  cat <<'EOF'
  mxu_macro_rd #(.Width(Width)) u_rd (.rd_data_o);
  (* keep *) mxu_macro_wr #(.Width(2 * AddrWidth + Width + 3)) u_wr (
    .ports_i({clk_i, rd_en_i, rd_addr_i, wr_en_i, wr_addr_i, wr_data_i})
  );
endmodule
(* blackbox *)
module mxu_macro_rd #(parameter int unsigned Width = 1) (output logic [Width-1:0] rd_data_o);
endmodule
(* blackbox, keep *)
module mxu_macro_wr #(parameter int unsigned Width = 1) (input logic [Width-1:0] ports_i);
endmodule
EOF
}

if [ "${1:-}" = --depths ]; then
  shift
  root=$(cd "$rtl/.." && pwd)
  spec='' only='' json=0
  while (($#)); do
    case "$1" in
      --json) json=1; shift ;;
      --device|--module)
        if (($# < 2)); then
          echo "hw_cost.sh: --depths: $1 needs a value" >&2
          exit 2
        fi
        if [ "$1" = --device ]; then spec=$2; else only=$2; fi
        shift 2 ;;
      *) echo "hw_cost.sh: --depths: unknown option '$1' (--device SPEC, --module NAME, --json)" >&2
         exit 2 ;;
    esac
  done
  # The default device: MXU_DEVICES's first entry.
  [ -n "$spec" ] || spec=$(sed -nE 's/^set\(MXU_DEVICES "([^";]*).*/\1/p' "$root/cmake/devices.cmake")
  work=$(mktemp -d)
  trap '[ -n "${HW_COST_KEEP:-}" ] || rm -rf "$work"' EXIT
  # The device spec, by the parser cmake/devices.cmake uses (a bad entry: its rule, exit 2).
  if ! c++ -std=c++17 -I"$root" "$root/cmake/device_spec_tool.cc" -o "$work/spec_tool" 2>"$work/cc.log"; then
    echo "hw_cost.sh: --depths: cmake/device_spec_tool.cc does not compile (see c++)" >&2
    cat "$work/cc.log" >&2
    exit 1
  fi
  record=$("$work/spec_tool" 1 "$spec" | tail -1) || true
  IFS=$'\t' read -r name rows cols flush ub acc wfifo pe bus _ <<<"$record"
  if [ "$name" = error ]; then
    echo "hw_cost.sh: --device '$spec': $(cut -f3 <<<"$record")" >&2
    exit 2
  fi
  defines() {  # defines ROWS COLS: the device's values as rtl/mxu_pkg.sv takes them
    echo "-DMXU_ARRAY_ROWS=$1 -DMXU_ARRAY_COLS=$2 -DMXU_UB_DEPTH=$ub -DMXU_ACC_DEPTH=$acc" \
         "-DMXU_WEIGHT_FIFO_DEPTH=$wfifo -DMXU_FLUSH_SUBNORMALS=$flush -DMXU_PE_STAGES=$pe" \
         "-DMXU_BUS_BYTES=$bus"
  }
  small_rows=$((rows < 2 ? rows : 2)) small_cols=$((cols < 2 ? cols : 2))
  sram_macro_stub >"$work/sram_macro.sv"
  start=$(date +%s)
  # Measured at a 1x1 device: the lane-parallel modules, whose lanes are copies with no logic
  # between them (the accumulators' fp32 adders, the activation unit's lanes: one lane's paths are
  # the module's at any width, and Yosys's ABC takes minutes a lane on the activation unit's).
  lane_mods=" mxu_accumulators mxu_activation_unit "
  # Measured at a 2x2 array (SPEC's, if smaller): the column and the array, PE to PE paths
  # included (a PE's own paths are the same in any array).
  array_mods=" mxu_pe_col mxu_systolic_array "
  # Cut at their ports in the modules above them (the datapath, mxu_top), as the SRAMs are: the
  # array and the lane-parallel units, whose own rows give their paths, would take the datapath's
  # and the device's synthesis from minutes to most of an hour. Their inputs end a path and their
  # outputs start one: black boxes in synthesis, their definitions deleted before `ltp` (which
  # follows a black box's inputs to its outputs, but a cell of no known type not at all). A path
  # from the datapath's logic into the array's first register is measured at neither side: the
  # price of the cut.
  boxes="mxu_systolic_array mxu_accumulators mxu_activation_unit"
  # Elaborate mxu_top at SPEC, at SPEC with the small array, at SPEC with a 1x1 array (each once),
  # and list every module of each.
  elaborate() {  # elaborate DESIGN ROWS COLS: Yosys commands that elaborate and save DESIGN
    echo "design -reset
          read_verilog -sv $(defines "$2" "$3") $sources $work/sram_macro.sv
          hierarchy -top mxu_top
          tee -q -o $work/$1.ls ls
          design -save $1"
  }
  elab='' last=''
  for d in "spec $rows $cols" "small $small_rows $small_cols" "lane 1 1"; do
    read -r dn dr dc <<<"$d"
    if [ "$dr $dc" = "$last" ]; then
      elab+="; design -save $dn; tee -q -o $work/$dn.ls ls"
    else
      elab+="; $(elaborate "$dn" "$dr" "$dc")"
    fi
    last="$dr $dc"
  done
  elab=${elab#; }
  # Yosys's warnings (a 1x1 device's out-of-range selects) go to its log; an error is shown.
  yosys -q -l "$work/elab.log" -p "$elab" >/dev/null 2>"$work/yosys.err" ||
    { cat "$work/yosys.err" >&2; exit 1; }
  # Every elaborated module as "VARIANT NAME": Yosys names a variant NAME, $paramod\NAME\P=V...
  # or $paramod$HASH\NAME.
  for d in spec small lane; do
    grep -E '^ +' "$work/$d.ls" | sed -E 's/^ +//' |
      awk '{v = $0; n = $0; sub(/^\$paramod(\$[0-9a-f]+)?\\/, "", n); sub(/\\.*/, "", n); print v "\t" n}' \
      >"$work/$d.modules"
  done
  variants() {  # variants DESIGN NAME
    awk -F'\t' -v n="$2" '$2 == n {print $1}' "$work/$1.modules"
  }
  names=$(cut -f2 "$work/spec.modules" | grep -v -e '^mxu_macro_' -e '^mxu_sram_1r1w$' | sort -u)
  # --module NAME[,NAME...]: those modules only.
  for m in ${only//,/ }; do
    if ! grep -qx -- "$m" <<<"$names"; then
      echo "hw_cost.sh: --module '$m': not a module of mxu_top (one of: $(echo $names))" >&2
      exit 2
    fi
  done
  [ -z "$only" ] || names=$(tr ',' '\n' <<<"$only" | sort -u)
  # print_row MODULE CELLS FLOPS DEPTH WHERE SETS CUT: the module's line, as soon as it is known.
  print_row() {
    local m=$1 c=$2 f=$3 d=$4 where=$5 sets=$6 cut=$7 extra='' note=''
    if ((json)); then
      [ -z "$cut" ] || extra+=", \"cut_at\": \"$cut\""
      [ "$where" = small ] && extra+=", \"array\": \"${small_rows}x${small_cols}\""
      [ "$where" = lane ] && extra+=", \"array\": \"1x1\""
      ((sets > 1)) && extra+=", \"parameter_sets\": $sets"
      printf '{"module": "%s", "cells": %d, "flip_flops": %d, "max_stage_depth": %d%s}\n' \
             "$m" "$c" "$f" "$d" "$extra"
    else
      [ -z "$cut" ] || note+=" (cut at $cut)"
      [ "$where" = small ] && note+=" (${small_rows}x${small_cols} array)"
      [ "$where" = lane ] && note+=" (1 lane)"
      ((sets > 1)) && note+=" ($sets parameter sets, the deepest)"
      printf '| %s%s | %s | %s | %s |\n' "$m" "$note" "$c" "$f" "$d"
    fi
  }
  if ((!json)); then
    echo "| module | cells (2-input gates and flip-flops) | flip-flops | longest stage (gates) |"
    echo "|---|---|---|---|"
  fi
  # One Yosys run per module (its elaboration again: seconds), each variant synthesized flattened,
  # mapped to two-input gates, its longest path and statistics written to files; the module's
  # line is printed as soon as its run ends, so that a long run shows its progress.
  : >"$work/rows"
  n=0
  for m in $names; do
    design=spec
    [[ $array_mods == *" $m "* ]] && design=small
    [[ $lane_mods == *" $m "* ]] && design=lane
    : >"$work/measure.ys"
    : >"$work/index"
    while read -r v; do
      [ -n "$v" ] || continue
      n=$((n + 1))
      printf '%s\t%s\t%s\n' "$n" "$m" "$design" >>"$work/index"
      box=''
      for b in $boxes; do [ "$b" = "$m" ] || box+=" =*$b"; done
      cat >>"$work/measure.ys" <<EOF
design -load $design
hierarchy -top $v
tee -q -o $work/$n.boxed select -list$box
blackbox$box
synth -top $v -flatten
abc -fast -g AND,NAND,OR,NOR,XOR,XNOR,MUX
opt_clean
delete$box
tee -q -o $work/$n.ltp ltp -noff
tee -q -o $work/$n.stat stat
EOF
    done <<<"$(variants "$design" "$m")"
    yosys -q -l "$work/measure.log" -p "$elab; script $work/measure.ys" >/dev/null 2>"$work/yosys.err" ||
      { cat "$work/yosys.err" >&2; exit 1; }
    # The deepest variant's cells, flip-flops and depth; of equally deep ones, the largest.
    best=-1 sets=0 cells=0 flops=0 where=spec cut=''
    while IFS=$'\t' read -r i mod design; do
      sets=$((sets + 1))
      d=$(grep -oE 'length=[0-9]+' "$work/$i.ltp" | tail -1 | cut -d= -f2)
      c=$(grep -E '^ +Number of cells' "$work/$i.stat" | tail -1 | awk '{print $NF}')
      f=$(awk '/\$_[A-Z]*(DFF|DLATCH)[A-Z]*_/ {s += $NF} END {print s + 0}' "$work/$i.stat")
      d=${d:-0} c=${c:-0}
      if ((d > best || (d == best && c > cells))); then
        best=$d cells=$c flops=$f where=$design
        # The modules cut at their ports here (the select's lines without a '/': modules).
        cut=$({ grep -v -e / -e '^Warning' "$work/$i.boxed" || true; } | sed -E 's/.*\\//' | sort -u | tr '\n' ' ' | sed 's/ $//' || true)
      fi
    done <"$work/index"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$m" "$cells" "$flops" "$best" "$where" "$sets" "$cut" \
           >>"$work/rows"
    print_row "$m" "$cells" "$flops" "$best" "$where" "$sets" "$cut"
  done
  if [ -z "$only" ]; then
    # The device's longest stage, and the smallest module that has it.
    read -r dmax dmod < <(sort -t$'\t' -k4,4nr -k2,2n "$work/rows" | head -1 | awk -F'\t' '{print $4, $1}')
    if ((json)); then
      printf '{"device": "%s", "max_stage_depth": %d, "module": "%s"}\n' "$spec" "$dmax" "$dmod"
    else
      printf '| **device %s** | | | **%s** (%s) |\n' "$spec" "$dmax" "$dmod"
    fi
  fi
  echo "hw_cost.sh: --depths: $(($(date +%s) - start)) s of Yosys" >&2
  exit 0
fi

if [ "${1:-}" = --pe-stages ]; then
  max=$(sed -nE 's/.*parameter int unsigned PeMaxStages *= *([0-9]+);.*/\1/p' "$rtl/mxu_pkg.sv")
  which=${2:-} json=0 flush=0 int8=1
  (($# >= 2)) && shift 2 || shift $#
  for arg in "$@"; do
    case "$arg" in
      --json) json=1 ;;
      --flush) flush=1 ;;
      --no-int8) int8=0 ;;
      *) echo "hw_cost.sh: --pe-stages: unknown option '$arg' (--json, --flush, --no-int8)" >&2
         exit 2 ;;
    esac
  done
  if [ "$which" = all ]; then
    depths=$(seq 1 "$max")
  elif [[ $which =~ ^[1-9][0-9]*$ ]] && ((which <= max)); then
    depths=$which
  else
    echo "hw_cost.sh: --pe-stages '$which': expected 1 to $max (PeMaxStages) or all" >&2
    exit 2
  fi
  ((json)) || echo "| PE stages | cells (2-input gates and flip-flops) | flip-flops | longest stage (gates) |"
  ((json)) || echo "|---|---|---|---|"
  for n in $depths; do
    measure mxu_pe "chparam -set Stages $n -set FlushSubnormals $flush -set Int8 $int8 mxu_pe;"
    if ((json)); then
      printf '{"pe_stages": %d, "int8": %s, "flush_subnormals": %s, "cells": %d, "flip_flops": %d, "max_stage_depth": %d}\n' \
             "$n" "$( ((int8)) && echo true || echo false)" \
             "$( ((flush)) && echo true || echo false)" "$cells" "$flops" "$depth"
    else
      printf '| %s | %s | %s | %s |\n' "$n" "$cells" "$flops" "$depth"
    fi
  done
  exit 0
fi

if [ "${1:-}" = --devices ]; then
  shift
  (($#)) || usage_error "--devices needs at least one ROWSxCOLS[-flush]"
  for spec in "$@"; do
    if [[ ! $spec =~ ^[0-9]+x[0-9]+(-flush)?$ ]]; then
      echo "hw_cost.sh: device '$spec': expected ROWSxCOLS or ROWSxCOLS-flush (e.g. 8x4-flush)" >&2
      exit 2
    fi
  done
  echo "| device | cells (2-input gates and flip-flops) | flip-flops | SRAM bits | Yosys time |"
  echo "|---|---|---|---|---|"
  for spec in "$@"; do device_cost "$spec"; done
  exit 0
fi

# The array sizes, checked before minutes of Yosys: anything else (an option of another mode, a
# typo) is refused.
for size in "${sizes[@]}"; do
  [[ $size =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] ||
    usage_error "'$size' is neither an array size ROWSxCOLS nor an option (--pe-stages," \
                "--devices, --depths; --help)"
done
echo "| block | cells (2-input gates and flip-flops) | flip-flops | longest path (gates) | Yosys time |"
echo "|---|---|---|---|---|"
cost mxu_pe "PE (bf16 x bf16 + fp32 and int8 x int8 + int32, IEEE)"
cost mxu_pe "PE without the int8 path" "chparam -set Int8 0 mxu_pe;"
cost mxu_pe "PE, flush to zero" "chparam -set FlushSubnormals 1 mxu_pe;"
cost mxu_activation_unit "activation unit, 1 lane (bf16 rounding and int8 requantization)" \
     "chparam -set Lanes 1 mxu_activation_unit;"
for size in "${sizes[@]}"; do
  rows=${size%x*}
  cols=${size#*x}
  cost mxu_systolic_array "systolic array $size" \
       "chparam -set Rows $rows -set Cols $cols mxu_systolic_array;"
done
