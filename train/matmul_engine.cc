#include "train/matmul_engine.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/bf16.h"
#include "common/csr_map.h"
#include "driver/gemm.h"
#include "driver/tracing.h"

namespace mxu::train {
namespace {

using Dims = MatmulShape;

// The product's shape; the same checks for both engines so a shape bug fails alike on both.
Dims CheckShapes(const MatmulOp& op) {
  if (!op.a || !op.b) throw std::invalid_argument("matmul needs both operands");
  const Dims d{op.trans_a ? op.a->cols : op.a->rows, op.trans_a ? op.a->rows : op.a->cols,
               op.trans_b ? op.b->rows : op.b->cols};
  const int k_b = op.trans_b ? op.b->cols : op.b->rows;
  if (d.k != k_b || d.m <= 0 || d.n <= 0 || d.k <= 0) {
    throw std::invalid_argument("matmul shapes do not agree: op(A) is " + std::to_string(d.m) +
                                "x" + std::to_string(d.k) + ", op(B) is " + std::to_string(k_b) +
                                "x" + std::to_string(d.n));
  }
  if (op.bias && static_cast<int>(op.bias->size()) != d.n) {
    throw std::invalid_argument("bias has " + std::to_string(op.bias->size()) +
                                " values, expected " + std::to_string(d.n));
  }
  if (op.c0 && (op.bias || op.c0->rows != d.m || op.c0->cols != d.n)) {
    throw std::invalid_argument("the accumulators' start C0 must be " + std::to_string(d.m) + "x" +
                                std::to_string(d.n) + ", without a bias");
  }
  return d;
}

// MODE is a template argument so that each loop is one branch-free body (it vectorizes).
template <Subnormals Mode>
void RoundRow(const float* in, uint16_t* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = FloatToBf16(in[i], Mode);
}

driver::Bf16Matrix ToBf16(const Fp32Matrix& m, Subnormals mode) {
  driver::Bf16Matrix out(m.rows, m.cols);
  (mode == Subnormals::kFlush
       ? RoundRow<Subnormals::kFlush>
       : RoundRow<Subnormals::kIeee>)(m.data.data(), out.data.data(), m.data.size());
  return out;
}

// The mixed-precision cast writes the operand in the layout the device streams best (layout
// assignment, as XLA does it): transposed as it is rounded, so the device loads it plainly. In
// blocks of rows: each is rounded whole, then written out column by column from the cache.
driver::Bf16Matrix ToBf16Transposed(const Fp32Matrix& m, Subnormals mode) {
  constexpr int kBlock = 16;
  driver::Bf16Matrix out(m.cols, m.rows);
  std::vector<uint16_t> rounded(size_t{kBlock} * m.cols);
  const auto round =
      mode == Subnormals::kFlush ? RoundRow<Subnormals::kFlush> : RoundRow<Subnormals::kIeee>;
  for (int r0 = 0; r0 < m.rows; r0 += kBlock) {
    const int rows = std::min(kBlock, m.rows - r0);
    round(&m.data[size_t(r0) * m.cols], rounded.data(), size_t(rows) * m.cols);
    for (int c = 0; c < m.cols; ++c) {
      uint16_t* column = &out.data[size_t(c) * m.rows + r0];
      for (int r = 0; r < rows; ++r) column[r] = rounded[size_t(r) * m.cols + c];
    }
  }
  return out;
}

Fp32Matrix Transposed(const Fp32Matrix& m) {
  Fp32Matrix t(m.cols, m.rows);
  for (int r = 0; r < m.rows; ++r) {
    for (int c = 0; c < m.cols; ++c) t.at(c, r) = m.at(r, c);
  }
  return t;
}

// Rows [begin, end) of op(A), stored plainly: what the device loads for those output rows (the
// cast writes a transposed A transposed anyway).
Fp32Matrix OpARows(const MatmulOp& op, int begin, int end) {
  const Fp32Matrix& a = *op.a;
  const int k = op.trans_a ? a.rows : a.cols;
  Fp32Matrix rows(end - begin, k);
  for (int i = begin; i < end; ++i) {
    for (int p = 0; p < k; ++p) rows.at(i - begin, p) = op.trans_a ? a.at(p, i) : a.at(i, p);
  }
  return rows;
}

void AppendRows(Fp32Matrix& all, const Fp32Matrix& part) {
  if (all.rows == 0) all.cols = part.cols;
  all.rows += part.rows;
  all.data.insert(all.data.end(), part.data.begin(), part.data.end());
}

}  // namespace

std::vector<Fp32Matrix> MatmulEngine::RunProgram(const std::vector<MatmulOp>& ops) {
  std::vector<Fp32Matrix> results;
  results.reserve(ops.size());
  for (const MatmulOp& op : ops) {
    MatmulOp resolved = op;
    if (op.chain_from >= 0) {
      if (op.chain_from >= static_cast<int>(results.size()) || op.a) {
        throw std::invalid_argument("a chained matmul takes A from an earlier op only");
      }
      resolved.a = &results[op.chain_from];
      resolved.chain_from = -1;
    }
    results.push_back(Run(resolved));
  }
  return results;
}

Fp32Matrix HostMatmulEngine::Run(const MatmulOp& op) {
  const Dims d = CheckShapes(op);
  // op(B) stored K x N, so the inner loop runs over contiguous memory and vectorizes; the sums
  // are formed in the same order (p ascending, one product at a time) as before.
  const Fp32Matrix b_kn = op.trans_b ? Transposed(*op.b) : Fp32Matrix();
  const Fp32Matrix& b = op.trans_b ? b_kn : *op.b;
  Fp32Matrix c(d.m, d.n);
  for (int i = 0; i < d.m; ++i) {
    float* row = &c.data[static_cast<size_t>(i) * d.n];
    if (op.bias) {
      for (int j = 0; j < d.n; ++j) row[j] = (*op.bias)[j];
    } else if (op.c0) {
      for (int j = 0; j < d.n; ++j) row[j] = op.c0->at(i, j);
    }
    for (int p = 0; p < d.k; ++p) {
      const float a = op.trans_a ? op.a->at(p, i) : op.a->at(i, p);
      const float* b_row = &b.data[static_cast<size_t>(p) * d.n];
      for (int j = 0; j < d.n; ++j) row[j] += a * b_row[j];
    }
    if (op.relu) {
      for (int j = 0; j < d.n; ++j) row[j] = row[j] > 0.0f ? row[j] : 0.0f;
    }
  }
  ++stats_.gemms;
  stats_.macs += uint64_t(d.m) * d.k * d.n;
  return c;
}

DeviceMatmulEngine::DeviceMatmulEngine(driver::Device& device, uint64_t watchdog_cycles)
    : device_(device),
      config_(driver::ReadDeviceConfig(device)),
      watchdog_cycles_(watchdog_cycles) {}

Fp32Matrix DeviceMatmulEngine::Run(const MatmulOp& op) { return std::move(RunProgram({op})[0]); }

std::vector<Fp32Matrix> DeviceMatmulEngine::RunProgram(const std::vector<MatmulOp>& ops) {
  // The shapes, checked as the host engine checks them, a chained A standing in by its shape.
  std::vector<Dims> dims;
  bool chained = false;
  for (size_t i = 0; i < ops.size(); ++i) {
    MatmulOp shaped = ops[i];
    Fp32Matrix stand_in;
    if (ops[i].chain_from >= 0) {
      if (ops[i].chain_from >= static_cast<int>(i) || ops[i].a || ops[i].trans_a) {
        throw std::invalid_argument("a chained matmul takes A from an earlier op only");
      }
      stand_in.rows = dims[ops[i].chain_from].m;
      stand_in.cols = dims[ops[i].chain_from].n;
      shaped.a = &stand_in;
      chained = true;
    }
    dims.push_back(CheckShapes(shaped));
  }
  for (const Dims& d : dims) {
    ++stats_.gemms;
    stats_.macs += uint64_t(d.m) * d.k * d.n;
  }
  return RunChunked(ops, dims, chained);
}

std::vector<Fp32Matrix> DeviceMatmulEngine::RunChunked(const std::vector<MatmulOp>& ops,
                                                       const std::vector<MatmulShape>& dims,
                                                       bool chained) {
  // Output rows are independent, so a program whose products share M runs in row chunks with
  // bit-identical results: chunks keep M within the instruction fields and the chained
  // results within half the unified buffer (the planners share the rest).
  int chunk = kMaxRows;
  bool fits = true;  // whether even one array's height of chained results fits
  if (chained) {
    int resident_tiles = 0;
    for (const MatmulOp& op : ops) {
      if (op.chain_from >= 0) {
        resident_tiles += (dims[op.chain_from].n + config_.cols - 1) / config_.cols;
      }
    }
    chunk = std::min<int>(chunk, static_cast<int>(config_.ub_depth / 2) / resident_tiles);
    fits = chunk >= static_cast<int>(config_.rows);
  }
  chunk = std::max<int>(static_cast<int>(config_.rows), chunk / config_.rows * config_.rows);
  int max_m = 0;
  bool same_m = true;
  for (const Dims& d : dims) {
    max_m = std::max(max_m, d.m);
    same_m = same_m && d.m == dims[0].m;
  }
  if (max_m <= chunk && fits) return RunWhole(ops);
  if (!same_m || !fits) {
    // Products of different heights (dW and dX), or chained results too wide for the unified
    // buffer (--hidden 4095,4095): each on its own, chained A's from the host copy of their
    // producer's result (the device would keep the same bf16 values on chip).
    std::vector<Fp32Matrix> results;
    for (const MatmulOp& op : ops) {
      MatmulOp alone = op;
      if (op.chain_from >= 0) {
        alone.a = &results[op.chain_from];
        alone.chain_from = -1;
      }
      results.push_back(std::move(RunChunked({alone}, {CheckShapes(alone)}, false)[0]));
    }
    return results;
  }
  std::vector<Fp32Matrix> results(ops.size());
  for (int begin = 0; begin < max_m; begin += chunk) {
    const int end = std::min(max_m, begin + chunk);
    std::vector<Fp32Matrix> a_rows(ops.size()), c0_rows(ops.size());
    std::vector<MatmulOp> part = ops;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].c0) {
        const Fp32Matrix& c0 = *ops[i].c0;
        c0_rows[i] = Fp32Matrix(end - begin, c0.cols);
        std::copy(c0.data.begin() + static_cast<std::ptrdiff_t>(begin) * c0.cols,
                  c0.data.begin() + static_cast<std::ptrdiff_t>(end) * c0.cols,
                  c0_rows[i].data.begin());
        part[i].c0 = &c0_rows[i];
      }
      if (ops[i].chain_from >= 0) continue;
      a_rows[i] = OpARows(ops[i], begin, end);
      part[i].a = &a_rows[i];
      part[i].trans_a = false;
    }
    std::vector<Fp32Matrix> outputs = RunWhole(part);
    for (size_t i = 0; i < ops.size(); ++i) AppendRows(results[i], outputs[i]);
  }
  return results;
}

