// The GEMM planner on synthetic device configurations, no simulator: each program is executed
// symbolically, instruction by instruction in program order (the device's ordering guarantee),
// tracking which element of op(A), op(B) or C every buffer lane holds. Checked: every MATMUL
// pairs the K tile of A with the same K tile of B, every output accumulates its K tiles in the
// contract's order (0, 1, ...) starting from +0 or its C0 / bias, every output is stored exactly
// once and only when complete, every buffer range is inside its buffer, and no more than three
// weight tiles wait unclaimed.
#include "driver/gemm_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace mxu::driver {
namespace {

using isa::Instruction;

// Operands far apart, so that an address names its operand.
constexpr uint64_t kA = 1ull << 36, kB = 2ull << 36, kBias = 3ull << 36, kC0 = 4ull << 36,
                   kC = 5ull << 36;

// A batch's GEMM j has its operands kJob * j bytes above each operand's base.
constexpr uint64_t kJob = 1ull << 30;

struct Elem {  // what one buffer lane holds
  enum Kind { kNone, kZero, kA, kOut, kAcc } kind = kNone;
  int m = -1, n = -1, k = -1;  // kA: op(A)[m][k]; kAcc/kOut: C[m][n], K rows summed so far = k
  bool init = false;           // kAcc: started from C0 / bias
  int job = 0;                 // the batch's GEMM it belongs to
};

DeviceConfig Config(int rows, int cols, int ub_depth, int acc_depth) {
  DeviceConfig c;
  c.rows = rows;
  c.cols = cols;
  c.ub_depth = ub_depth;
  c.acc_depth = acc_depth;
  c.weight_fifo_depth = 2 * rows;
  c.ub_lanes = std::max(rows, cols);
  c.bus_bytes = 32;
  c.max_in_flight = 8;
  return c;
}

class Checker {
 public:
  Checker(const DeviceConfig& c, const GemmSpec& s) : c_(c), specs_{s} {}
  // A batch (PlanGemmBatch): GEMM j's operands at kJob * j above each base.
  Checker(const DeviceConfig& c, const std::vector<GemmSpec>& specs) : c_(c), specs_(specs) {}
  // A batch whose results lie back to back from kC: GEMM j's at c_offsets[j] bytes.
  Checker(const DeviceConfig& c, const std::vector<GemmSpec>& specs,
          const std::vector<uint64_t>& c_offsets)
      : c_(c), specs_(specs), c_offsets_(c_offsets) {}

  std::string Run(const GemmPlan& plan, const GemmPlacement& place = {}) {
    return Run(plan.program, {plan}, place);
  }
  std::string Run(const GemmBatchPlan& batch) { return Run(batch.program, batch.gemms, {}); }

  // Returns "" when the program is right, else the first problem found. A resident A
  // (placement) is in the unified buffer before the program starts; a resident result must be
  // there after.
  std::string Run(const std::vector<Instruction>& program, const std::vector<GemmPlan>& plans,
                  const GemmPlacement& place) {
    const GemmSpec& s_ = specs_[0];
    const int lanes = static_cast<int>(c_.ub_lanes);
    ub_.assign(c_.ub_depth, std::vector<Elem>(lanes));
    acc_.assign(c_.acc_depth, std::vector<Elem>(c_.cols));
    const int r = static_cast<int>(c_.rows), cl = static_cast<int>(c_.cols);
    for (int t = 0; place.a_ub_row >= 0 && t * r < s_.k; ++t) {
      for (int m = 0; m < s_.m; ++m) {
        for (int j = 0; j < lanes; ++j) {
          Elem x{Elem::kA, m, -1, t * r + j};
          if (j >= r || t * r + j >= s_.k) x = Elem{Elem::kZero};
          ub_[place.a_ub_row + t * s_.m + m][j] = x;
        }
      }
    }
    stored_.clear();
    out_of_.clear();
    for (size_t j = 0; j < specs_.size(); ++j) {
      const GemmSpec& s = specs_[j];
      stored_.emplace_back(size_t(s.m) * s.n, 0);
      out_of_.emplace_back(OutputElements(c_, s), std::pair<int, int>{-1, -1});
      for (const OutputBlock& b : plans.at(j).outputs) {
        for (int i = 0; i < b.rows; ++i) {
          for (int jj = 0; jj < b.cols; ++jj)
            out_of_[j].at(b.offset + uint64_t(i) * b.stride + jj) = {b.m0 + i, b.n0 + jj};
        }
      }
    }
    for (size_t pc = 0; pc < program.size() && error_.empty(); ++pc) {
      pc_ = pc;
      Execute(program[pc], pc + 1 == program.size());
    }
    for (size_t j = 0; j < specs_.size(); ++j) {
      for (size_t i = 0; i < stored_[j].size() && error_.empty(); ++i) {
        if (stored_[j][i] != (place.store ? 1 : 0)) {
          Fail("GEMM " + std::to_string(j) + " output " + std::to_string(i) + " stored " +
               std::to_string(stored_[j][i]) + " times");
        }
      }
    }
    for (int t = 0; place.out_ub_row >= 0 && t * cl < s_.n && error_.empty(); ++t) {
      for (int m = 0; m < s_.m; ++m) {
        for (int j = 0; j < cl && t * cl + j < s_.n; ++j) {
          const Elem& x = ub_[place.out_ub_row + t * s_.m + m][j];
          if (x.kind != Elem::kOut || x.m != m || x.n != t * cl + j || x.k != s_.k) {
            Fail("resident result C[" + std::to_string(m) + "][" + std::to_string(t * cl + j) +
                 "] missing");
            break;
          }
        }
      }
    }
    return error_;
  }

