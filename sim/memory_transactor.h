// The memory transactor between the device's pin-level memory port (docs/isa.md) and the
// TLM-2.0 host memory, and the pins it sees and drives each cycle.
#ifndef MXU_SIM_MEMORY_TRANSACTOR_H_
#define MXU_SIM_MEMORY_TRANSACTOR_H_

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

namespace mxu::sim {

// The memory port pins of one cycle, as the device drives them (settled, before the rising edge).
struct MemPortOutputs {
  bool ar_valid = false;
  uint64_t ar_addr = 0;
  unsigned ar_len = 0;  // beats - 1
  unsigned ar_id = 0;
  bool r_ready = false;
  bool aw_valid = false;
  uint64_t aw_addr = 0;
  unsigned aw_len = 0;
  bool w_valid = false;
  // Byte i of the beat is byte i % 4 of word i / 4, its strobe bit i % 32 of strobe word i / 32
  // (the widest port, MemoryTransactor::kMaxBusBytes = 1024 bytes: 256 data words, 32 strobe
  // words; a narrower one uses the first words).
  std::array<uint32_t, 256> w_data{};
  std::array<uint32_t, 32> w_strb{};
  bool w_last = false;
  bool b_ready = false;
};

// The memory port pins the memory side drives in one cycle.
struct MemPortInputs {
  bool ar_ready = true;
  bool aw_ready = true;
  bool w_ready = true;
  bool r_valid = false;
  std::array<uint32_t, 256> r_data{};  // as w_data
  unsigned r_id = 0;
  bool r_last = false;
  unsigned r_resp = 0;  // 0 OKAY, 2 SLVERR, 3 DECERR
  bool b_valid = false;
  unsigned b_resp = 0;
};

// The memory transactor: the device's AXI4-like master port (docs/isa.md) at pin level on one
// side, TLM-2.0 b_transport calls into the host memory on the other. Kept apart from Platform so
// that it can be tested with scripted pins.
//
// Reads: AR is always accepted; the burst is read with one b_transport of (len + 1) x bus bytes
// annotated with the handshake's cycle, and its beats are presented in request order (all IDs in
// one queue), one per cycle, from the completion cycle the memory returns (and never in the
// handshake's own cycle), each held until mem_r_ready_o. Writes: AW and W are always accepted (W
// may come first); when a burst's address and last beat have both arrived, one b_transport writes
// it with the strobes as byte enables, and its B response is presented in order from the
// completion cycle (and never in that cycle), held until mem_b_ready_o. TLM errors answer SLVERR
// (generic, e.g. injected) or DECERR (address), read data zero.
class MemoryTransactor {
 public:
  static constexpr unsigned kMaxBusBytes = 1024;    // the widest port the pins above carry
  static constexpr size_t kMaxProtocolErrors = 64;  // messages kept (all are counted)

  // Traffic since construction or Clear().
  struct Stats {
    uint64_t read_bursts = 0;           // AR handshakes
    uint64_t read_beats = 0;            // R beats taken by the device
    uint64_t write_bursts = 0;          // bursts written (address and all data beats arrived)
    uint64_t write_beats = 0;           // W beats accepted
    uint64_t error_responses = 0;       // bursts answered SLVERR or DECERR (reads and writes)
    uint64_t r_stall_cycles = 0;        // cycles a presented R beat waited for mem_r_ready_o
    uint64_t b_stall_cycles = 0;        // cycles a presented B response waited for mem_b_ready_o
    uint64_t max_reads_in_flight = 0;   // AR accepted, last beat not yet taken
    uint64_t max_writes_in_flight = 0;  // AW or W seen, B not yet taken
  };

  // `memory`: an initiator socket bound to the host memory (used once elaboration has bound it).
  // `period`: the device clock.
  using Port = sc_core::sc_port_b<tlm::tlm_fw_transport_if<>>;
  // `bus_bytes`: the port's bytes per beat, a power of two from 4 to kMaxBusBytes.
  MemoryTransactor(Port& memory, const sc_core::sc_time& period, unsigned bus_bytes = 32);
  unsigned bus_bytes() const { return bus_bytes_; }

  // The pins to drive in `cycle` (call once per cycle, after Edge() of the cycle before);
  // Edge() assumes they were presented.
  const MemPortInputs& Present(uint64_t cycle);
  // The rising edge that ends `cycle`, with the device's outputs in it. Requests are annotated
  // with the delay of `cycle` after `now_cycle`, the cycle sc_time_stamp() stands for.
  void Edge(const MemPortOutputs& out, uint64_t cycle, uint64_t now_cycle);

  // Drops every request in flight, the stats and the protocol errors.
  void Clear();
  bool idle() const;  // nothing in flight either way
  size_t reads_in_flight() const { return reads_.size(); }
  const Stats& stats() const { return stats_; }
  // Protocol violations by the device (unaligned or 4 KiB-crossing bursts, W beats not matching
  // the AW length): the first kMaxProtocolErrors messages, and the count of all.
  const std::vector<std::string>& protocol_errors() const { return protocol_errors_; }
  uint64_t protocol_error_count() const { return protocol_error_count_; }

 private:
  struct ReadBurst {
    uint64_t due_cycle = 0;  // first beat no earlier than this
    unsigned beats = 0;
    unsigned next_beat = 0;
    unsigned id = 0;
    unsigned resp = 0;
    std::vector<uint8_t> data;
  };
  struct WriteAddress {
    uint64_t addr = 0;
    unsigned beats = 0;
  };
  struct WriteData {
    std::vector<uint8_t> data;
    std::vector<uint8_t> enables;  // TLM byte enables, one per byte
    unsigned beats = 0;
    bool complete = false;  // the beat with mem_w_last_o arrived
  };
  struct WriteResponse {
    uint64_t due_cycle = 0;
    unsigned resp = 0;
  };

  void AcceptRead(const MemPortOutputs& out, uint64_t cycle, uint64_t now_cycle);
  void AcceptWriteData(const MemPortOutputs& out);
  void PerformWrites(uint64_t cycle, uint64_t now_cycle);
  // One b_transport at `cycle`; returns the AXI response and sets the completion cycle.
  unsigned Transport(tlm::tlm_command command, uint64_t addr, uint8_t* data, size_t len,
                     uint8_t* enables, uint64_t cycle, uint64_t now_cycle,
                     uint64_t* completion_cycle);
  void CheckBurst(const char* channel, uint64_t addr, unsigned beats, uint64_t cycle);
  void ProtocolError(uint64_t cycle, const std::string& message);

  Port& memory_;
  uint64_t period_ticks_;
  unsigned bus_bytes_;
  tlm::tlm_generic_payload payload_;
  MemPortInputs in_;
  std::deque<ReadBurst> reads_;
  std::deque<WriteAddress> write_addresses_;
  std::deque<WriteData> write_data_;
  std::deque<WriteResponse> write_responses_;
  Stats stats_;
  std::vector<std::string> protocol_errors_;
  uint64_t protocol_error_count_ = 0;
};

static_assert(sizeof(MemPortOutputs::w_data) == MemoryTransactor::kMaxBusBytes &&
                  sizeof(MemPortInputs::r_data) == MemoryTransactor::kMaxBusBytes &&
                  sizeof(MemPortOutputs::w_strb) * 8 == MemoryTransactor::kMaxBusBytes,
              "the pins carry the widest port");

}  // namespace mxu::sim

#endif  // MXU_SIM_MEMORY_TRANSACTOR_H_
