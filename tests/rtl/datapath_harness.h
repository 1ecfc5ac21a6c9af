// Cycle-level test harness of a verilated mxu_datapath: queues of weight rows and of WLOAD,
// MATMUL and ACTIVATE commands are fed to the DUT as soon as it is ready, the way a controller
// would, while the clock runs; every accept and done is timestamped in cycles. Host-port helpers
// load and read the buffers. A watchdog bounds every wait.
#ifndef MXU_TESTS_RTL_DATAPATH_HARNESS_H_
#define MXU_TESTS_RTL_DATAPATH_HARNESS_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "verilated.h"

namespace mxu::test {

// Packs lanes of `lane_bits` bits into a Verilator port (an integer or a VlWide).
template <typename Port, typename Lane>
void SetLanes(Port& port, const std::vector<Lane>& lanes, int lane_bits) {
  std::vector<uint32_t> words((lanes.size() * lane_bits + 31) / 32 + 1, 0);
  for (size_t i = 0; i < lanes.size(); ++i) {
    const uint64_t value = static_cast<uint64_t>(lanes[i]);
    const size_t bit = i * lane_bits;
    words[bit / 32] |= static_cast<uint32_t>(value << (bit % 32));
    if (bit % 32 + lane_bits > 32)
      words[bit / 32 + 1] |= static_cast<uint32_t>(value >> (32 - bit % 32));
  }
  if constexpr (std::is_integral_v<Port>) {
    port = static_cast<Port>(words[0] | (words.size() > 1 ? uint64_t{words[1]} << 32 : 0));
  } else {
    for (size_t w = 0; w < sizeof(port.m_storage) / sizeof(port.m_storage[0]); ++w) {
      port.m_storage[w] = w < words.size() ? words[w] : 0;
    }
  }
}

// A SystemVerilog packed struct built field by field, in the struct's declaration order (the
// first field is the most significant), then written into a Verilator port.
class PackedStruct {
 public:
  PackedStruct& Field(uint64_t value, int bits) {
    std::vector<uint8_t> field;
    for (int b = 0; b < bits; ++b) field.push_back((value >> b) & 1);
    bits_.insert(bits_.begin(), field.begin(), field.end());
    return *this;
  }
  // A field of lanes, lane 0 least significant; `lanes` of them, zeros past the values given.
  template <typename Lane>
  PackedStruct& Lanes(const std::vector<Lane>& values, int lanes, int lane_bits) {
    std::vector<uint8_t> field;
    for (int i = 0; i < lanes; ++i) {
      const uint64_t value = i < static_cast<int>(values.size()) ? uint64_t{values[i]} : 0;
      for (int b = 0; b < lane_bits; ++b) field.push_back((value >> b) & 1);
    }
    bits_.insert(bits_.begin(), field.begin(), field.end());
    return *this;
  }
  template <typename Port>
  void Into(Port& port) const {
    SetLanes(port, bits_, 1);
  }