 private:
  void Fail(const std::string& what) {
    if (error_.empty()) error_ = "instruction " + std::to_string(pc_) + ": " + what;
  }

  // op(A)[m][k] at an element offset of A's stored layout (packed: K tiles of M x the tile's
  // width, the last one narrower; kZero beyond K).
  Elem AAt(int job, uint64_t e) const {
    const GemmSpec& s_ = specs_[job];
    Elem x;
    x.kind = Elem::kA;
    x.job = job;
    const int r = static_cast<int>(c_.rows);
    if (s_.trans_a) {
      x.k = int(e / s_.m), x.m = int(e % s_.m);
    } else if (s_.packed) {
      const uint64_t tile = e / (uint64_t(s_.m) * r), in = e % (uint64_t(s_.m) * r);
      const uint64_t width = std::min<uint64_t>(r, s_.k - tile * r);
      x.m = int(in / width), x.k = int(tile * r + in % width);
    } else {
      x.m = int(e / s_.k), x.k = int(e % s_.k);
    }
    if (x.k >= s_.k) x.kind = Elem::kZero;
    return x;
  }
  // op(B)[k][n], as an Elem with m = k.
  Elem BAt(int job, uint64_t e) const {
    const GemmSpec& s_ = specs_[job];
    Elem x;
    x.kind = Elem::kA;
    x.job = job;
    const int cl = static_cast<int>(c_.cols);
    if (s_.trans_b) {
      x.n = int(e / s_.k), x.k = int(e % s_.k);
    } else if (s_.packed) {
      const uint64_t tile = e / (uint64_t(s_.k) * cl), in = e % (uint64_t(s_.k) * cl);
      const uint64_t width = std::min<uint64_t>(cl, s_.n - tile * cl);
      x.k = int(in / width), x.n = int(tile * cl + in % width);
    } else {
      x.k = int(e / s_.n), x.n = int(e % s_.n);
    }
    if (x.n >= s_.n) x.kind = Elem::kZero;
    return x;
  }

  bool InRange(uint64_t lo, uint64_t rows, uint64_t depth, const char* what) {
    if (lo + rows > depth) Fail(std::string(what) + " range beyond the buffer");
    return lo + rows <= depth;
  }

  void Execute(const Instruction& in, bool last) {
    const auto op = static_cast<isa::Opcode>(in.opcode());
    if (last != (op == isa::Opcode::kHalt)) return Fail("HALT must end the program");
    if (op == isa::Opcode::kLoad) return Load(in);
    if (op == isa::Opcode::kStore) return Store(in);
    if (op == isa::Opcode::kMatmul) return Matmul(in);
    if (op == isa::Opcode::kActivate) return Activate(in);
    if (op != isa::Opcode::kHalt) Fail("unexpected opcode");
  }

