// The device-spec parser (common/device_spec.*): what MXU_DEVICES and --device accept, the
// defaults, and a one-line rule for every entry it refuses.
#include "common/device_spec.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "common/pe_pipeline.h"

namespace mxu {
namespace {

TEST(DeviceSpec, DefaultsOfAPlainEntry) {
  const DeviceSpec d = ParseDeviceSpec("16x8");
  EXPECT_EQ(d.name, "16x8");
  EXPECT_EQ(d.rows, 16u);
  EXPECT_EQ(d.cols, 8u);
  EXPECT_FALSE(d.flush_subnormals);
  EXPECT_EQ(d.ub_depth, 8192u);
  EXPECT_EQ(d.acc_depth, 1024u);
  EXPECT_EQ(d.wfifo_depth, 32u);
  EXPECT_EQ(d.pe_stages, kDefaultPeStages);
  EXPECT_EQ(d.bus_bytes, 32u);
  EXPECT_FALSE(d.hier);
  EXPECT_EQ(d.threads, 1u);
  EXPECT_TRUE(d.clock_gating);
  EXPECT_TRUE(ParseDeviceSpec("32x32").hier);
  EXPECT_FALSE(ParseDeviceSpec("32x32", 2048).hier);
}

TEST(DeviceSpec, EveryOption) {
  const DeviceSpec d = ParseDeviceSpec("8x4-flush:ub=1024:acc=256:wfifo=9:pe=3:bus=64:hier=1");
  EXPECT_EQ(d.name, "8x4-flush");
  EXPECT_EQ(d.rows, 8u);
  EXPECT_EQ(d.cols, 4u);
  EXPECT_TRUE(d.flush_subnormals);
  EXPECT_EQ(d.ub_depth, 1024u);
  EXPECT_EQ(d.acc_depth, 256u);
  EXPECT_EQ(d.wfifo_depth, 9u);
  EXPECT_EQ(d.pe_stages, 3u);
  EXPECT_EQ(d.bus_bytes, 64u);
  EXPECT_TRUE(d.hier);
  EXPECT_EQ(ParseDeviceSpec("128x128:bus=1024").bus_bytes, 1024u);
  EXPECT_EQ(ParseDeviceSpec("64x64:hier=0:threads=2").threads, 2u);
  EXPECT_EQ(ParseDeviceSpec("16x16:threads=64").threads, 64u);
  EXPECT_FALSE(ParseDeviceSpec("16x16:gate=0").clock_gating);
  EXPECT_TRUE(ParseDeviceSpec("16x16:gate=1").clock_gating);
  for (uint32_t pe = 1; pe <= kPeMaxStages; ++pe) {
    EXPECT_EQ(ParseDeviceSpec("4x4:pe=" + std::to_string(pe)).pe_stages, pe);
  }
}

TEST(DeviceSpec, RefusesWithTheRule) {
  const struct {
    const char* entry;
    const char* rule;
  } cases[] = {
      {"16", "expected ROWSxCOLS"},
      {"16x", "expected ROWSxCOLS"},
      {"axb", "expected ROWSxCOLS"},
      {"16x16-fast", "expected ROWSxCOLS"},
      {"0x4", "rows and columns must be 1 to 255"},
      {"4x256", "rows and columns must be 1 to 255"},
      {"4x4:pe=0", "pe=0 must be 1 to 7 (the PE's pipeline stages)"},
      {"4x4:pe=8", "pe=8 must be 1 to 7"},
      {"4x4:pe=x", "pe=x must be 1 to 7"},
      {"4x4:ub=1000", "ub=1000 must be a power of two from 16 to 65536"},
      {"4x4:acc=8", "acc=8 must be a power of two from 16 to 65536"},
      {"4x4:wfifo=3", "wfifo=3 must be 4 (one tile) to 65535"},
      {"4x4:hier=2", "hier=2 must be 0 or 1"},
      {"4x4:pe=2:pe=3", "pe given twice"},
      {"4x4:speed=3", "unknown option 'speed' (ub, acc, wfifo, pe, bus, hier, threads, gate)"},
      {"4x4:gate=2", "gate=2 must be 0 or 1"},
      {"4x4:threads=0", "threads=0 must be 1 to 64"},
      {"4x4:threads=65", "threads=65 must be 1 to 64"},
      {"4x4:hier=1:threads=2", "threads=2 needs a flat device (hier=0)"},
      {"32x32:threads=2", "threads=2 needs a flat device (hier=0)"},
      {"4x4:bus=24", "bus=24 must be a power of two from 16 to 1024 (bytes per beat)"},
      {"4x4:bus=2048", "bus=2048 must be a power of two from 16 to 1024"},
      {"4x4:bus=8", "bus=8 must be a power of two from 16 to 1024"},
      {"4x4:pe", "option 'pe': expected KEY=N"},
      {"4x4:", "option '': expected KEY=N"},
  };
  for (const auto& c : cases) {
    try {
      ParseDeviceSpec(c.entry);
      ADD_FAILURE() << c.entry << " accepted";
    } catch (const DeviceSpecError& error) {
      const std::string what = error.what();
      EXPECT_NE(what.find(c.rule), std::string::npos) << c.entry << ": " << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << c.entry << ": one line";
    }
  }
}

// rtl/mxu_pkg.sv's default depth (a lint or synthesis run without a device's defines) is the
// parser's.
TEST(DeviceSpec, RtlPackageDefaultDepthIsTheParsers) {
  std::ifstream pkg(std::string(MXU_SOURCE_DIR) + "/rtl/mxu_pkg.sv");
  ASSERT_TRUE(pkg) << "rtl/mxu_pkg.sv";
  std::stringstream text;
  text << pkg.rdbuf();
  EXPECT_NE(text.str().find("`define MXU_PE_STAGES " + std::to_string(kDefaultPeStages) + "\n"),
            std::string::npos);
}

}  // namespace
}  // namespace mxu
