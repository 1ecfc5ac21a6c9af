#include "sim/host_memory.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>

namespace mxu::sim {
namespace {

// SystemC prints its copyright banner on stdout when a process first elaborates, in the middle
// of a command's or a test's output. Every elaboration here has a HostMemory, so this file is
// linked into every binary that elaborates, and its static initialization, before libsystemc's
// main() calls sc_main, sets SystemC's own switch (a value already in the environment is kept).
const bool kSystemcQuiet = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;

std::string Hex(uint64_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

bool Enabled(const uint8_t* be, size_t be_len, size_t i) {
  return be == nullptr || be[i % be_len] != TLM_BYTE_DISABLED;
}

}  // namespace

HostMemory::HostMemory(sc_core::sc_module_name name, const Config& config)
    // Validate before sc_module registers itself: a module must not fail half-built, and a
    // failed construction after elaboration then throws invalid_argument, not a SystemC error.
    : sc_core::sc_module(Validated(name, config)), socket("socket"), config_(config) {
  socket.register_b_transport(this, &HostMemory::BTransport);
  socket.register_transport_dbg(this, &HostMemory::TransportDbg);
}

void HostMemory::Validate(const Config& config) {
  if (config.timing.bytes_per_cycle < 1) {
    throw std::invalid_argument(
        "HostMemory: bytes_per_cycle must be >= 1 (kPortWidth is the platform's to resolve)");
  }
  if (config.timing.max_in_flight < 1) {
    throw std::invalid_argument("HostMemory: max_in_flight must be >= 1");
  }
  if (config.clock_period <= sc_core::SC_ZERO_TIME) {
    throw std::invalid_argument("HostMemory: clock_period must be > 0");
  }
}

const sc_core::sc_module_name& HostMemory::Validated(const sc_core::sc_module_name& name,
                                                     const Config& config) {
  Validate(config);
  return name;
}

void HostMemory::Reconfigure(const Config& config) {
  Validate(config);
  const bool new_clock = config.clock_period != config_.clock_period;
  config_ = config;
  if (new_clock) Reset();
}

bool HostMemory::InRange(uint64_t addr, uint64_t len) const {
  // Written so that addr + len cannot overflow.
  return len <= config_.size_bytes && addr <= config_.size_bytes - len;
}

void HostMemory::Write(uint64_t addr, const void* data, size_t len) {
  if (!InRange(addr, len)) {
    throw std::out_of_range(std::string(name()) + ": Write of " + std::to_string(len) +
                            " bytes at " + Hex(addr) + " is outside the memory of " +
                            Hex(config_.size_bytes) + " bytes");
  }
  CopyIn(addr, static_cast<const uint8_t*>(data), len, nullptr, 0);
}

void HostMemory::Read(uint64_t addr, void* data, size_t len) const {
  if (!InRange(addr, len)) {
    throw std::out_of_range(std::string(name()) + ": Read of " + std::to_string(len) +
                            " bytes at " + Hex(addr) + " is outside the memory of " +
                            Hex(config_.size_bytes) + " bytes");
  }
  CopyOut(addr, static_cast<uint8_t*>(data), len, nullptr, 0);
}

void HostMemory::InjectError(uint64_t base, uint64_t length) {
  if (length == 0) return;
  // Saturate rather than wrap: a range running past 2^64 covers the rest of the address space.
  const uint64_t end = base + std::min(length, UINT64_MAX - base);
  error_ranges_.emplace_back(base, end);
}

void HostMemory::ClearInjectedErrors() { error_ranges_.clear(); }

void HostMemory::Reset() {
  channel_free_cycle_ = 0;
  in_flight_.clear();
}

bool HostMemory::HitsInjectedError(uint64_t addr, uint64_t len) const {
  if (len == 0) return false;
  const uint64_t end = addr + len;  // in range, so no overflow
  for (const auto& [begin, range_end] : error_ranges_) {
    if (addr < range_end && begin < end) return true;
  }
  return false;
}

void HostMemory::CopyIn(uint64_t addr, const uint8_t* data, size_t len, const uint8_t* be,
                        size_t be_len) {
  size_t done = 0;
  while (done < len) {
    const uint64_t page_number = (addr + done) / kPageBytes;
    const size_t offset = (addr + done) % kPageBytes;
    const size_t chunk = std::min<size_t>(len - done, kPageBytes - offset);
    Page* page = nullptr;
    auto get_page = [&]() {
      // Allocate on first write only; make_unique value-initializes, so new pages read as zeros.
      if (page == nullptr) {
        auto& slot = pages_[page_number];
        if (!slot) slot = std::make_unique<Page>();
        page = slot.get();
      }
      return page;
    };
    if (be == nullptr) {
      std::memcpy(get_page()->data() + offset, data + done, chunk);
    } else {
      for (size_t i = 0; i < chunk; ++i) {
        if (Enabled(be, be_len, done + i)) (*get_page())[offset + i] = data[done + i];
      }
    }
    done += chunk;
  }
}

void HostMemory::CopyOut(uint64_t addr, uint8_t* data, size_t len, const uint8_t* be,
                         size_t be_len) const {
  size_t done = 0;
  while (done < len) {
    const uint64_t page_number = (addr + done) / kPageBytes;
    const size_t offset = (addr + done) % kPageBytes;
    const size_t chunk = std::min<size_t>(len - done, kPageBytes - offset);
    const auto it = pages_.find(page_number);
    const uint8_t* source = it == pages_.end() ? nullptr : it->second->data() + offset;
    for (size_t i = 0; i < chunk; ++i) {
      if (Enabled(be, be_len, done + i)) data[done + i] = source ? source[i] : 0;
    }
    done += chunk;
  }
}

tlm::tlm_response_status HostMemory::Check(const tlm::tlm_generic_payload& trans) const {
  const uint64_t addr = trans.get_address();
  const uint64_t len = trans.get_data_length();
  if (!InRange(addr, len)) return tlm::TLM_ADDRESS_ERROR_RESPONSE;
  // No streaming (a FIFO-like target) here: a streaming width below the length is unsupported.
  if (trans.get_streaming_width() < len) return tlm::TLM_BURST_ERROR_RESPONSE;
  // TLM-2.0 requires a non-zero byte-enable length with a byte-enable pointer.
  if (trans.get_byte_enable_ptr() != nullptr && trans.get_byte_enable_length() == 0) {
    return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
  }
  if (len > 0 && trans.get_data_ptr() == nullptr) return tlm::TLM_GENERIC_ERROR_RESPONSE;
  if (HitsInjectedError(addr, len)) return tlm::TLM_GENERIC_ERROR_RESPONSE;
  return tlm::TLM_OK_RESPONSE;
}

sc_core::sc_time HostMemory::Schedule(const sc_core::sc_time& issue, uint64_t len) {
  const uint64_t period = config_.clock_period.value();
  // A request arriving between clock edges is taken at the next edge.
  uint64_t issue_cycle = issue.value() / period + (issue.value() % period != 0 ? 1 : 0);
  auto retire = [&]() {
    while (!in_flight_.empty() && in_flight_.front() <= issue_cycle) in_flight_.pop_front();
  };
  retire();
  if (in_flight_.size() >= config_.timing.max_in_flight) {
    issue_cycle = in_flight_.front();  // wait for the earliest outstanding request to complete
    retire();
  }
  const uint64_t start = std::max(issue_cycle + config_.timing.latency_cycles, channel_free_cycle_);
  const uint64_t completion =
      start + (len + config_.timing.bytes_per_cycle - 1) / config_.timing.bytes_per_cycle;
  channel_free_cycle_ = completion;
  in_flight_.push_back(completion);
  // Exact integer time (sc_time's double arithmetic would round past 2^53 ticks).
  return sc_core::sc_time::from_value(completion * period);
}

void HostMemory::BTransport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const tlm::tlm_command command = trans.get_command();
  switch (command) {
    case tlm::TLM_READ_COMMAND:
    case tlm::TLM_WRITE_COMMAND:
      break;
    case tlm::TLM_IGNORE_COMMAND:
      trans.set_response_status(tlm::TLM_OK_RESPONSE);
      return;
    default:
      ++stats_.errors;
      trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
      return;
  }
  const tlm::tlm_response_status status = Check(trans);
  if (status != tlm::TLM_OK_RESPONSE) {
    ++stats_.errors;
    trans.set_response_status(status);
    return;
  }