  void Load(const Instruction& in) {
    const auto target = static_cast<isa::Buffer>(in.Get(isa::kTransferBuffer));
    const bool trans = in.Get(isa::kTransferFlag);
    const uint64_t rows = in.Get(isa::kTransferRows), lanes = in.Get(isa::kTransferLanes);
    const uint64_t buf = in.Get(isa::kTransferBufferAddr), host = in.Get(isa::kTransferHostAddr);
    const uint64_t stride = in.Get(isa::kTransferStride);
    const auto element = [&](uint64_t i, uint64_t j) {
      return trans ? j * stride + i : i * stride + j;
    };
    if (target == isa::Buffer::kUb) {
      if (host < kA || host >= kB) return Fail("UB load not from A");
      if (!InRange(buf, rows, c_.ub_depth, "UB load")) return;
      for (uint64_t i = 0; i < rows; ++i) {
        for (uint64_t j = 0; j < ub_[0].size(); ++j) {
          ub_[buf + i][j] =
              j < lanes ? AAt(int((host - kA) / kJob), (host - kA) % kJob / 2 + element(i, j))
                        : Elem{Elem::kZero};
        }
      }
    } else if (target == isa::Buffer::kWeights) {
      if (host < kB || host >= kBias) return Fail("weight load not from B");
      if (rows > c_.rows) return Fail("weight tile too tall");
      std::vector<Elem> tile(size_t(c_.rows) * c_.cols, Elem{Elem::kZero});
      for (uint64_t r = 0; r < rows; ++r) {
        for (uint64_t j = 0; j < lanes; ++j)
          tile[r * c_.cols + j] =
              BAt(int((host - kB) / kJob), (host - kB) % kJob / 2 + element(r, j));
      }
      weights_.push_back(tile);
      if (weights_.size() - (has_current_ ? 1 : 0) > 3) Fail("a fourth weight tile waits");
    } else {
      if (!InRange(buf, rows, c_.acc_depth, "ACC load")) return;
      for (uint64_t i = 0; i < rows; ++i) {
        for (uint64_t j = 0; j < c_.cols; ++j) {
          Elem x{Elem::kAcc};
          x.k = 0;
          x.init = true;
          if (j >= lanes)
            x.kind = Elem::kZero;
          else if (host >= kC0 && host < kC) {
            x.job = int((host - kC0) / kJob);
            const GemmSpec& s_ = specs_[x.job];
            const uint64_t e = (host - kC0) % kJob / 4 + i * stride + j;
            if (s_.packed) {  // N tiles of M x the tile's width
              const uint64_t cl = c_.cols, tile = e / (uint64_t(s_.m) * cl),
                             in = e % (uint64_t(s_.m) * cl),
                             width = std::min<uint64_t>(cl, s_.n - tile * cl);
              x.m = int(in / width), x.n = int(tile * cl + in % width);
              if (x.n >= s_.n) x.kind = Elem::kZero;
            } else {
              x.m = int(e / s_.n), x.n = int(e % s_.n);
            }
          } else if (host >= kBias && host < kC0) {
            if (stride != 0) Fail("bias load with a stride");
            x.job = int((host - kBias) / kJob);
            x.n = int((host - kBias) % kJob / 4 + j);  // m: whichever MATMUL comes
          } else {
            Fail("ACC load from neither C0 nor the bias");
          }
          acc_[buf + i][j] = x;
        }
      }
    }
  }

