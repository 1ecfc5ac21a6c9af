// The shared scaffolding of the device tests (tests/sim/device*_test.cc, one SystemC binary
// whose sc_main is in device_test.cc): the one platform, programs run to their interrupt under a
// watchdog, the fixture, and a GEMM program with its golden check.
#ifndef MXU_TESTS_SIM_DEVICE_TEST_UTIL_H_
#define MXU_TESTS_SIM_DEVICE_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/csr_map.h"
#include "common/isa.h"
#include "common/pe_pipeline.h"
#include "golden/float_vectors.h"
#include "golden/gemm.h"
#include "golden/numerics.h"
#include "sim/platform.h"
#include "tests/backends/program_harness.h"

namespace mxu::device_test {

using golden::BitSource;
using isa::Buffer;
using isa::Instruction;
using testing::ExpectError;
using testing::kProgramAddr;

inline constexpr uint64_t kWatchdog = 300'000;

// The platform sc_main made (one per process).
inline sim::Platform* g_platform = nullptr;
inline sim::Platform& Dut() { return *g_platform; }

// The configuration read from the device (nothing here hard-codes the array size).
struct DeviceConfig {
  uint32_t rows, cols, ub_depth, acc_depth, ub_lanes;
  uint64_t bus_bytes;  // the memory port's bytes per beat
};

inline DeviceConfig ReadConfig() {
  sim::Platform& p = Dut();
  const uint32_t array = p.ReadCsr(csr::kArray);
  const uint32_t features = p.ReadCsr(csr::kFeatures);
  return {csr::ArrayRows(array),          csr::ArrayCols(array),
          p.ReadCsr(csr::kUbDepth),       p.ReadCsr(csr::kAccDepth),
          csr::FeaturesUbLanes(features), uint64_t{1} << csr::FeaturesBusLog2(features)};
}

// The PE pipeline the device reports (PIPELINE CSR), as the C++ table describes that depth.
inline PePipeline PipelineOfDevice() {
  return PePipelineOf(csr::PipelinePeStages(Dut().ReadCsr(csr::kPipeline)));
}

// The subnormal mode the device was built with (FEATURES CSR), as the golden model takes it.
inline Subnormals SubnormalsOfDevice() {
  return csr::FeaturesFlushSubnormals(Dut().ReadCsr(csr::kFeatures)) ? Subnormals::kFlush
                                                                     : Subnormals::kIeee;
}

// How a program ended, and the AXI rule violations the memory transactor saw.
struct Outcome : testing::Outcome {
  uint64_t protocol_errors = 0;
};

inline Outcome RunProgram(const std::vector<Instruction>& program,
                          uint64_t program_addr = kProgramAddr, uint32_t count = UINT32_MAX) {
  sim::Platform& p = Dut();
  const std::vector<uint8_t> bytes = testing::ProgramBytes(program);
  if (!bytes.empty() && program_addr + bytes.size() <= p.memory().config().size_bytes) {
    p.memory().Write(program_addr, bytes.data(), bytes.size());
  }
  testing::StartProgram(p, program_addr,
                        count == UINT32_MAX ? static_cast<uint32_t>(program.size()) : count);
  Outcome out;
  static_cast<testing::Outcome&>(out) = testing::ReadOutcome(p, p.RunUntilIrq(kWatchdog).completed);
  out.protocol_errors = p.transactor().protocol_error_count();
  return out;
}

// A program that ran to HALT without breaking the memory protocol.
inline void ExpectDone(const Outcome& out) {
  testing::ExpectDone(out);
  if (out.completed) {
    EXPECT_EQ(out.protocol_errors, 0u);
  }
}

class DeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Dut().Reset();
    Dut().memory().ClearInjectedErrors();
    Dut().Reconfigure(sim::HostMemory::Config());
    config_ = ReadConfig();
  }

  std::vector<uint16_t> RandomBf16(size_t n, BitSource& bits) {
    std::vector<uint16_t> v(n);
    for (auto& x : v) {
      x = static_cast<uint16_t>((golden::RandomBf16(bits) & 0x807F) | (117 + bits.Below(20)) << 7);
    }
    return v;
  }

  void WriteHost(uint64_t addr, const void* data, size_t bytes) {
    Dut().memory().Write(addr, data, bytes);
  }
  template <typename T>
  std::vector<T> ReadHost(uint64_t addr, size_t count) {
    std::vector<T> v(count);
    Dut().memory().Read(addr, v.data(), count * sizeof(T));
    return v;
  }

  DeviceConfig config_{};
};

// Host layout of a GEMM and the program that computes it tile by tile (N <= cols): all K tiles of
// A loaded into the unified buffer, each weight tile loaded (plain or transposed from B^T) before
// its MATMUL, results stored as fp32 and, after a ReLU activation, as bf16.
struct GemmCase {
  int m, k, n;
  bool b_transposed;
  uint64_t a_addr = 0x100000, b_addr = 0x200000, c_addr = 0x300000, y_addr = 0x400000;
};

