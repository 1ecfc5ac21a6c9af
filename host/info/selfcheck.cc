#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "golden/check_tally.h"
#include "golden/float_vectors.h"
#include "golden/numerics.h"
#include "host/cli/cli.h"
#include "host/info/commands.h"
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

struct SelfcheckArgs {
  uint64_t vectors = 200'000;
  uint64_t seed = 1;
  bool json = false;
};

int RunSelfcheck(const SelfcheckArgs& args) {
  const uint64_t vectors = args.vectors;
  const uint64_t seed = args.seed;
  const bool json = args.json;

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
    nlohmann::ordered_json j;
    j["seed"] = seed;
    j["wall_seconds"] = seconds;
    j["units"] = nlohmann::ordered_json::array();
    for (const Row& row : rows) {
      j["units"].push_back({{"unit", row.unit},
                            {"mode", ToString(row.mode)},
                            {"vectors", row.tally.vectors()},
                            {"mismatches", row.tally.mismatches()}});
    }
    j["mismatches"] = total_mismatches;
    std::printf("%s\n", j.dump().c_str());
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

}  // namespace

std::function<int()> AddSelfcheckCommand(CLI::App& app) {
  auto args = std::make_shared<SelfcheckArgs>();
  CLI::App* cmd = app.add_subcommand(
      "selfcheck",
      "Random and special operands through the verilated arithmetic units, every bit compared "
      "with the host CPU (both subnormal modes); exit code 1 on a mismatch.");
  cmd->footer(kExitCodesHelp);
  AddInteger(cmd, "--vectors", &args->vectors, 1, uint64_t{1} << 32,
             "random vectors per unit and mode");
  AddInteger(cmd, "--seed", &args->seed, 0, UINT64_MAX, "seed of the random vectors");
  cmd->add_flag("--json", args->json, "one JSON object on stdout");
  return [args] { return RunSelfcheck(*args); };
}

}  // namespace mxu::host