  void Matmul(const Instruction& in) {
    const uint64_t rows = in.Get(isa::kMatmulRows), kr = in.Get(isa::kMatmulKRows);
    const uint64_t ub = in.Get(isa::kMatmulUbAddr), acc = in.Get(isa::kMatmulAccAddr);
    const bool accumulate = in.Get(isa::kMatmulAccumulate);
    if (in.Get(isa::kMatmulNewWeights)) {
      if (weights_.empty() || (has_current_ && weights_.size() == 1)) return Fail("no weight tile");
      if (has_current_) weights_.pop_front();
      has_current_ = true;
    }
    if (!has_current_) return Fail("MATMUL without weights");
    if (!InRange(ub, rows, c_.ub_depth, "MATMUL UB") ||
        !InRange(acc, rows, c_.acc_depth, "MATMUL ACC"))
      return;
    const std::vector<Elem>& w = weights_.front();
    const int k0 = w[0].k;
    for (uint64_t r = 0; r < c_.rows; ++r) {
      for (uint64_t j = 0; j < c_.cols; ++j) {
        const Elem& x = w[r * c_.cols + j];
        if (r < kr && x.kind == Elem::kA && x.k != k0 + int(r))
          return Fail("weight rows out of K order");
      }
    }
    if (w[0].kind != Elem::kA) return Fail("weight tile without data");
    const int job = w[0].job;
    const GemmSpec& s_ = specs_[job];
    if (kr != uint64_t(std::min<int>(c_.rows, s_.k - k0)))
      return Fail("k_rows does not match the tile");
    for (uint64_t i = 0; i < rows; ++i) {
      const std::vector<Elem>& a = ub_[ub + i];
      for (uint64_t j = 0; j < kr; ++j) {
        if (a[j].kind != Elem::kA || a[j].m != a[0].m || a[j].k != k0 + int(j) || a[j].job != job) {
          return Fail("UB row " + std::to_string(ub + i) + " is not A's K tile " +
                      std::to_string(k0));
        }
      }
      for (uint64_t c = 0; c < c_.cols; ++c) {
        Elem& out = acc_[acc + i][c];
        const Elem& b = w[c];  // column c of the tile's first row names n
        if (b.kind != Elem::kA) {
          out = Elem{Elem::kZero};
          continue;
        }
        if (!accumulate) {
          if (k0 != 0) return Fail("overwrite with K tile " + std::to_string(k0));
          out = Elem{Elem::kAcc, a[0].m, b.n, 0, false, job};
        } else if (out.kind != Elem::kAcc || out.n != b.n || (out.m >= 0 && out.m != a[0].m) ||
                   out.k != k0 || out.job != job) {
          return Fail("accumulation out of order at ACC row " + std::to_string(acc + i));
        }
        out.m = a[0].m;
        out.k = k0 + int(kr);
      }
    }
  }

  bool Complete(const Elem& x) const {
    const GemmSpec& s = specs_[x.job];
    return x.kind == Elem::kAcc && x.k == s.k && x.init == (s.c0 || s.bias);
  }

  void Activate(const Instruction& in) {
    const uint64_t rows = in.Get(isa::kActivateRows), acc = in.Get(isa::kActivateAccAddr);
    const uint64_t ub = in.Get(isa::kActivateUbAddr);
    if (!InRange(ub, rows, c_.ub_depth, "ACTIVATE UB") ||
        !InRange(acc, rows, c_.acc_depth, "ACTIVATE ACC"))
      return;
    for (uint64_t i = 0; i < rows; ++i) {
      for (uint64_t c = 0; c < ub_[0].size(); ++c) {
        Elem x = c < c_.cols ? acc_[acc + i][c] : Elem{Elem::kZero};
        if (x.kind == Elem::kAcc) {
          if (!Complete(x)) return Fail("ACTIVATE of an incomplete result");
          x.kind = Elem::kOut;
        }
        ub_[ub + i][c] = x;
      }
    }
  }

  void Store(const Instruction& in) {
    const auto source = static_cast<isa::Buffer>(in.Get(isa::kTransferBuffer));
    const uint64_t rows = in.Get(isa::kTransferRows), lanes = in.Get(isa::kTransferLanes);
    const uint64_t buf = in.Get(isa::kTransferBufferAddr), host = in.Get(isa::kTransferHostAddr);
    const uint64_t stride = in.Get(isa::kTransferStride);
    const bool bf16 = source == isa::Buffer::kUb;
    if (host < kC) return Fail("store outside C");
    int job = int((host - kC) / kJob);
    uint64_t base = kC + kJob * uint64_t(job);
    for (size_t j = 0; j < c_offsets_.size(); ++j) {
      if (kC + c_offsets_[j] <= host) job = int(j), base = kC + c_offsets_[j];
    }
    const GemmSpec& s_ = specs_.at(job);
    if (bf16 != (s_.output == OutputType::kBf16)) return Fail("store of the wrong type");
    if (!InRange(buf, rows, bf16 ? c_.ub_depth : c_.acc_depth, "STORE")) return;
    for (uint64_t i = 0; i < rows; ++i) {
      for (uint64_t j = 0; j < lanes; ++j) {
        const Elem& x = bf16 ? ub_[buf + i][j] : acc_[buf + i][j];
        // A merged STORE runs on into the next GEMMs' results.
        uint64_t e = (host - base) / (bf16 ? 2 : 4) + i * stride + j;
        int owner = job;
        while (!c_offsets_.empty() && e >= out_of_[owner].size() &&
               size_t(owner + 1) < specs_.size()) {
          e -= out_of_[owner].size();
          ++owner;
        }
        if (e >= out_of_[owner].size()) return Fail("store beyond C");
        const auto [m, n] = out_of_[owner][e];
        if (m < 0) return Fail("store into the output buffer outside every block");
        if (bf16 ? x.kind != Elem::kOut || x.k != specs_[owner].k : !Complete(x))
          return Fail("store of an incomplete result");
        if (x.m != m || x.n != n || x.job != owner)
          return Fail("C[" + std::to_string(m) + "][" + std::to_string(n) +
                      "] gets another output");
        ++stored_[owner][size_t(m) * specs_[owner].n + n];
      }
    }
  }