 private:
  std::vector<uint8_t> bits_;  // least significant first
};

// Packs a packed struct of scalar fields, {value, bits} each, in declaration order.
template <typename Port>
void SetStruct(Port& port, const std::vector<std::pair<uint64_t, int>>& fields) {
  PackedStruct packed;
  for (const auto& [value, bits] : fields) packed.Field(value, bits);
  packed.Into(port);
}

// Bits [lsb, lsb + bits) of a Verilator port, bits <= 32.
template <typename Port>
uint32_t GetBits(const Port& port, int lsb, int bits) {
  std::vector<uint32_t> words;
  if constexpr (std::is_integral_v<Port>) {
    words = {static_cast<uint32_t>(port), static_cast<uint32_t>(uint64_t{port} >> 32)};
  } else {
    words.assign(std::begin(port.m_storage), std::end(port.m_storage));
  }
  words.push_back(0);
  const uint64_t pair = words[lsb / 32] | uint64_t{words[lsb / 32 + 1]} << 32;
  return static_cast<uint32_t>((pair >> (lsb % 32)) & ((uint64_t{1} << bits) - 1));
}

// Lanes of a Verilator port from bit `lsb` on.
template <typename Lane, typename Port>
std::vector<Lane> GetLanesAt(const Port& port, int lsb, int count, int lane_bits) {
  std::vector<Lane> lanes(count);
  for (int i = 0; i < count; ++i)
    lanes[i] = static_cast<Lane>(GetBits(port, lsb + i * lane_bits, lane_bits));
  return lanes;
}

struct MatmulCmd {
  uint32_t ub_addr = 0;
  uint32_t acc_addr = 0;
  uint32_t rows = 1;
  uint32_t k_rows = 1;
  bool accumulate = false;
  bool new_weights = true;
};

struct ActivateCmd {
  uint32_t acc_addr = 0;
  uint32_t ub_addr = 0;
  uint32_t rows = 1;
  bool relu = false;
  bool bias = false;
  uint32_t bias_addr = 0;
};

template <typename Model>
class DatapathHarness {
 public:
  DatapathHarness(int rows, int cols, int ub_depth, int acc_depth)
      : rows_(rows),
        cols_(cols),
        ub_lanes_(rows > cols ? rows : cols),
        ub_addr_bits_(AddrBits(ub_depth)),
        acc_addr_bits_(AddrBits(acc_depth)),
        context_(std::make_unique<VerilatedContext>()),
        model_(std::make_unique<Model>(context_.get(), "dp")) {
    Reset();
  }
  ~DatapathHarness() { model_->final(); }

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  int ub_lanes() const { return ub_lanes_; }
  uint64_t cycle() const { return cycle_; }

  void Reset() {
    Model& m = *model_;
    ClearInputs();
    m.clk_i = 0;
    m.rst_ni = 0;
    m.eval();
    m.clk_i = 1;
    m.eval();
    m.clk_i = 0;
    m.rst_ni = 1;
    m.eval();
    weights_.clear();
    wloads_.clear();
    matmuls_.clear();
    activates_.clear();
    mm_accepts_.clear();
    mm_dones_.clear();
    ac_dones_.clear();
    cycle_ = 0;
  }

  // --- Queued work, fed as the DUT becomes ready.
  void QueueWeightRow(const std::vector<uint16_t>& lanes) { weights_.push_back(lanes); }
  // A WLOAD of a tile of k_rows rows and n_cols columns (0: every column).
  void QueueWload(uint32_t k_rows, uint32_t n_cols = 0) {
    wloads_.push_back({k_rows, n_cols == 0 ? static_cast<uint32_t>(cols_) : n_cols});
  }
  void QueueMatmul(const MatmulCmd& cmd) { matmuls_.push_back(cmd); }
  void QueueActivate(const ActivateCmd& cmd) { activates_.push_back(cmd); }

  // Accept and done cycles of every MATMUL / ACTIVATE since Reset() or ClearTimestamps().
  const std::vector<uint64_t>& mm_accepts() const { return mm_accepts_; }
  const std::vector<uint64_t>& mm_dones() const { return mm_dones_; }
  const std::vector<uint64_t>& ac_dones() const { return ac_dones_; }
  void ClearTimestamps() {
    mm_accepts_.clear();
    mm_dones_.clear();
    ac_dones_.clear();
  }

  // Runs until every queue is empty and every engine idle.
  void RunUntilIdle(uint64_t watchdog_cycles = 1'000'000) {
    const uint64_t limit = cycle_ + watchdog_cycles;
    while (Busy()) {
      if (cycle_ >= limit) throw std::runtime_error("datapath watchdog: no progress");
      Tick();
    }
  }

