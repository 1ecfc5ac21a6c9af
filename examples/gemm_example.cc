// A standalone program on the installed mxu package: opens the RTL device, runs one GEMM
// C = A x B with random bf16 operands, checks every output bit against the golden model and
// prints the device's counters.
//
//   gemm_example [M K N]    (default 64 64 64)
//
// The RTL device is a SystemC model: libsystemc defines main(), which calls sc_main(). A program
// that uses it defines sc_main instead of main, and opens one device per process.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>

#include "backends/device_factory.h"
#include "common/csr_map.h"
#include "driver/device_config.h"
#include "driver/gemm.h"
#include "golden/float_vectors.h"
#include "golden/gemm.h"
#include "golden/numerics.h"

namespace {

// Moderate random bf16 values (exponents around 1.0), both signs.
mxu::driver::Bf16Matrix RandomMatrix(int rows, int cols, mxu::golden::BitSource& bits) {
  mxu::driver::Bf16Matrix m(rows, cols);
  for (uint16_t& x : m.data) {
    x = static_cast<uint16_t>((mxu::golden::RandomBf16(bits) & 0x807F) | (120 + bits.Below(12))
                                                                             << 7);
  }
  return m;
}

int Run(int m, int k, int n) {
  using namespace mxu;
  // Any backend the build offers; the RTL one takes the host memory's timing (options.timing,
  // MemoryTiming's defaults here). Fields set by name: a braced {"rtl", MemoryTiming()} would
  // leave device_spec out, which -Wextra warns about.
  backends::BackendOptions options;
  options.backend = "rtl";
  std::unique_ptr<driver::Device> device = backends::OpenDevice(options);
  const driver::DeviceConfig config = driver::ReadDeviceConfig(*device);
  std::printf("device: %s backend, %u x %u array, version %u.%u\n", device->name(), config.rows,
              config.cols, config.version >> 16, config.version & 0xFFFF);

  golden::BitSource bits(1);
  const driver::Bf16Matrix a = RandomMatrix(m, k, bits);
  const driver::Bf16Matrix b = RandomMatrix(k, n, bits);
  driver::GemmRequest request;
  request.a = &a;
  request.b = &b;
  const driver::GemmResult result = driver::Gemm(*device, config, request, 100'000'000);

  // The golden model accumulates K in tiles of the array's rows, in the contract's order.
  const golden::Bf16Matrix ga{a.rows, a.cols, a.data};
  const golden::Bf16Matrix gb{b.rows, b.cols, b.data};
  const golden::Fp32Matrix want =
      golden::Gemm(ga, gb, static_cast<int>(config.rows), config.subnormals);
  size_t mismatches = 0;
  for (size_t i = 0; i < want.data.size(); ++i) {
    mismatches += golden::FloatBits(want.data[i]) != golden::FloatBits(result.c.data[i]);
  }

  std::printf("GEMM %d x %d x %d: %zu outputs, %zu mismatches against the golden model\n", m, k, n,
              want.data.size(), mismatches);
  for (uint32_t i = 0; i < csr::kNumCounters; ++i) {
    const auto counter = static_cast<csr::Counter>(i);
    std::printf("  %-18s %" PRIu64 "\n", csr::CounterName(counter), result.stats.counter(counter));
  }
  std::printf("  ideal cycles       %" PRIu64 " (utilization %.1f%%)\n", result.ideal_cycles,
              100.0 * result.utilization);
  return mismatches == 0 ? 0 : 1;
}

}  // namespace

// SystemC declares sc_main extern "C" (in <systemc>, which this file does not need to include).
extern "C" int sc_main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);  // no SystemC banner in the output
  int m = 64, k = 64, n = 64;
  if (argc == 4) {
    m = std::atoi(argv[1]);
    k = std::atoi(argv[2]);
    n = std::atoi(argv[3]);
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: %s [M K N]\n", argv[0]);
    return 2;
  }
  try {
    return Run(m, k, n);
  } catch (const std::exception& error) {  // bad shapes, device errors, watchdog expiry
    std::fprintf(stderr, "gemm_example: %s\n", error.what());
    return 1;
  }
}
