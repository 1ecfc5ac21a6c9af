#!/usr/bin/env bash
# Runs one formal proof of formal/ with Yosys and yosys-smtbmc (solver: z3), at every parameter
# set the proof lists, or its mutant (a copy of the RTL module with one bug, made by the sed
# script formal/PROOF.mutant.sed from the current RTL) that the proof must reject.
# Usage: formal/run.sh PROOF [--mutant] [--expect-fail] [--keep]
#        formal/run.sh --list
# Method per proof: "induction K B": a bounded check of B >= K steps from reset (the base case,
# deep enough for the mutants' counterexamples), then K-step induction (unbounded proof);
# "bmc B": a bounded check of B steps from reset only; "pdr": ABC's property-directed reachability
# (IC3) on the model as an AIGER circuit, an unbounded proof with no depth to choose (the
# equivalence miters: a relation between two copies' states that induction would need spelled out).
# Exit status: 0 proved (bmc: no failure within B steps); 1 a counterexample from reset (an
# assertion fails on a trace that starts with a reset); 3 inconclusive (the base case holds but
# the induction step does not: the proof needs a stronger invariant); 2 usage or tool error.
# --expect-fail swaps 0 and 1 (a mutant's test passes when a counterexample is found); 2 and 3
# stay failures, so a mutant that does not compile or only defeats the induction step does not
# count as rejected. --keep keeps the work folder (the model, the counterexample trace .vcd).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rtl=$(cd "$here/../rtl" && pwd)
solver=${MXU_FORMAL_SOLVER:-z3}

# PROOF -> harness file (formal/PROOF.sv, top module PROOF), RTL modules read, the RTL file the
# mutant replaces, internal signals the harness reads (harness_wire=flattened.dut.wire), method,
# the parameter sets (one run each, "-" for the harness's defaults), and a script of formal/ that
# writes an include of the harness into the work folder (gen="SCRIPT FILE"), and defines for the
# RTL (the device's geometry, mxu_pkg.sv).
proof_config() {
  probes=""
  extra=""
  gen=""
  defines=""
  case $1 in
    fifo_ptr_flow | fifo_ptr_count | fifo_ptr_order)
      modules="mxu_fifo_ptr"; mutated=mxu_fifo_ptr; method="induction 4 12"
      params=("Depth=4" "Depth=3" "Depth=1");;
    sync_fifo_count)
      modules="mxu_fifo_ptr mxu_sync_fifo"; mutated=mxu_sync_fifo; method="induction 4 12"
      params=("Depth=4,Width=8" "Depth=3,Width=8");;
    sync_fifo_data)
      modules="mxu_fifo_ptr mxu_sync_fifo"; mutated=mxu_sync_fifo; method="induction 4 12"
      probes="probe_entries=dut.entries_q probe_rd_ptr=dut.rd_ptr probe_wr_ptr=dut.wr_ptr"
      probes="$probes probe_head=dut.head_q"
      params=("Depth=4,Width=8" "Depth=3,Width=8" "Depth=1,Width=8");;
    weight_fifo_data)
      modules="mxu_fifo_ptr mxu_sram_1r1w mxu_weight_fifo"; mutated=mxu_weight_fifo
      method="bmc 12"; params=("Depth=4,Lanes=1"); extra="memory_map";;
    delay_line)
      modules="mxu_delay_line"; mutated=mxu_delay_line; method="induction 5 10"
      params=("Depth=3,Width=8" "Depth=1,Width=8" "Depth=0,Width=8");;
    skew)
      modules="mxu_delay_line"; mutated=mxu_delay_line; method="induction 8 12"
      params=("Rows=4,Cols=4,Add=2");;
    decode)
      modules="mxu_ctrl_decode"; mutated=mxu_ctrl_decode; method="induction 1 1"
      params=("-"); gen="gen_decode_expect.py decode_expect.svh";;
    scoreboard_safe | scoreboard_live)
      modules="mxu_ctrl_scoreboard"; mutated=mxu_ctrl_scoreboard; method="induction 2 4"
      probes=""
      for p in ld_valid ld_head ld_tail wld_valid wld_head wld_tail mm_valid mm_head mm_tail \
               ld_buf ld_lo ld_hi mm_ub_lo mm_ub_hi mm_acc_lo mm_acc_hi st_cnt st_buf st_rows \
               st_lo st_hi ac_busy ac_has_bias ac_has_quant ac_acc_lo ac_acc_hi ac_bias ac_quant \
               ac_ub_lo ac_ub_hi; do
        probes="$probes probe_$p=dut.${p}_q"
      done
      params=("-");;
    dma_pack)
      modules="mxu_dma_load_pack"; mutated=mxu_dma_load_pack; method="induction 2 5"; params=("-")
      probes="probe_beat=dut.beat_q probe_written=dut.written_q probe_rcvd=dut.rcvd_q"
      probes="$probes probe_lin_off=dut.lin_off_q probe_pending=dut.pending_q"
      probes="$probes probe_pending_data=dut.pending_data_q probe_seg_buf=dut.seg_buf_q"
      defines="-DMXU_BUS_BYTES=16 -DMXU_ARRAY_ROWS=8 -DMXU_ARRAY_COLS=4 -DMXU_UB_DEPTH=64"
      defines="$defines -DMXU_ACC_DEPTH=64";;
    clock_gating)
      # The arithmetic units are the harness's stand-ins (formal/clock_gating.sv).
      modules="mxu_icg mxu_clock_domain mxu_pipe_reg mxu_delay_line mxu_valid_pipe mxu_pe"
      modules="$modules mxu_pe_col mxu_systolic_array"; mutated=mxu_systolic_array
      method="pdr"; params=("Rows=2,Cols=2,Stages=1")
      # Registers without reset (data) power up as 0 in both copies: the proof is about the
      # gates, not power-up values (tests/CMakeLists.txt's device_test seeds check those).
      extra="techmap -map $here/clock_gating_mul.v; setundef -zero -init; clk2fflogic";;
    clock_gating_pe)
      # clock_gating at a PE depth with pipeline registers, for the PE's own gates (mxu_pe).
      modules="mxu_icg mxu_clock_domain mxu_pipe_reg mxu_delay_line mxu_valid_pipe mxu_pe"
      modules="$modules mxu_pe_col mxu_systolic_array"; mutated=mxu_pe
      method="pdr"; params=("Rows=2,Cols=1,Stages=3")
      extra="techmap -map $here/clock_gating_mul.v; setundef -zero -init; clk2fflogic";;
    *) return 1;;
  esac
}
all_proofs="fifo_ptr_flow fifo_ptr_count fifo_ptr_order sync_fifo_count sync_fifo_data
weight_fifo_data delay_line skew decode scoreboard_safe scoreboard_live dma_pack clock_gating
clock_gating_pe"