  // One clock cycle: drive the queue heads, sample handshakes and pulses, rising edge.
  void Tick() {
    Model& m = *model_;
    ClearInputs();
    if (!weights_.empty()) {
      write_.wf_valid = true;
      write_.wf_data = weights_.front();
    }
    if (!wloads_.empty()) {
      m.wl_valid_i = 1;
      m.wl_k_rows_i = wloads_.front().first;
      m.wl_n_cols_i = wloads_.front().second;
    }
    if (!matmuls_.empty()) {
      const MatmulCmd& c = matmuls_.front();
      m.mm_valid_i = 1;
      // mxu_pkg::matmul_cmd_t
      SetStruct(m.mm_cmd_i, {{c.ub_addr, 16},
                             {c.acc_addr, 16},
                             {c.rows, 16},
                             {c.k_rows, 16},
                             {c.accumulate, 1},
                             {c.new_weights, 1},
                             {0, 1}});  // int8
    }
    if (!activates_.empty()) {
      const ActivateCmd& c = activates_.front();
      m.ac_valid_i = 1;
      // mxu_pkg::activate_cmd_t
      SetStruct(m.ac_cmd_i, {{c.acc_addr, 16},
                             {c.ub_addr, 16},
                             {c.rows, 16},
                             {c.relu, 1},
                             {c.bias, 1},
                             {c.bias_addr, 16},
                             {0, 1},    // int8
                             {0, 16},   // quant_addr
                             {0, 8}});  // zero_point
    }
    DriveBuffers();
    m.eval();
    if (write_.wf_valid && !WeightFifoFull()) weights_.pop_front();
    if (m.wl_valid_i && m.wl_ready_o) wloads_.pop_front();
    if (m.mm_valid_i && m.mm_ready_o) {
      matmuls_.pop_front();
      mm_accepts_.push_back(cycle_);
    }
    if (m.ac_valid_i && m.ac_ready_o) activates_.pop_front();
    if (m.mm_done_o) mm_dones_.push_back(cycle_);
    if (m.ac_done_o) ac_dones_.push_back(cycle_);
    Edge();
  }

  // --- Host ports (run the clock until granted; nothing else must be queued meanwhile).
  void WriteUbRow(uint32_t addr, const std::vector<uint16_t>& lanes) {
    Model& m = *model_;
    for (uint64_t waited = 0;; ++waited) {
      Guard(waited, "unified-buffer write");
      ClearInputs();
      write_.ub_en = true;
      write_.ub_addr = addr;
      write_.ub_data = lanes;
      DriveBuffers();
      m.eval();
      const bool granted = GetBits(m.buf_wr_rsp_o, 2, 1);  // buf_wr_rsp_t.ub_gnt
      Edge();
      if (granted) return;
    }
  }

  std::vector<uint16_t> ReadUbRow(uint32_t addr) {
    Model& m = *model_;
    for (uint64_t waited = 0;; ++waited) {
      Guard(waited, "unified-buffer read");
      ClearInputs();
      read_.ub_en = true;
      read_.ub_addr = addr;
      DriveBuffers();
      m.eval();
      const bool granted = GetBits(m.buf_rd_rsp_o, ReadGrantBit() + 1, 1);  // .ub_gnt
      Edge();
      if (granted) break;
    }
    ClearInputs();
    DriveBuffers();
    m.eval();
    return GetLanesAt<uint16_t>(m.buf_rd_rsp_o, cols_ * 32, ub_lanes_, 16);  // .ub_data
  }

  void WriteAccRow(uint32_t addr, const std::vector<uint32_t>& lanes) {
    Model& m = *model_;
    for (uint64_t waited = 0;; ++waited) {
      Guard(waited, "accumulator write");
      ClearInputs();
      write_.acc_en = true;
      write_.acc_addr = addr;
      write_.acc_data = lanes;
      DriveBuffers();
      m.eval();
      const bool granted = GetBits(m.buf_wr_rsp_o, 1, 1);  // buf_wr_rsp_t.acc_gnt
      Edge();
      if (granted) return;
    }
  }