  const DeviceConfig& c_;
  std::vector<GemmSpec> specs_;
  std::vector<uint64_t> c_offsets_;  // results back to back (a batch's), else empty
  std::vector<std::vector<Elem>> ub_, acc_;
  std::deque<std::vector<Elem>> weights_;  // front: the tile in use once has_current_
  bool has_current_ = false;
  std::vector<std::vector<int>> stored_;                  // per GEMM
  std::vector<std::vector<std::pair<int, int>>> out_of_;  // per GEMM
  size_t pc_ = 0;
  std::string error_;
};

GemmAddresses Addresses() {
  GemmAddresses a;
  a.a = kA, a.b = kB, a.bias = kBias, a.c0 = kC0, a.c = kC;
  return a;
}

std::string Describe(const DeviceConfig& c, const GemmSpec& s, const GemmBlocking& b) {
  return std::to_string(c.rows) + "x" + std::to_string(c.cols) + " ub " +
         std::to_string(c.ub_depth) + " acc " + std::to_string(c.acc_depth) + ": " +
         std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n) +
         (s.trans_a ? " ta" : "") + (s.trans_b ? " tb" : "") + (s.bias ? " bias" : "") +
         (s.c0 ? " c0" : "") + (s.output == OutputType::kBf16 ? " bf16" : "") +
         (s.packed ? " packed" : "") + "; M block " + std::to_string(b.m_block) + ", N group " +
         std::to_string(b.n_group) + (b.a_resident ? ", A resident" : "");
}

GemmSpec RandomSpec(std::mt19937& rng, int max_dim, int options) {
  GemmSpec s;
  std::uniform_int_distribution<int> dim(1, max_dim);
  s.m = dim(rng), s.k = dim(rng), s.n = dim(rng);
  s.trans_a = options & 1;
  s.trans_b = options & 2;
  s.bias = (options >> 2) % 3 == 1;
  s.c0 = (options >> 2) % 3 == 2;
  s.output = options & 16 ? OutputType::kBf16 : OutputType::kFp32;
  s.packed = options & 32;
  return s;
}

const std::vector<DeviceConfig>& Configs() {
  static const std::vector<DeviceConfig> configs = {
      Config(16, 16, 8192, 1024), Config(16, 16, 512, 128), Config(4, 4, 64, 32),
      Config(8, 4, 96, 48),       Config(3, 5, 40, 20),     Config(32, 32, 4096, 512),
      Config(2, 7, 30, 16),
  };
  return configs;
}

TEST(GemmPlan, ChosenPlansAreRightOnEveryConfiguration) {
  std::mt19937 rng(7);
  int plans = 0;
  for (const DeviceConfig& c : Configs()) {
    for (int i = 0; i < 120; ++i) {
      const GemmSpec s = RandomSpec(rng, i < 100 ? 70 : 300, i % 64);
      GemmPlan plan;
      try {
        plan = PlanGemm(c, s, Addresses());
      } catch (const std::invalid_argument&) {
        continue;  // the buffers cannot hold this shape's blocks (small synthetic configs)
      }
      ++plans;
      ASSERT_EQ(Checker(c, s).Run(plan), "") << Describe(c, s, plan.blocking);
    }
  }
  EXPECT_GT(plans, 700);
}

