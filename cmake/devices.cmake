# The devices this build makes (docs/architecture.md, "Devices: array sizes chosen at build
# time"). Each entry of MXU_DEVICES is one verilated mxu_top with its own parameters, and gets its
# own platform library, backends library and `mxu` executable (SystemC elaborates once per
# process, and a verilated class is one parameter set: one device per process). The first entry
# is the default device: its targets keep the plain names (mxu_platform, mxu_backends, mxu).
#
# An entry: ROWSxCOLS[-flush][:ub=N][:acc=N][:wfifo=N][:pe=N][:bus=B][:hier=0|1][:threads=N][:gate=0|1]
#   ROWSxCOLS   the systolic array, 1 to 255 each (FEATURES.UB_LANES is 8 bits)
#   -flush      subnormals flushed to zero (FlushSubnormals=1); IEEE subnormals otherwise
#   ub=N        unified-buffer rows (power of two, 16 to 65536); default 8192
#   acc=N       accumulator rows (power of two, 16 to 65536); default 1024
#   wfifo=N     weight-FIFO rows (at least ROWS); default 2 x ROWS (two weight tiles)
#   pe=N        the PE's pipeline stages, 1 to 7 (docs/architecture.md, "The pipelined PE");
#               default rtl/mxu_pkg.sv's MXU_PE_STAGES, the shallowest depth a chip could clock
#   bus=B       the memory port's bytes per beat, a power of two from 16 to 1024 (the RTL and
#               the model alike); default 32
#   hier=0|1    verilate the array column once (hierarchically) rather than every PE apart;
#               default 1 from MXU_HIER_MIN_PES PEs up (docs/architecture.md, "Devices")
#   gate=0|1    clock gating in the RTL (docs/architecture.md, "Clock gating"); default 1. Cycles
#               and results are the same either way; power and energy are not
#   threads=N   simulate the RTL on N threads (Verilator --threads; flat devices only, 1 to 64);
#               default 1. Simulation speed only: every result and cycle count is the same
# The device's name is the entry up to its first ':' ("8x4-flush"); names must differ.
#
# The depth rule: unless given, every size keeps the default device's buffer depths in rows (UB
# 8192, ACC 1024; so a lane's share of each buffer stays the same and the buffers grow with the
# array's width), and a weight FIFO of two tiles. The array streams one buffer row per cycle, so
# constant depths keep what a tile may hold in cycles (and the planner's blocking in rows) the
# same at every size; the buffers' bytes grow with the lanes, like the array's bandwidth.
#
# CI builds the default device and one small, non-square, flush-mode device with small buffers
# and another PE depth and memory port (8x4-flush:ub=1024:acc=256:pe=3:bus=64:hier=1): a planner
# or driver that assumes a square array, a buffer size, IEEE mode, one pipeline or one bus width
# fails its tests there, and it is verilated hierarchically, the default's flat.
set(MXU_DEVICES "16x16;8x4-flush:ub=1024:acc=256:pe=3:bus=64:hier=1" CACHE STRING
    "Devices to build: ROWSxCOLS[-flush][:ub=N][:acc=N][:wfifo=N][:pe=N][:bus=B][:hier=0|1][:threads=N][:gate=0|1] entries, the first the default")

set(MXU_HIER_MIN_PES 1024 CACHE STRING
    "Devices with at least this many PEs verilate the array column once (hier=1 unless given)")

function(mxu_device_fail spec message)
  message(FATAL_ERROR "MXU_DEVICES: entry '${spec}': ${message}")
endfunction()

# Every entry parsed by the project's one device-spec parser (common/device_spec.cc, the same the
# tools use for --device), compiled and run here: one line of tab-separated fields "name rows cols
# flush ub acc wfifo pe bus hier threads gate" per entry, or "error ENTRY RULE".
if(NOT MXU_DEVICES)
  message(FATAL_ERROR "MXU_DEVICES is empty: name at least one device, e.g. 16x16")
endif()
try_run(spec_run spec_compiled ${CMAKE_BINARY_DIR}/device_spec_tool
        ${CMAKE_SOURCE_DIR}/cmake/device_spec_tool.cc
        CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${CMAKE_SOURCE_DIR}"
        CXX_STANDARD 17
        COMPILE_OUTPUT_VARIABLE spec_compile_output
        RUN_OUTPUT_VARIABLE spec_lines
        ARGS ${MXU_HIER_MIN_PES} ${MXU_DEVICES})
if(NOT spec_compiled)
  message(FATAL_ERROR "cmake/device_spec_tool.cc does not compile:\n${spec_compile_output}")
endif()
string(REGEX REPLACE "\n$" "" spec_lines "${spec_lines}")
string(REPLACE "\n" ";" spec_records "${spec_lines}")
list(POP_FRONT spec_records defaults)
string(REPLACE "\t" ";" defaults "${defaults}")
list(GET defaults 1 MXU_DEFAULT_PE_STAGES)