  std::vector<uint32_t> ReadAccRow(uint32_t addr) {
    Model& m = *model_;
    for (uint64_t waited = 0;; ++waited) {
      Guard(waited, "accumulator read");
      ClearInputs();
      read_.acc_en = true;
      read_.acc_addr = addr;
      DriveBuffers();
      m.eval();
      const bool granted = GetBits(m.buf_rd_rsp_o, ReadGrantBit(), 1);  // .acc_gnt
      Edge();
      if (granted) break;
    }
    ClearInputs();
    DriveBuffers();
    m.eval();
    return GetLanesAt<uint32_t>(m.buf_rd_rsp_o, 0, cols_, 32);  // .acc_data
  }

 private:
  bool Busy() const {
    const Model& m = *model_;
    return !weights_.empty() || !wloads_.empty() || !matmuls_.empty() || !activates_.empty() ||
           m.wl_busy_o || m.mm_busy_o || m.ac_busy_o;
  }

  static void Guard(uint64_t waited, const char* what) {
    if (waited > 100'000)
      throw std::runtime_error(std::string("watchdog: ") + what + " never granted");
  }

  void ClearInputs() {
    Model& m = *model_;
    m.wl_valid_i = 0;
    m.mm_valid_i = 0;
    m.ac_valid_i = 0;
    write_ = BufferWrite{};
    read_ = BufferRead{};
  }

  static int AddrBits(int depth) {
    int bits = 1;
    while ((1 << bits) < depth) ++bits;
    return bits;
  }

  // The buffers' DMA side as the harness drives it: mxu_pkg::buf_wr_req_t and buf_rd_req_t.
  struct BufferWrite {
    bool ub_en = false;
    uint32_t ub_addr = 0;
    std::vector<uint16_t> ub_data;
    bool acc_en = false;
    uint32_t acc_addr = 0;
    std::vector<uint32_t> acc_data;
    bool wf_valid = false;
    std::vector<uint16_t> wf_data;
  };
  struct BufferRead {
    bool ub_en = false;
    uint32_t ub_addr = 0;
    bool acc_en = false;
    uint32_t acc_addr = 0;
  };

  void DriveBuffers() {
    Model& m = *model_;
    PackedStruct()
        .Field(write_.ub_en, 1)
        .Field(write_.ub_addr, ub_addr_bits_)
        .Lanes(write_.ub_data, ub_lanes_, 16)
        .Field(write_.acc_en, 1)
        .Field(write_.acc_addr, acc_addr_bits_)
        .Lanes(write_.acc_data, cols_, 32)
        .Field(write_.wf_valid, 1)
        .Lanes(write_.wf_data, cols_, 16)
        .Into(m.buf_wr_req_i);
    PackedStruct()
        .Field(read_.ub_en, 1)
        .Field(read_.ub_addr, ub_addr_bits_)
        .Field(read_.acc_en, 1)
        .Field(read_.acc_addr, acc_addr_bits_)
        .Into(m.buf_rd_req_i);
  }

  bool WeightFifoFull() const { return GetBits(model_->buf_wr_rsp_o, 0, 1); }  // .wf_full
  // buf_rd_rsp_t: {ub_gnt, acc_gnt, ub_data, acc_data}: acc_gnt's bit.
  int ReadGrantBit() const { return cols_ * 32 + ub_lanes_ * 16; }

  void Edge() {
    Model& m = *model_;
    m.clk_i = 1;
    m.eval();
    m.clk_i = 0;
    m.eval();
    ++cycle_;
  }

  int rows_, cols_, ub_lanes_, ub_addr_bits_, acc_addr_bits_;
  BufferWrite write_;
  BufferRead read_;
  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<Model> model_;
  uint64_t cycle_ = 0;
  std::deque<std::vector<uint16_t>> weights_;
  std::deque<std::pair<uint32_t, uint32_t>> wloads_;  // rows, columns
  std::deque<MatmulCmd> matmuls_;
  std::deque<ActivateCmd> activates_;
  std::vector<uint64_t> mm_accepts_, mm_dones_, ac_dones_;
};

}  // namespace mxu::test

#endif  // MXU_TESTS_RTL_DATAPATH_HARNESS_H_