TEST(GemmPlan, EveryBlockingThatFitsIsRight) {
  std::mt19937 rng(11);
  int plans = 0;
  for (const DeviceConfig& c :
       {Config(4, 4, 64, 32), Config(3, 5, 40, 20), Config(16, 16, 512, 128)}) {
    for (int i = 0; i < 12; ++i) {
      const GemmSpec s = RandomSpec(rng, 40, (i * 5) % 64);
      for (int mb = 1; mb <= s.m; mb += 1 + mb / 3) {
        for (int ng = 1; ng <= 6; ++ng) {
          for (bool resident : {false, true}) {
            GemmPlan plan;
            try {
              plan = PlanGemmWith(c, s, Addresses(), {mb, ng, resident, 0});
            } catch (const std::invalid_argument&) {
              continue;
            }
            ++plans;
            ASSERT_EQ(Checker(c, s).Run(plan), "") << Describe(c, s, plan.blocking);
          }
        }
      }
    }
  }
  EXPECT_GT(plans, 300);
}

TEST(GemmPlan, ResidentOperandsAndResultsAreRight) {
  std::mt19937 rng(5);
  int plans = 0;
  for (const DeviceConfig& c :
       {Config(16, 16, 8192, 1024), Config(4, 4, 256, 32), Config(3, 5, 400, 20)}) {
    for (int i = 0; i < 40; ++i) {
      GemmSpec s = RandomSpec(rng, 60, (i * 7) % 64);
      s.trans_a = false;
      const int a_rows = (s.k + int(c.rows) - 1) / int(c.rows) * s.m;
      const int out_rows = (s.n + int(c.cols) - 1) / int(c.cols) * s.m;
      GemmPlacement place;
      place.ub_limit = int(c.ub_depth) - a_rows - out_rows;
      if (place.ub_limit < 1) continue;
      place.a_ub_row = i % 2 ? place.ub_limit : -1;
      place.out_ub_row = i % 3 ? place.ub_limit + a_rows : -1;
      place.store = place.out_ub_row < 0 || i % 4 != 1;
      GemmPlan plan;
      try {
        plan = PlanGemm(c, s, Addresses(), place);
      } catch (const std::invalid_argument&) {
        continue;
      }
      ++plans;
      ASSERT_EQ(Checker(c, s).Run(plan, place), "")
          << Describe(c, s, plan.blocking) << " A row " << place.a_ub_row << " out row "
          << place.out_ub_row << (place.store ? " stored" : "");
    }
  }
  EXPECT_GT(plans, 60);
}

GemmAddresses BatchAddresses(int job) {
  GemmAddresses a = Addresses();
  for (uint64_t* x : {&a.a, &a.b, &a.bias, &a.c0, &a.c}) *x += kJob * uint64_t(job);
  return a;
}

TEST(GemmPlan, BatchesAreRight) {
  std::mt19937 rng(13);
  int batches = 0;
  for (const DeviceConfig& c : Configs()) {
    for (int i = 0; i < 24; ++i) {
      // Same-shape batches (a bmm's), and mixed ones with every option.
      const int count = 1 + static_cast<int>(rng() % 12);
      std::vector<GemmSpec> specs;
      std::vector<GemmAddresses> addrs;
      const GemmSpec shared = RandomSpec(rng, 24, static_cast<int>(rng() % 64));
      for (int j = 0; j < count; ++j) {
        specs.push_back(i % 2 ? shared : RandomSpec(rng, i < 20 ? 30 : 90, (i * 7 + j) % 64));
        addrs.push_back(BatchAddresses(j));
      }
      GemmBatchPlan batch;
      try {
        batch = PlanGemmBatch(c, specs, addrs);
      } catch (const std::invalid_argument&) {
        continue;  // an element too large for the small synthetic buffers
      }
      ++batches;
      ASSERT_EQ(Checker(c, specs).Run(batch), "")
          << count << " GEMMs, first " << Describe(c, specs[0], batch.gemms[0].blocking);
      ASSERT_EQ(batch.owners.size(), batch.program.size());
    }
  }
  EXPECT_GT(batches, 120);
}

TEST(GemmPlan, ABatchOfOneIsTheGemmsOwnPlan) {
  std::mt19937 rng(17);
  for (int i = 0; i < 40; ++i) {
    const DeviceConfig c = Configs()[i % Configs().size()];
    const GemmSpec s = RandomSpec(rng, 60, i % 64);
    GemmPlan one;
    try {
      one = PlanGemm(c, s, Addresses());
    } catch (const std::invalid_argument&) {
      continue;
    }
    const GemmBatchPlan batch = PlanGemmBatch(c, {s}, {Addresses()});
    EXPECT_EQ(batch.program, one.program) << Describe(c, s, one.blocking);
  }
}

