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

// Packs a SystemVerilog packed struct into a Verilator port: fields as {value, bits}, in the
// struct's declaration order (the first field is the most significant).
template <typename Port>
void SetStruct(Port& port, const std::vector<std::pair<uint64_t, int>>& fields) {
  std::vector<uint8_t> bits;  // least significant first
  for (auto field = fields.rbegin(); field != fields.rend(); ++field) {
    for (int b = 0; b < field->second; ++b) bits.push_back((field->first >> b) & 1);
  }
  SetLanes(port, bits, 1);
}

template <typename Lane, typename Port>
std::vector<Lane> GetLanes(const Port& port, int count, int lane_bits) {
  std::vector<uint32_t> words;
  if constexpr (std::is_integral_v<Port>) {
    words = {static_cast<uint32_t>(port), static_cast<uint32_t>(uint64_t{port} >> 32)};
  } else {
    words.assign(std::begin(port.m_storage), std::end(port.m_storage));
  }
  words.push_back(0);
  std::vector<Lane> lanes(count);
  const uint64_t mask = (uint64_t{1} << lane_bits) - 1;
  for (int i = 0; i < count; ++i) {
    const size_t bit = static_cast<size_t>(i) * lane_bits;
    const uint64_t pair = words[bit / 32] | uint64_t{words[bit / 32 + 1]} << 32;
    lanes[i] = static_cast<Lane>((pair >> (bit % 32)) & mask);
  }
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
  DatapathHarness(int rows, int cols)
      : rows_(rows),
        cols_(cols),
        ub_lanes_(rows > cols ? rows : cols),
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
  void QueueWload(uint32_t k_rows) { wloads_.push_back(k_rows); }
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
      m.wf_push_i = !m.wf_full_o;
      SetLanes(m.wf_data_i, weights_.front(), 16);
    }
    if (!wloads_.empty()) {
      m.wl_valid_i = 1;
      m.wl_k_rows_i = wloads_.front();
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
    m.eval();
    if (m.wf_push_i) weights_.pop_front();
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
      m.ub_wr_en_i = 1;
      m.ub_wr_addr_i = addr;
      SetLanes(m.ub_wr_data_i, lanes, 16);
      m.eval();
      const bool granted = m.ub_wr_gnt_o;
      Edge();
      if (granted) return;
    }
  }

  std::vector<uint16_t> ReadUbRow(uint32_t addr) {
    Model& m = *model_;
    for (uint64_t waited = 0;; ++waited) {
      Guard(waited, "unified-buffer read");
      ClearInputs();
      m.ub_rd_en_i = 1;
      m.ub_rd_addr_i = addr;
      m.eval();
      const bool granted = m.ub_rd_gnt_o;
      Edge();
      if (granted) break;
    }
    ClearInputs();
    m.eval();
    return GetLanes<uint16_t>(m.ub_rd_data_o, ub_lanes_, 16);
  }

  void WriteAccRow(uint32_t addr, const std::vector<uint32_t>& lanes) {
    Model& m = *model_;
    for (uint64_t waited = 0;; ++waited) {
      Guard(waited, "accumulator write");
      ClearInputs();
      m.acc_wr_en_i = 1;
      m.acc_wr_addr_i = addr;
      SetLanes(m.acc_wr_data_i, lanes, 32);
      m.eval();
      const bool granted = m.acc_wr_gnt_o;
      Edge();
      if (granted) return;
    }
  }

  std::vector<uint32_t> ReadAccRow(uint32_t addr) {
    Model& m = *model_;
    for (uint64_t waited = 0;; ++waited) {
      Guard(waited, "accumulator read");
      ClearInputs();
      m.acc_rd_en_i = 1;
      m.acc_rd_addr_i = addr;
      m.eval();
      const bool granted = m.acc_rd_gnt_o;
      Edge();
      if (granted) break;
    }
    ClearInputs();
    m.eval();
    return GetLanes<uint32_t>(m.acc_rd_data_o, cols_, 32);
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
    m.wf_push_i = 0;
    m.wl_valid_i = 0;
    m.mm_valid_i = 0;
    m.ac_valid_i = 0;
    m.ub_wr_en_i = 0;
    m.ub_rd_en_i = 0;
    m.acc_wr_en_i = 0;
    m.acc_rd_en_i = 0;
  }

  void Edge() {
    Model& m = *model_;
    m.clk_i = 1;
    m.eval();
    m.clk_i = 0;
    m.eval();
    ++cycle_;
  }

  int rows_, cols_, ub_lanes_;
  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<Model> model_;
  uint64_t cycle_ = 0;
  std::deque<std::vector<uint16_t>> weights_;
  std::deque<uint32_t> wloads_;
  std::deque<MatmulCmd> matmuls_;
  std::deque<ActivateCmd> activates_;
  std::vector<uint64_t> mm_accepts_, mm_dones_, ac_dones_;
};

}  // namespace mxu::test

#endif  // MXU_TESTS_RTL_DATAPATH_HARNESS_H_