if [ "${1:-}" = --list ]; then
  echo $all_proofs
  exit 0
fi
[ $# -ge 1 ] || { sed -n '5,6p' "$0" | sed 's/^# //' >&2; exit 2; }
proof=$1
shift
mutant=0; expect_fail=0; keep=0
for arg in "$@"; do
  case $arg in
    --mutant) mutant=1;;
    --expect-fail) expect_fail=1;;
    --keep) keep=1;;
    *) echo "run.sh: unknown option $arg" >&2; exit 2;;
  esac
done
proof_config "$proof" || { echo "run.sh: unknown proof $proof (run.sh --list)" >&2; exit 2; }
command -v yosys-smtbmc >/dev/null && command -v "$solver" >/dev/null ||
  { echo "run.sh: needs yosys-smtbmc and $solver (scripts/setup.sh installs them)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/formal_${proof}.XXXXXX")
if [ $keep = 1 ]; then echo "work folder: $work"; else trap 'rm -rf "$work"' EXIT; fi

finish() {  # $1: 0 proved, 1 counterexample, 2 error, 3 inconclusive
  local rc=$1
  if [ $expect_fail = 1 ]; then
    case $rc in 0) rc=1;; 1) rc=0;; esac
  fi
  exit $rc
}

files=""
# rtl/ROOM/NAME.sv: where module NAME lives (rtl/ is in rooms: docs/layout.md).
module_file() { find "$rtl" -name "$1.sv"; }
for m in $modules; do
  src=$(module_file "$m")
  if [ $mutant = 1 ] && [ "$m" = "$mutated" ]; then
    sed -f "$here/$proof.mutant.sed" "$src" >"$work/$m.sv"
    if cmp -s "$src" "$work/$m.sv"; then
      echo "$proof: the mutant no longer applies to rtl/${src#"$rtl/"} (update $proof.mutant.sed)" >&2
      finish 2
    fi
    echo "$proof: mutant of rtl/${src#"$rtl/"}:"
    diff "$src" "$work/$m.sv" | sed -n 's/^[<>]/  &/p'
    files="$files $work/$m.sv"
  else
    files="$files $src"
  fi
done

if [ -n "$gen" ]; then
  python3 "$here/${gen%% *}" "$work/${gen#* }" || { echo "$proof: ${gen%% *} failed" >&2; finish 2; }
fi