// A bmm's batch with its results back to back (as GemmBatch lays them out): runs of results leave
// in merged STOREs, each result still stored once, complete.
TEST(GemmPlan, ABatchStoresAdjacentResultsTogether) {
  std::mt19937 rng(19);
  for (const DeviceConfig& c : Configs()) {
    for (int i = 0; i < 8; ++i) {
      GemmSpec s = RandomSpec(rng, 20, static_cast<int>(rng() % 64));
      s.output = OutputType::kFp32;  // merged stores are the accumulators' (fp32, int32)
      const int count = 2 + static_cast<int>(rng() % 40);
      std::vector<GemmSpec> specs(count, s);
      std::vector<GemmAddresses> addrs;
      std::vector<uint64_t> offsets;
      for (int j = 0; j < count; ++j) {
        addrs.push_back(BatchAddresses(j));
        offsets.push_back(4 * OutputElements(c, s) * uint64_t(j));
        addrs.back().c = kC + offsets.back();
      }
      GemmBatchPlan batch;
      try {
        batch = PlanGemmBatch(c, specs, addrs);
      } catch (const std::invalid_argument&) {
        continue;
      }
      ASSERT_EQ(Checker(c, specs, offsets).Run(batch), "")
          << count << " x " << Describe(c, s, batch.gemms[0].blocking);
      int stores = 0;
      for (const Instruction& in : batch.program) {
        stores += static_cast<isa::Opcode>(in.opcode()) == isa::Opcode::kStore;
      }
      const int tiles = int(batch.gemms[0].outputs.size()) * count;
      // On the 16 x 16 configurations (the others' accumulators hold too few results to gather).
      if (c.rows == 16 && batch.gemms[0].outputs.size() == 1 && count > 8) {
        EXPECT_LT(stores, tiles) << count << " x " << Describe(c, s, batch.gemms[0].blocking);
      }
    }
  }
}

TEST(GemmPlan, ABatchOverlapsItsGemms) {
  // 32 attention-sized products (10 x 16 x 10 on 16 x 16): one stream whose first MATMUL of
  // GEMM i + 1 is preceded by its loads, issued before GEMM i's MATMUL.
  const DeviceConfig c = Config(16, 16, 512, 128);
  GemmSpec s;
  s.m = 10, s.k = 16, s.n = 10;
  s.packed = true;
  std::vector<GemmSpec> specs(32, s);
  std::vector<GemmAddresses> addrs;
  for (int j = 0; j < 32; ++j) addrs.push_back(BatchAddresses(j));
  const GemmBatchPlan batch = PlanGemmBatch(c, specs, addrs);
  ASSERT_EQ(Checker(c, specs).Run(batch), "");
  std::vector<size_t> first_load(32, SIZE_MAX), matmul(32, SIZE_MAX);
  for (size_t pc = 0; pc < batch.program.size(); ++pc) {
    const int job = batch.owners[pc];
    if (job < 0) continue;
    const auto op = static_cast<isa::Opcode>(batch.program[pc].opcode());
    if (op == isa::Opcode::kLoad) first_load[job] = std::min(first_load[job], pc);
    if (op == isa::Opcode::kMatmul) matmul[job] = pc;
  }
  for (int j = 0; j + 1 < 32; ++j) EXPECT_LT(first_load[j + 1], matmul[j]) << "GEMM " << j;
}

TEST(GemmPlan, ABatchNamesTheElementItRefuses) {
  GemmSpec good, bad;
  good.m = good.k = good.n = 8;
  bad.m = 8, bad.k = 0, bad.n = 8;
  try {
    PlanGemmBatch(Config(4, 4, 64, 32), {good, good, bad},
                  {BatchAddresses(0), BatchAddresses(1), BatchAddresses(2)});
    FAIL() << "a batch with an empty GEMM was planned";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("batch element 2: ", 0), 0u) << e.what();
  }
  EXPECT_THROW(PlanGemmBatch(Config(4, 4, 64, 32), {}, {}), std::invalid_argument);
}