inline std::vector<Instruction> GemmProgram(const GemmCase& g, const DeviceConfig& cfg,
                                            bool sync_each) {
  std::vector<Instruction> p;
  const uint32_t tiles = (g.k + cfg.rows - 1) / cfg.rows;
  for (uint32_t t = 0; t < tiles; ++t) {
    const uint32_t k0 = t * cfg.rows, k_rows = std::min<uint32_t>(cfg.rows, g.k - k0);
    // A tile: rows m, lanes k0 .. k0+k_rows-1 of A (M x K, row-major).
    p.push_back(isa::Load(Buffer::kUb, g.m, k_rows, t * g.m, g.a_addr + 2 * k0, g.k));
    if (sync_each) p.push_back(isa::Sync());
    if (g.b_transposed) {  // B^T is N x K in memory: weight row r, lane n <- B^T[n][k0 + r]
      p.push_back(isa::Load(Buffer::kWeights, k_rows, g.n, 0, g.b_addr + 2 * k0, g.k, true));
    } else {
      p.push_back(isa::Load(Buffer::kWeights, k_rows, g.n, 0, g.b_addr + 2ull * k0 * g.n, g.n));
    }
    if (sync_each) p.push_back(isa::Sync());
    p.push_back(isa::Matmul(g.m, k_rows, t * g.m, 0, t > 0, true));
    if (sync_each) p.push_back(isa::Sync());
  }
  p.push_back(isa::Store(Buffer::kAcc, g.m, g.n, 0, g.c_addr, g.n));
  p.push_back(isa::Activate(g.m, 0, cfg.ub_depth - g.m, true, false));
  p.push_back(isa::Store(Buffer::kUb, g.m, g.n, cfg.ub_depth - g.m, g.y_addr, g.n));
  p.push_back(isa::Halt());
  return p;
}

struct GemmData {
  golden::Bf16Matrix a, b;
};

inline GemmData WriteGemmInputs(const GemmCase& g, uint64_t seed) {
  BitSource bits(seed);
  GemmData d{{g.m, g.k, {}}, {g.k, g.n, {}}};
  for (auto* mat : {&d.a, &d.b}) {
    mat->data.resize(static_cast<size_t>(mat->rows) * mat->cols);
    for (auto& x : mat->data) {
      x = bits.Below(50) == 0 ? golden::SpecialBf16()[bits.Below(18)]
                              : static_cast<uint16_t>((golden::RandomBf16(bits) & 0x807F) |
                                                      (117 + bits.Below(20)) << 7);
    }
  }
  Dut().memory().Write(g.a_addr, d.a.data.data(), d.a.data.size() * 2);
  if (g.b_transposed) {
    std::vector<uint16_t> bt(d.b.data.size());
    for (int k = 0; k < g.k; ++k) {
      for (int n = 0; n < g.n; ++n) bt[static_cast<size_t>(n) * g.k + k] = d.b.at(k, n);
    }
    Dut().memory().Write(g.b_addr, bt.data(), bt.size() * 2);
  } else {
    Dut().memory().Write(g.b_addr, d.b.data.data(), d.b.data.size() * 2);
  }
  return d;
}

// Compares C (fp32) and ReLU(C) as bf16 in host memory with the golden model.
inline int CheckGemmOutputs(const GemmCase& g, const GemmData& d, const DeviceConfig& cfg) {
  const Subnormals mode = SubnormalsOfDevice();
  const golden::Fp32Matrix want = golden::Gemm(d.a, d.b, static_cast<int>(cfg.rows), mode);
  std::vector<uint32_t> c(static_cast<size_t>(g.m) * g.n);
  std::vector<uint16_t> y(c.size());
  Dut().memory().Read(g.c_addr, c.data(), c.size() * 4);
  Dut().memory().Read(g.y_addr, y.data(), y.size() * 2);
  int mismatches = 0;
  for (int i = 0; i < g.m; ++i) {
    for (int j = 0; j < g.n; ++j) {
      const float w = want.at(i, j);
      const size_t at = static_cast<size_t>(i) * g.n + j;
      if (c[at] != golden::FloatBits(w) || y[at] != golden::FloatToBf16(golden::Relu(w), mode)) {
        if (++mismatches <= 5) {
          ADD_FAILURE() << "C[" << i << "][" << j << "] device 0x" << std::hex << c[at] << "/0x"
                        << y[at] << ", golden 0x" << golden::FloatBits(w);
        }
      }
    }
  }
  return mismatches;
}

}  // namespace mxu::device_test

#endif  // MXU_TESTS_SIM_DEVICE_TEST_UTIL_H_