read -r kind steps bmc_steps <<<"$method"
bmc_steps=${bmc_steps:-$steps}
label=$proof; [ $mutant = 1 ] && label="$proof (mutant)"
for set in "${params[@]}"; do
  chparams=""
  if [ "$set" != - ]; then
    for p in ${set//,/ }; do chparams="$chparams -chparam ${p%%=*} ${p#*=}"; done
  fi
  connects=""
  for p in $probes; do connects="$connects connect -set ${p%%=*} ${p#*=};"; done
  start=$(date +%s.%N)
  if [ "$method" = pdr ]; then
    # The AIGER flow of SymbiYosys's abc pdr: assumptions become constraints, which fold folds.
    if ! yosys -q -l "$work/yosys.log" -p "
        read_verilog -sv -DSYNTHESIS $defines -I$rtl $rtl/mxu_isa_pkg.sv $rtl/mxu_pkg.sv $files
        read_verilog -formal -sv -I$here -I$work $here/$proof.sv
        hierarchy -check -top $proof $chparams
        proc
        flatten
        prep -top $proof
        $extra
        async2sync
        chformal -assume -early
        chformal -live -fair -cover -remove
        opt_clean
        setundef -anyseq
        opt -keepdc -fast
        check -assert
        dffunmap
        techmap
        opt -fast
        abc -g AND
        write_aiger -I -B -zinit $work/model.aig" >/dev/null 2>"$work/yosys.err"; then
      grep -h -E 'ERROR|Error|rror:' "$work/yosys.log" "$work/yosys.err" | head -5 >&2
      echo "$label [$set]: Yosys failed" >&2
      finish 2
    fi
    yosys-abc -c "read_aiger $work/model.aig; fold; strash; pdr; print_status" >"$work/pdr.log" 2>&1
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    if grep -q 'Property proved' "$work/pdr.log"; then
      printf '%s [%s]: PROVED by PDR (unbounded) (%.1f s)\n' "$label" "$set" "$secs"
      continue
    fi
    frame=$(grep -oE 'was asserted in frame [0-9]+' "$work/pdr.log" | grep -oE '[0-9]+$')
    if [ -n "$frame" ]; then
      printf '%s [%s]: REJECTED, counterexample from reset in %s steps (%.1f s)\n' \
        "$label" "$set" "$frame" "$secs"
      finish 1
    fi
    tail -5 "$work/pdr.log" >&2
    echo "$label [$set]: ABC's pdr gave no verdict" >&2
    finish 2
  fi
  if ! yosys -q -l "$work/yosys.log" -p "
      read_verilog -sv -DSYNTHESIS $defines -I$rtl $rtl/mxu_isa_pkg.sv $rtl/mxu_pkg.sv $files
      read_verilog -formal -sv -I$here -I$work $here/$proof.sv
      hierarchy -check -top $proof $chparams
      proc
      flatten
      $connects
      prep -top $proof
      $extra
      async2sync
      opt_clean
      check -assert
      dffunmap
      write_smt2 -wires $work/model.smt2" >/dev/null 2>"$work/yosys.err"; then
    grep -h -E 'ERROR|Error|rror:' "$work/yosys.log" "$work/yosys.err" | head -5 >&2
    echo "$label [$set]: Yosys failed" >&2
    finish 2
  fi
  smtbmc() {  # $1: log name, then yosys-smtbmc's options
    local log=$work/$1.log
    shift
    yosys-smtbmc -s "$solver" --unroll --presat "$@" --dump-vcd "$work/trace.vcd" "$work/model.smt2" \
      >"$log" 2>&1
    if grep -q 'Status: PASSED' "$log"; then return 0; fi
    if grep -q 'Status: FAILED' "$log"; then return 1; fi
    tail -5 "$log" >&2
    return 2
  }
  smtbmc bmc -t "$bmc_steps"
  rc=$?
  if [ $rc = 1 ]; then
    where=$(grep -m1 -E 'Assert failed|failed' "$work/bmc.log" | sed 's/^.*  //')
    step=$(grep -E 'Checking assertions in step' "$work/bmc.log" | tail -1 | grep -oE '[0-9]+\.\.' | tr -d .)
    printf '%s [%s]: REJECTED, counterexample from reset in %s steps: %s (%.1f s)\n' \
      "$label" "$set" "$step" "$(grep -m1 'Assert failed' "$work/bmc.log" | sed 's/^.*Assert failed in //')" \
      "$(echo "$(date +%s.%N) - $start" | bc)"
    finish 1
  elif [ $rc = 2 ]; then
    echo "$label [$set]: yosys-smtbmc failed" >&2
    finish 2
  fi
  if [ "$kind" = induction ]; then
    smtbmc induction -i -t "$steps"
    rc=$?
    if [ $rc != 0 ]; then
      printf '%s [%s]: INCONCLUSIVE, base case holds for %s steps, %s-induction fails\n' \
        "$label" "$set" "$bmc_steps" "$steps" >&2
      [ $rc = 1 ] && finish 3
      finish 2
    fi
    result="PROVED by $steps-induction (base case $bmc_steps steps)"
  else
    result="PASSED bounded check, $bmc_steps steps from reset"
  fi
  printf '%s [%s]: %s (%.1f s)\n' "$label" "$set" "$result" "$(echo "$(date +%s.%N) - $start" | bc)"
done
finish 0