TEST(GemmPlan, TheCheckerCatchesAWrongPlan) {
  const DeviceConfig c = Config(4, 4, 64, 32);
  GemmSpec s;
  s.m = 8, s.k = 8, s.n = 8;
  GemmPlan plan = PlanGemm(c, s, Addresses());
  ASSERT_EQ(Checker(c, s).Run(plan), "");
  // Swap the first two MATMULs' accumulate flags: K order broken.
  for (Instruction& in : plan.program) {
    if (static_cast<isa::Opcode>(in.opcode()) == isa::Opcode::kMatmul &&
        in.Get(isa::kMatmulAccumulate)) {
      in.Set(isa::kMatmulAccumulate, 0);
      break;
    }
  }
  EXPECT_NE(Checker(c, s).Run(plan), "");
}

TEST(GemmPlan, BlockingsThatDoNotFitAreRejected) {
  GemmSpec s;
  s.m = 64, s.k = 64, s.n = 64;
  EXPECT_THROW(PlanGemmWith(Config(4, 4, 64, 32), s, Addresses(), {64, 1, false, 0}),
               std::invalid_argument);
  EXPECT_THROW(PlanGemmWith(Config(4, 4, 64, 32), s, Addresses(), {8, 8, false, 0}),
               std::invalid_argument);
}

TEST(GemmPlan, CostModelKeepsLargeSquaresNearTheirIdeal) {
  GemmSpec s;
  s.m = s.k = s.n = 1024;
  s.packed = true;
  const GemmPlan plan = PlanGemm(Config(16, 16, 8192, 1024), s, Addresses());
  const uint64_t ideal = 1024ull * 1024 * 1024 / 256;
  EXPECT_LT(plan.blocking.estimated_cycles, ideal * 105 / 100);
  EXPECT_EQ(plan.matmul_rows * 16 * 16, 1024ull * 1024 * 1024);
}

// The planner remembers each thread's blockings by everything the search reads (issue 68): a
// shape planned after many others, its neighbours among them (one field apart), gets the
// blocking a fresh thread's search gives it. A field missing from the cache's key would hand it
// a neighbour's blocking.
TEST(GemmPlan, RememberedBlockingsAreTheSearchedOnes) {
  std::mt19937 rng(13);
  std::vector<std::pair<DeviceConfig, GemmSpec>> cases;
  for (int i = 0; i < 60; ++i) {
    const DeviceConfig c = Configs()[i % Configs().size()];
    GemmSpec s = RandomSpec(rng, i % 2 ? 70 : 300, i % 64);
    cases.push_back({c, s});
    GemmSpec t = s;  // neighbours, one field apart
    t.trans_a = !s.trans_a, cases.push_back({c, t});
    t = s, t.packed = !s.packed, cases.push_back({c, t});
    t = s, t.output = s.output == OutputType::kFp32 ? OutputType::kBf16 : OutputType::kFp32;
    cases.push_back({c, t});
    t = s, t.m = s.m + 1, cases.push_back({c, t});
    t = s, t.bias = !s.bias && !s.c0, cases.push_back({c, t});
    DeviceConfig d = c;
    d.ub_depth = c.ub_depth / 4, cases.push_back({d, s});
    d = c, d.bus_bytes = c.bus_bytes * 2, cases.push_back({d, s});
  }
  // -1: the planner refuses the shape on that device.
  const auto blocking = [](const DeviceConfig& c, const GemmSpec& s) -> std::array<int64_t, 4> {
    try {
      const GemmBlocking b = PlanGemm(c, s, Addresses()).blocking;
      return {b.m_block, b.n_group, b.a_resident, int64_t(b.estimated_cycles)};
    } catch (const std::invalid_argument&) {
      return {-1, -1, -1, -1};
    } catch (const std::logic_error&) {  // the planner's own checks: a blocking that misfits
      return {-2, -2, -2, -2};
    }
  };
  std::vector<std::array<int64_t, 4>> fresh(cases.size()), remembered(cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {  // each in a thread of its own: an empty cache
    std::thread([&, i] { fresh[i] = blocking(cases[i].first, cases[i].second); }).join();
  }
  std::thread([&] {
    for (int pass = 0; pass < 2; ++pass) {  // the second pass from the cache
      for (size_t i = 0; i < cases.size(); ++i) {
        remembered[i] = blocking(cases[i].first, cases[i].second);
      }
    }
  }).join();
  int distinct = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(remembered[i], fresh[i]) << "case " << i;
    if (i % 8 != 0 && fresh[i] != fresh[i - i % 8]) ++distinct;
  }
  EXPECT_GT(distinct, 100);  // the neighbours do differ in their blockings
}

}  // namespace
}  // namespace mxu::driver
