#include "host/selfcheck.h"

#include <chrono>
#include <cstdio>

#include "driver/golden/check_tally.h"
#include "driver/golden/float_vectors.h"
#include "driver/golden/numerics.h"
#include "host/cli_args.h"
#include "sim/arith_units.h"

namespace mxu::host {
namespace {

using golden::CheckTally;

constexpr Subnormals kModes[] = {Subnormals::kIeee, Subnormals::kFlush};

struct Row {
  std::string unit;
  Subnormals mode;
  CheckTally tally;
};

}  // namespace

int RunSelfcheck(const std::vector<std::string>& args) {
  const CliArgs cli(args, {"vectors", "seed"}, {"json"});
  const uint64_t vectors = cli.Unsigned("vectors", 200'000, 1, uint64_t{1} << 32);
  const uint64_t seed = cli.Unsigned("seed", 1);
  const bool json = cli.Has("json");

  sim::ArithUnits units;
  std::vector<Row> rows;
  const auto start = std::chrono::steady_clock::now();
  for (Subnormals mode : kModes) {
    golden::BitSource bits(seed);
    Row mul{"bf16_mul", mode, CheckTally("bf16_mul")};
    Row add{"fp32_add", mode, CheckTally("fp32_add")};
    Row cvt{"fp32_to_bf16", mode, CheckTally("fp32_to_bf16")};
    auto check = [&](uint32_t a, uint32_t b) {
      const auto out = units.Evaluate(a, b);
      const int m = static_cast<int>(mode);
      const uint16_t a16 = static_cast<uint16_t>(a), b16 = static_cast<uint16_t>(b);
      mul.tally.Compare(out.mul[m], golden::FloatBits(golden::Bf16Mul(a16, b16, mode)),
                        "bf16_mul(0x%04x, 0x%04x)", a16, b16);
      add.tally.Compare(out.add[m],
                        golden::FloatBits(golden::Fp32Add(golden::FloatFromBits(a),
                                                          golden::FloatFromBits(b), mode)),
                        "fp32_add(0x%08x, 0x%08x)", a, b);
      cvt.tally.Compare(out.to_bf16[m], golden::FloatToBf16(golden::FloatFromBits(a), mode),
                        "fp32_to_bf16(0x%08x)", a);
    };
    for (uint64_t i = 0; i < vectors; ++i) {
      const uint32_t a = golden::RandomFp32(bits);
      check(a, (i & 1) ? golden::RandomFp32Near(bits, a, 26) : golden::RandomFp32(bits));
    }
    // Specials: fp32 classes for the adder and converter, bf16 classes (low halves) for the mul.
    const auto fp32 = golden::SpecialFp32();
    const auto bf16 = golden::SpecialBf16();
    for (size_t i = 0; i < fp32.size(); ++i) {
      for (size_t j = 0; j < fp32.size(); ++j) {
        check((fp32[i] & 0xFFFF0000u) | bf16[i], (fp32[j] & 0xFFFF0000u) | bf16[j]);
        check(fp32[i], fp32[j]);
      }
    }
    rows.push_back(std::move(mul));
    rows.push_back(std::move(add));
    rows.push_back(std::move(cvt));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  uint64_t total_mismatches = 0;
  for (const Row& row : rows) total_mismatches += row.tally.mismatches();
  if (json) {
    std::printf("{\"seed\": %llu, \"wall_seconds\": %.3f, \"units\": [",
                static_cast<unsigned long long>(seed), seconds);
    for (size_t i = 0; i < rows.size(); ++i) {
      std::printf("%s{\"unit\": \"%s\", \"mode\": \"%s\", \"vectors\": %llu, \"mismatches\": %llu}",
                  i ? ", " : "", rows[i].unit.c_str(), ToString(rows[i].mode),
                  static_cast<unsigned long long>(rows[i].tally.vectors()),
                  static_cast<unsigned long long>(rows[i].tally.mismatches()));
    }
    std::printf("], \"mismatches\": %llu}\n", static_cast<unsigned long long>(total_mismatches));
  } else {
    std::printf("Arithmetic self-check: verilated RTL vs host CPU IEEE-754 (seed %llu)\n\n",
                static_cast<unsigned long long>(seed));
    std::printf("  %-14s %-6s %12s %12s\n", "unit", "mode", "vectors", "mismatches");
    for (const Row& row : rows) {
      std::printf("  %-14s %-6s %12llu %12llu\n", row.unit.c_str(), ToString(row.mode),
                  static_cast<unsigned long long>(row.tally.vectors()),
                  static_cast<unsigned long long>(row.tally.mismatches()));
    }
    for (const Row& row : rows) {
      if (row.tally.mismatches()) std::printf("\n%s\n", row.tally.Report().c_str());
    }
    std::printf("\n%s in %.2f s\n", total_mismatches ? "FAILED" : "all bit-exact", seconds);
  }
  return total_mismatches ? 1 : 0;
}

}  // namespace mxu::host