set(MXU_DEVICE_IDS "")
set(hier_device "")
set(table "")
set(index 0)
foreach(record IN LISTS spec_records)
  string(REPLACE "\t" ";" fields "${record}")
  list(GET fields 0 name)
  if(name STREQUAL "error")
    list(GET fields 1 spec)
    list(GET fields 2 rule)
    mxu_device_fail("${spec}" "${rule}")
  endif()
  list(GET fields 1 rows)
  list(GET fields 2 cols)
  list(GET fields 3 flush)
  list(GET fields 4 ub)
  list(GET fields 5 acc)
  list(GET fields 6 wfifo)
  list(GET fields 7 pe)
  list(GET fields 8 bus)
  list(GET fields 9 hier)
  list(GET fields 10 threads)
  list(GET fields 11 gate)
  list(GET MXU_DEVICES ${index} spec)
  string(REGEX REPLACE "[^A-Za-z0-9_]" "_" id "${name}")
  if(id IN_LIST MXU_DEVICE_IDS)
    mxu_device_fail("${spec}" "a device named '${name}' is already listed")
  endif()
  list(APPEND MXU_DEVICE_IDS ${id})
  if(index EQUAL 0)
    set(suffix "")
    set(binary mxu)
  else()
    set(suffix _${id})
    set(binary mxu-${name})
  endif()
  foreach(field name rows cols ub acc wfifo pe bus flush suffix binary index threads gate)
    set(MXU_DEVICE_${id}_${field} "${${field}}")
  endforeach()
  # The device's values reach rtl/mxu_pkg.sv as defines (see there why not as -G of mxu_top).
  set(MXU_DEVICE_${id}_VERILATOR_ARGS
      +define+MXU_ARRAY_ROWS=${rows} +define+MXU_ARRAY_COLS=${cols} +define+MXU_UB_DEPTH=${ub}
      +define+MXU_ACC_DEPTH=${acc} +define+MXU_WEIGHT_FIFO_DEPTH=${wfifo}
      +define+MXU_FLUSH_SUBNORMALS=${flush} +define+MXU_PE_STAGES=${pe}
      +define+MXU_BUS_BYTES=${bus} +define+MXU_CLOCK_GATING=${gate})
  # hier=1: the array column verilated once (rtl/mxu_hier.vlt). -Wall's file-name check stops on
  # the column's own verilation, which renames its module (mxu_pe_col_N) in a file read before
  # any .vlt (so no .vlt can waive it); the lint over rtl/ (scripts/lint_rtl.sh) still checks
  # every file name.
  # Every device: rtl/mxu_pe_share.vlt lets the PE instances share their verilated code.
  set(MXU_DEVICE_${id}_VLT ${MXU_RTL_DIR}/mxu_pe_share.vlt)
  if(hier)
    list(APPEND MXU_DEVICE_${id}_VLT ${MXU_RTL_DIR}/mxu_hier.vlt)
    list(APPEND MXU_DEVICE_${id}_VERILATOR_ARGS --hierarchical -Wno-DECLFILENAME)
  endif()
  set(MXU_DEVICE_${id}_hier ${hier})
  if(hier)
    if(hier_device)
      mxu_device_fail("${spec}" "only one device per build may be hier=1 ('${hier_device}' is): \
Verilator names the column models of several devices alike; build each in its own build tree")
    endif()
    set(hier_device ${name})
  endif()
  if(flush)
    set(flush_text true)
  else()
    set(flush_text false)
  endif()
  if(gate)
    set(gate_text true)
  else()
    set(gate_text false)
  endif()
  string(APPEND table
         "    {\"${name}\", ${rows}, ${cols}, ${ub}, ${acc}, ${wfifo}, ${flush_text}, ${pe}, ${bus}, ${gate_text}, \"${binary}\"},\n")
  math(EXPR index "${index} + 1")
endforeach()
list(GET MXU_DEVICE_IDS 0 MXU_DEFAULT_DEVICE_ID)
message(STATUS "mxu devices: ${MXU_DEVICES} (default ${MXU_DEVICE_${MXU_DEFAULT_DEVICE_ID}_name})")

# The table every backends library compiles in (backends/built_devices.cc): written only when it
# changes, so a reconfigure rebuilds nothing.
set(MXU_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated)
file(CONFIGURE OUTPUT ${MXU_GENERATED_DIR}/mxu_built_devices.inc
     CONTENT "// Generated by cmake/devices.cmake from MXU_DEVICES (${MXU_DEVICES}): do not edit.\n// name, rows, cols, ub_depth, acc_depth, wfifo_depth, flush_subnormals, pe_stages, bus_bytes, clock_gating, binary\n${table}" @ONLY)