  const uint64_t addr = trans.get_address();
  const size_t len = trans.get_data_length();
  if (command == tlm::TLM_WRITE_COMMAND) {
    CopyIn(addr, trans.get_data_ptr(), len, trans.get_byte_enable_ptr(),
           trans.get_byte_enable_length());
    stats_.bytes_written += len;
  } else {
    CopyOut(addr, trans.get_data_ptr(), len, trans.get_byte_enable_ptr(),
            trans.get_byte_enable_length());
    stats_.bytes_read += len;
  }
  ++stats_.transactions;

  const sc_core::sc_time now = sc_core::sc_time_stamp();
  delay = Schedule(now + delay, len) - now;
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned int HostMemory::TransportDbg(tlm::tlm_generic_payload& trans) {
  // A backdoor: no timing, no stats, no injected errors; byte enables and streaming width are
  // ignored as TLM-2.0 allows for debug transport. Transfers the part inside the memory.
  const uint64_t addr = trans.get_address();
  const uint64_t len = trans.get_data_length();
  const uint64_t count = addr >= config_.size_bytes ? 0 : std::min(len, config_.size_bytes - addr);
  switch (trans.get_command()) {
    case tlm::TLM_READ_COMMAND:
      CopyOut(addr, trans.get_data_ptr(), count, nullptr, 0);
      break;
    case tlm::TLM_WRITE_COMMAND:
      CopyIn(addr, trans.get_data_ptr(), count, nullptr, 0);
      break;
    default:
      trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
      return 0;
  }
  trans.set_response_status(count == len ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
  return static_cast<unsigned int>(count);
}

}  // namespace mxu::sim
