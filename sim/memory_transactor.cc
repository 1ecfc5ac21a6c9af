#include "sim/memory_transactor.h"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

namespace mxu::sim {
namespace {

using sc_core::sc_time;

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

constexpr unsigned kAxiOkay = 0;
constexpr unsigned kAxiSlvErr = 2;
constexpr unsigned kAxiDecErr = 3;

unsigned AxiResp(tlm::tlm_response_status status) {
  switch (status) {
    case tlm::TLM_OK_RESPONSE:
      return kAxiOkay;
    case tlm::TLM_ADDRESS_ERROR_RESPONSE:
      return kAxiDecErr;
    default:
      return kAxiSlvErr;  // injected errors (generic) and anything else
  }
}

}  // namespace

MemoryTransactor::MemoryTransactor(Port& memory, const sc_time& period, unsigned bus_bytes)
    : memory_(memory), period_ticks_(period.value()), bus_bytes_(bus_bytes) {
  if (bus_bytes < 4 || bus_bytes > kMaxBusBytes || (bus_bytes & (bus_bytes - 1)) != 0) {
    throw std::invalid_argument("MemoryTransactor: the bus must be a power of two from 4 to " +
                                std::to_string(kMaxBusBytes) + " bytes");
  }
}

const MemPortInputs& MemoryTransactor::Present(uint64_t cycle) {
  // R: the front burst's next beat, from its due cycle on, until taken.
  in_.r_valid = !reads_.empty() && reads_.front().due_cycle <= cycle;
  if (in_.r_valid) {
    const ReadBurst& burst = reads_.front();
    const uint8_t* bytes = burst.data.data() + size_t{burst.next_beat} * bus_bytes_;
    for (unsigned i = 0; i < bus_bytes_ / 4; ++i) {
      in_.r_data[i] = uint32_t{bytes[4 * i]} | uint32_t{bytes[4 * i + 1]} << 8 |
                      uint32_t{bytes[4 * i + 2]} << 16 | uint32_t{bytes[4 * i + 3]} << 24;
    }
    in_.r_id = burst.id;
    in_.r_last = burst.next_beat + 1 == burst.beats;
    in_.r_resp = burst.resp;
  } else {
    in_.r_id = 0;
    in_.r_last = false;
    in_.r_resp = 0;
  }
  // B: in order, from its due cycle on, until taken.
  in_.b_valid = !write_responses_.empty() && write_responses_.front().due_cycle <= cycle;
  in_.b_resp = in_.b_valid ? write_responses_.front().resp : 0;
  return in_;
}

void MemoryTransactor::Edge(const MemPortOutputs& out, uint64_t cycle, uint64_t now_cycle) {
  if (in_.r_valid) {
    if (out.r_ready) {
      ReadBurst& burst = reads_.front();
      ++stats_.read_beats;
      if (++burst.next_beat == burst.beats) reads_.pop_front();
    } else {
      ++stats_.r_stall_cycles;
    }
  }
  if (in_.b_valid) {
    if (out.b_ready) {
      write_responses_.pop_front();
    } else {
      ++stats_.b_stall_cycles;
    }
  }
  if (out.ar_valid && in_.ar_ready) AcceptRead(out, cycle, now_cycle);
  const bool aw = out.aw_valid && in_.aw_ready;
  const bool w = out.w_valid && in_.w_ready;
  if (aw) write_addresses_.push_back({out.aw_addr, out.aw_len + 1});
  if (w) AcceptWriteData(out);
  if (aw || w) PerformWrites(cycle, now_cycle);
  // Nothing is taken back by this edge: the inputs it saw are gone.
  in_.r_valid = false;
  in_.b_valid = false;
}

unsigned MemoryTransactor::Transport(tlm::tlm_command command, uint64_t addr, uint8_t* data,
                                     size_t len, uint8_t* enables, uint64_t cycle,
                                     uint64_t now_cycle, uint64_t* completion_cycle) {
  tlm::tlm_generic_payload& p = payload_;
  p.set_command(command);
  p.set_address(addr);
  p.set_data_ptr(data);
  p.set_data_length(static_cast<unsigned>(len));
  p.set_streaming_width(static_cast<unsigned>(len));
  p.set_byte_enable_ptr(enables);
  p.set_byte_enable_length(enables ? static_cast<unsigned>(len) : 0);
  p.set_dmi_allowed(false);
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_time delay = sc_time::from_value((cycle - now_cycle) * period_ticks_);
  memory_->b_transport(p, delay);
  // The completion is a clock edge; round up in case sc_time_stamp() is not on one.
  *completion_cycle = now_cycle + (delay.value() + period_ticks_ - 1) / period_ticks_;
  return AxiResp(p.get_response_status());
}

void MemoryTransactor::CheckBurst(const char* channel, uint64_t addr, unsigned beats,
                                  uint64_t cycle) {
  if (addr % bus_bytes_ != 0) {
    ProtocolError(cycle, std::string(channel) + " address " + Hex(addr) + " is not bus aligned");
  }
  if (addr % 4096 + uint64_t{beats} * bus_bytes_ > 4096) {
    ProtocolError(cycle, std::string(channel) + " burst at " + Hex(addr) + " of " +
                             std::to_string(beats) + " beats crosses a 4 KiB boundary");
  }
}

void MemoryTransactor::AcceptRead(const MemPortOutputs& out, uint64_t cycle, uint64_t now_cycle) {
  ReadBurst burst;
  burst.beats = out.ar_len + 1;
  burst.id = out.ar_id;
  CheckBurst("AR", out.ar_addr, burst.beats, cycle);
  burst.data.assign(size_t{burst.beats} * bus_bytes_, 0);
  uint64_t completion = 0;
  burst.resp = Transport(tlm::TLM_READ_COMMAND, out.ar_addr, burst.data.data(), burst.data.size(),
                         nullptr, cycle, now_cycle, &completion);
  if (burst.resp != kAxiOkay) {
    std::fill(burst.data.begin(), burst.data.end(), 0);
    ++stats_.error_responses;
  }
  // Beats no earlier than the completion, and never in the handshake's own cycle.
  burst.due_cycle = std::max(completion, cycle + 1);
  reads_.push_back(std::move(burst));
  ++stats_.read_bursts;
  stats_.max_reads_in_flight = std::max<uint64_t>(stats_.max_reads_in_flight, reads_.size());
}

void MemoryTransactor::AcceptWriteData(const MemPortOutputs& out) {
  if (write_data_.empty() || write_data_.back().complete) write_data_.emplace_back();
  WriteData& burst = write_data_.back();
  for (unsigned i = 0; i < bus_bytes_ / 4; ++i) {
    for (unsigned byte = 0; byte < 4; ++byte) {
      burst.data.push_back(static_cast<uint8_t>(out.w_data[i] >> (8 * byte)));
      const unsigned lane = 4 * i + byte;
      const bool enabled = (out.w_strb[lane / 32] >> (lane % 32)) & 1;
      burst.enables.push_back(enabled ? TLM_BYTE_ENABLED : TLM_BYTE_DISABLED);
    }
  }
  ++burst.beats;
  burst.complete = out.w_last;
  ++stats_.write_beats;
}

void MemoryTransactor::PerformWrites(uint64_t cycle, uint64_t now_cycle) {
  // A burst is written once its address and its last data beat have both arrived (either first).
  while (!write_addresses_.empty() && !write_data_.empty() && write_data_.front().complete) {
    const WriteAddress address = write_addresses_.front();
    WriteData burst = std::move(write_data_.front());
    write_addresses_.pop_front();
    write_data_.pop_front();
    CheckBurst("AW", address.addr, address.beats, cycle);
    if (burst.beats != address.beats) {
      ProtocolError(cycle, "W burst of " + std::to_string(burst.beats) + " beats for AW at " +
                               Hex(address.addr) + " of " + std::to_string(address.beats) +
                               " beats");
    }
    const bool all_enabled = std::all_of(burst.enables.begin(), burst.enables.end(),
                                         [](uint8_t e) { return e == TLM_BYTE_ENABLED; });
    uint64_t completion = 0;
    WriteResponse response;
    response.resp =
        Transport(tlm::TLM_WRITE_COMMAND, address.addr, burst.data.data(), burst.data.size(),
                  all_enabled ? nullptr : burst.enables.data(), cycle, now_cycle, &completion);
    if (response.resp != kAxiOkay) ++stats_.error_responses;
    // No earlier than the completion, never in the last beat's own cycle, and in order.
    response.due_cycle = std::max(completion, cycle + 1);
    if (!write_responses_.empty()) {
      response.due_cycle = std::max(response.due_cycle, write_responses_.back().due_cycle);
    }
    write_responses_.push_back(response);
    ++stats_.write_bursts;
  }
  const uint64_t in_flight =
      write_responses_.size() + std::max(write_addresses_.size(), write_data_.size());
  stats_.max_writes_in_flight = std::max(stats_.max_writes_in_flight, in_flight);
}

void MemoryTransactor::ProtocolError(uint64_t cycle, const std::string& message) {
  ++protocol_error_count_;
  if (protocol_errors_.size() < kMaxProtocolErrors) {
    protocol_errors_.push_back("cycle " + std::to_string(cycle) + ": " + message);
  }
}

bool MemoryTransactor::idle() const {
  return reads_.empty() && write_addresses_.empty() && write_data_.empty() &&
         write_responses_.empty();
}

void MemoryTransactor::Clear() {
  in_ = MemPortInputs();
  reads_.clear();
  write_addresses_.clear();
  write_data_.clear();
  write_responses_.clear();
  stats_ = Stats();
  protocol_errors_.clear();
  protocol_error_count_ = 0;
}

}  // namespace mxu::sim