std::vector<Fp32Matrix> DeviceMatmulEngine::RunWhole(const std::vector<MatmulOp>& ops) {
  // Shapes are checked as the host engine checks them, a chained A standing in by its shape.
  std::vector<Dims> dims;
  std::vector<driver::Bf16Matrix> operands;
  operands.reserve(2 * ops.size());
  std::vector<driver::GemmRequest> requests(ops.size());
  std::string label;
  for (size_t i = 0; i < ops.size(); ++i) {
    const MatmulOp& op = ops[i];
    MatmulOp shaped = op;
    Fp32Matrix stand_in;
    if (op.chain_from >= 0) {
      if (op.chain_from >= static_cast<int>(i) || op.a || op.trans_a) {
        throw std::invalid_argument("a chained matmul takes A from an earlier op only");
      }
      stand_in.rows = dims[op.chain_from].m;
      stand_in.cols = dims[op.chain_from].n;
      shaped.a = &stand_in;
    }
    dims.push_back(CheckShapes(shaped));
    driver::GemmRequest& request = requests[i];
    if (op.chain_from < 0) {
      operands.push_back(op.trans_a ? ToBf16Transposed(*op.a, config_.subnormals)
                                    : ToBf16(*op.a, config_.subnormals));
      request.a = &operands.back();
    }
    operands.push_back(op.trans_b ? ToBf16Transposed(*op.b, config_.subnormals)
                                  : ToBf16(*op.b, config_.subnormals));
    request.b = &operands.back();
    request.bias = op.bias;
    request.c0 = op.c0;
    request.relu = op.relu;
    request.output = driver::OutputType::kFp32;
    if (!op.label.empty()) {
      label += (label.empty() ? "" : ", ") + op.label + " " + std::to_string(dims[i].m) + "x" +
               std::to_string(dims[i].k) + "x" + std::to_string(dims[i].n);
    }
  }
  driver::GemmProgram program(device_, config_);
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].chain_from >= 0) {
      program.AddChained(static_cast<size_t>(ops[i].chain_from), requests[i]);
    } else {
      program.Add(requests[i]);
    }
  }
  driver::Tracing* tracing = device_.tracing();
  if (tracing && !label.empty()) tracing->SetProgramLabel(label);
  std::vector<driver::GemmResult> results = program.Run(watchdog_cycles_);
  const driver::RunStats& run = results[0].stats;  // the program's
  stats_.device_cycles += run.counter(csr::Counter::kCycles);
  stats_.array_busy_cycles += run.counter(csr::Counter::kArrayBusy);
  stats_.dma_read_bytes += run.counter(csr::Counter::kDmaReadBytes);
  stats_.dma_write_bytes += run.counter(csr::Counter::kDmaWriteBytes);
  stats_.device_wall_seconds += run.wall_seconds;
  std::vector<Fp32Matrix> outputs;
  for (driver::GemmResult& r : results) outputs.push_back(std::move(r.c));
  return outputs;
}

}  // namespace mxu::train
