// The device's CSR map (docs/isa.md): byte addresses on the register port, bit fields, error codes
// and performance counters. Header only: the driver, the platform and the tests share it.
#ifndef MXU_COMMON_CSR_MAP_H_
#define MXU_COMMON_CSR_MAP_H_

#include <cstdint>

namespace mxu::csr {

inline constexpr uint32_t kDeviceId = 0x4D585530;  // "MXU0"
inline constexpr uint32_t kDeviceVersion = 0x00010000;

// Byte addresses.
inline constexpr uint32_t kId = 0x000;
inline constexpr uint32_t kVersion = 0x004;
inline constexpr uint32_t kArray = 0x008;
inline constexpr uint32_t kUbDepth = 0x00C;
inline constexpr uint32_t kAccDepth = 0x010;
inline constexpr uint32_t kWfifoDepth = 0x014;
inline constexpr uint32_t kFeatures = 0x018;
inline constexpr uint32_t kCtrl = 0x020;
inline constexpr uint32_t kStatus = 0x024;
inline constexpr uint32_t kIrqClear = 0x028;
inline constexpr uint32_t kErrorCode = 0x02C;
inline constexpr uint32_t kErrorPc = 0x030;
inline constexpr uint32_t kErrorAddrLo = 0x034;
inline constexpr uint32_t kErrorAddrHi = 0x038;
inline constexpr uint32_t kCmdAddrLo = 0x040;
inline constexpr uint32_t kCmdAddrHi = 0x044;
inline constexpr uint32_t kCmdCount = 0x048;
inline constexpr uint32_t kPc = 0x04C;
inline constexpr uint32_t kCounterBase = 0x080;

// ARRAY: [15:0] ArrayRows, [31:16] ArrayCols.
inline constexpr uint32_t ArrayRows(uint32_t array) { return array & 0xFFFF; }
inline constexpr uint32_t ArrayCols(uint32_t array) { return array >> 16; }

// FEATURES: [7:0] memory bus bytes, [8] flush subnormals, [23:16] UB lanes, [31:24] requests in
// flight.
inline constexpr uint32_t kFeaturesFlushSubnormals = 1u << 8;
inline constexpr uint32_t FeaturesBusBytes(uint32_t features) { return features & 0xFF; }
inline constexpr bool FeaturesFlushSubnormals(uint32_t features) {
  return (features & kFeaturesFlushSubnormals) != 0;
}
inline constexpr uint32_t FeaturesUbLanes(uint32_t features) { return (features >> 16) & 0xFF; }
inline constexpr uint32_t FeaturesMaxInFlight(uint32_t features) { return features >> 24; }

// CTRL (start and soft reset are write-only pulses; interrupt enable reads back).
inline constexpr uint32_t kCtrlStart = 1u << 0;
inline constexpr uint32_t kCtrlSoftReset = 1u << 1;
inline constexpr uint32_t kCtrlIrqEnable = 1u << 2;

// STATUS.
inline constexpr uint32_t kStatusBusy = 1u << 0;
inline constexpr uint32_t kStatusDone = 1u << 1;
inline constexpr uint32_t kStatusError = 1u << 2;
inline constexpr uint32_t kStatusIrqPending = 1u << 3;

// IRQ_CLEAR.
inline constexpr uint32_t kIrqClearPending = 1u << 0;

// ERROR_CODE values.
enum class ErrorCode : uint32_t {
  kNone = 0,
  kIllegalOpcode = 1,
  kIllegalField = 2,
  kUbRange = 3,
  kAccRange = 4,
  kMisaligned = 5,
  kMemRead = 6,
  kMemWrite = 7,
  kNoWeights = 8,
  kCmdOverrun = 9,
  kWeightsFull = 10,
};

// The table's name of an ERROR_CODE value ("MEM_READ"); "UNKNOWN" for values not in the table.
inline constexpr const char* ErrorName(uint32_t code) {
  constexpr const char* kNames[] = {"NONE",       "ILLEGAL_OPCODE", "ILLEGAL_FIELD", "UB_RANGE",
                                    "ACC_RANGE",  "MISALIGNED",     "MEM_READ",      "MEM_WRITE",
                                    "NO_WEIGHTS", "CMD_OVERRUN",    "WEIGHTS_FULL"};
  return code < sizeof(kNames) / sizeof(kNames[0]) ? kNames[code] : "UNKNOWN";
}
inline constexpr const char* ErrorName(ErrorCode code) {
  return ErrorName(static_cast<uint32_t>(code));
}

// Performance counters, 64 bits each at CounterLo(i) / CounterHi(i).
enum class Counter : uint32_t {
  kCycles = 0,
  kArrayBusy = 1,
  kMacs = 2,
  kDmaReadBytes = 3,
  kDmaWriteBytes = 4,
  kInstructions = 5,
  kStallDependency = 6,
  kStallWeights = 7,
  kStallFetch = 8,
  kStallMemory = 9,
};
inline constexpr uint32_t kNumCounters = 10;

inline constexpr uint32_t CounterLo(uint32_t i) { return kCounterBase + 8 * i; }
inline constexpr uint32_t CounterHi(uint32_t i) { return kCounterBase + 8 * i + 4; }
inline constexpr uint32_t CounterLo(Counter c) { return CounterLo(static_cast<uint32_t>(c)); }
inline constexpr uint32_t CounterHi(Counter c) { return CounterHi(static_cast<uint32_t>(c)); }

// The table's name of a counter ("DMA_READ_BYTES"); "UNKNOWN" for indices not in the table.
inline constexpr const char* CounterName(Counter counter) {
  constexpr const char* kNames[] = {
      "CYCLES",       "ARRAY_BUSY",       "MACS",          "DMA_READ_BYTES", "DMA_WRITE_BYTES",
      "INSTRUCTIONS", "STALL_DEPENDENCY", "STALL_WEIGHTS", "STALL_FETCH",    "STALL_MEMORY"};
  const uint32_t i = static_cast<uint32_t>(counter);
  return i < sizeof(kNames) / sizeof(kNames[0]) ? kNames[i] : "UNKNOWN";
}

}  // namespace mxu::csr

#endif  // MXU_COMMON_CSR_MAP_H_
