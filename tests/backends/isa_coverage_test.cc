// Functional coverage (tests/backends/isa_coverage.h) of the random programs the default suite
// runs on the RTL (tests/backends/random_program_suites.h): every bin must be hit. The illegal
// programs run on the model to learn which instruction raised the error (model_agreement_test
// holds the model's error pc to the RTL's). MXU_ISA_COVERAGE_JSON=FILE writes the bins
// (scripts/coverage.sh --json).
#include "tests/backends/isa_coverage.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "backends/model_device.h"
#include "driver/device_config.h"
#include "tests/backends/program_harness.h"
#include "tests/backends/random_program.h"
#include "tests/backends/random_program_suites.h"

namespace mxu {
namespace {

TEST(IsaCoverage, DefaultRandomProgramsHitEveryBin) {
  backends::ModelDevice model;
  const driver::DeviceConfig config = driver::ReadDeviceConfig(model);
  testing::IsaCoverage coverage(
      {config.ub_depth, config.acc_depth, config.ub_lanes, config.cols, config.rows});
  int programs = 0;
  for (const testing::LegalProgramSuite& suite : testing::kLegalProgramSuites) {
    for (int i = 0; i < suite.count; ++i) {
      const uint64_t seed = suite.first_seed + i;
      const auto program = testing::RandomProgram(
          seed, testing::SpaceOf(suite, seed, static_cast<int>(config.ub_depth),
                                 static_cast<int>(config.acc_depth)));
      coverage.Sample(program, program.size(), csr::ErrorCode::kNone, suite.integer);
      ++programs;
    }
  }
  testing::RandomProgramSpace space;
  space.ub_depth = static_cast<int>(config.ub_depth);
  space.acc_depth = static_cast<int>(config.acc_depth);
  space.ub_lanes = static_cast<int>(config.ub_lanes);
  space.memory_bytes = model.memory_size();
  for (uint32_t code = 1; code <= 10; ++code) {
    for (int i = 0; i < testing::IllegalProgramsPerCode(static_cast<csr::ErrorCode>(code)); ++i) {
      space.integer = testing::IllegalProgramIsInteger(i);
      const auto program =
          testing::RandomProgram(testing::IllegalProgramSeed(code, i), space,
                                 testing::kIllegalProgramLength, static_cast<csr::ErrorCode>(code));
      const testing::Outcome out = testing::RunProgram(model, program);
      ASSERT_TRUE(out.completed && out.error && out.code == code)
          << csr::ErrorName(code) << " program " << i << " ended with " << csr::ErrorName(out.code);
      coverage.Sample(program, out.pc, static_cast<csr::ErrorCode>(code), space.integer);
      model.WriteCsr(csr::kCtrl, csr::kCtrlSoftReset);
      ++programs;
    }
  }

  int hit = 0;
  std::string missed;
  for (const auto& [bin, count] : coverage.bins()) {
    std::printf("%-52s %8llu\n", bin.c_str(), static_cast<unsigned long long>(count));
    if (count) {
      ++hit;
    } else {
      missed += " " + bin;
    }
  }
  const int bins = static_cast<int>(coverage.bins().size());
  std::printf("functional coverage: %d of %d bins hit by %d programs\n", hit, bins, programs);
  if (const char* path = std::getenv("MXU_ISA_COVERAGE_JSON")) {
    std::ofstream json(path);
    json << "{\"bins\": " << bins << ", \"bins_hit\": " << hit << ", \"programs\": " << programs
         << ", \"counts\": {";
    const char* sep = "";
    for (const auto& [bin, count] : coverage.bins()) {
      json << sep << "\"" << bin << "\": " << count;
      sep = ", ";
    }
    json << "}}\n";
    ASSERT_TRUE(json.good()) << "cannot write " << path;
  }
  EXPECT_EQ(hit, bins) << "bins never hit:" << missed;
}

}  // namespace
}  // namespace mxu
