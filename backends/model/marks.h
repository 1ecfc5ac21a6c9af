// Internal to the model backend: what the cycles ahead hold, marked as the events that cause
// it become known (a result row reaches the accumulators `latency` cycles after its row enters
// the array): the accumulator banks the result rows read and write, and the gated clocks
// (docs/architecture.md, "Clock gating") for the clock counters. Each is kept as spans of
// cycles, so a stretch of cycles done in closed form (jump.cc) marks and counts it at once.
#ifndef MXU_BACKENDS_MODEL_MARKS_H_
#define MXU_BACKENDS_MODEL_MARKS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace mxu::backends::model {

// Cycles from .. to, each with the same bank mask.
struct BankSpan {
  uint64_t from, to;
  uint32_t banks;
};

// Result rows reaching the accumulators: the banks an accumulating row reads (arrival) and the
// banks a row is written to (kAccAddCycles later). The read port (ACTIVATE, STORE) and the
// DMA's write port lose those banks in those cycles. A row a cycle enters the array, so each
// queue's spans come in cycle order and never overlap.
struct ResultSlots {
  std::deque<BankSpan> rd, wr;

  // Cycles from .. to (after every span so far); `now` drops the spans already past.
  static void Add(std::deque<BankSpan>& q, uint64_t now, uint64_t from, uint64_t to,
                  uint32_t banks) {
    while (!q.empty() && q.front().to < now) q.pop_front();
    if (!q.empty() && q.back().banks == banks && q.back().to + 1 == from) {
      q.back().to = to;
    } else {
      q.push_back({from, to, banks});
    }
  }
  static uint32_t At(const std::deque<BankSpan>& q, uint64_t now) {
    uint32_t banks = 0;
    for (const BankSpan& span : q) {
      if (span.from > now) break;
      if (span.to >= now) banks |= span.banks;
    }
    return banks;
  }
  uint32_t Reads(uint64_t now) const { return At(rd, now); }
  uint32_t Writes(uint64_t now) const { return At(wr, now); }
};

// The cycles a clock runs: sorted spans, apart (neither overlapping nor adjacent).
struct ClockSpans {
  std::vector<std::pair<uint64_t, uint64_t>> spans;

  // The clock runs in cycles from .. to.
  void Mark(uint64_t from, uint64_t to) {
    size_t i = 0;
    while (i < spans.size() && spans[i].second + 1 < from) ++i;  // wholly before, apart
    size_t j = i;
    while (j < spans.size() && spans[j].first <= to + 1) {  // overlapping or adjacent: merged
      from = std::min(from, spans[j].first);
      to = std::max(to, spans[j].second);
      ++j;
    }
    if (j == i + 1) {
      spans[i] = {from, to};
      return;
    }
    spans.erase(spans.begin() + static_cast<std::ptrdiff_t>(i),
                spans.begin() + static_cast<std::ptrdiff_t>(j));
    spans.insert(spans.begin() + static_cast<std::ptrdiff_t>(i), {from, to});
  }
  // Whether it runs in cycle c (cycles in order: the spans before c are dropped).
  bool Runs(uint64_t c) {
    size_t gone = 0;
    while (gone < spans.size() && spans[gone].second < c) ++gone;
    if (gone != 0) spans.erase(spans.begin(), spans.begin() + static_cast<std::ptrdiff_t>(gone));
    return !spans.empty() && spans.front().first <= c;
  }
  // The cycles from .. to it runs in.
  uint64_t Count(uint64_t from, uint64_t to) const {
    uint64_t cycles = 0;
    for (const auto& [lo, hi] : spans) {
      if (lo > to) break;
      if (hi >= from) cycles += std::min(hi, to) - std::max(lo, from) + 1;
    }
    return cycles;
  }
};

// The gated clocks: the columns', the accumulators' and the activation unit's, and the cycles
// each runs so far.
struct GatedClocks {
  // The columns run as columns 0 .. n-1 (in column 0's time), n the widest tile among the marks
  // covering the cycle. Every mark starts in the cycle it is made, so the cycles still to count
  // see the marks' staircase: ends rising, widths falling (each mark not covered by a later-ending
  // wider one), a few entries whatever the span.
  struct Span {
    uint64_t end;
    uint32_t n;
  };
  std::vector<Span> columns;  // ends increasing, n decreasing
  ClockSpans acc, activate;
  uint64_t column_clocks = 0, acc_cycles = 0, activate_cycles = 0;
  uint64_t dma_cycles = 0;  // each engine's, added up

  // The clock runs in cycles from .. to.
  static void Mark(ClockSpans& clock, uint64_t from, uint64_t to) { clock.Mark(from, to); }
  // Columns 0 .. n-1 run from the current cycle to `to` (in column 0's time).
  void MarkColumns(uint32_t n, uint64_t to) {
    // A row streaming: the same width as the last mark, ending later.
    if (!columns.empty() && columns.back().n == n && columns.back().end <= to) {
      columns.back().end = to;
      return;
    }
    size_t i = columns.size();
    while (i > 0 && columns[i - 1].end >= to) --i;        // marks ending at or after `to`
    if (i < columns.size() && columns[i].n >= n) return;  // covered
    size_t j = i;
    while (j > 0 && columns[j - 1].n <= n) --j;  // ending earlier and no wider: covered by it
    columns.erase(columns.begin() + static_cast<std::ptrdiff_t>(j),
                  columns.begin() + static_cast<std::ptrdiff_t>(i));
    if (j < columns.size() && columns[j].end == to) {
      columns[j].n = n;
    } else {
      columns.insert(columns.begin() + static_cast<std::ptrdiff_t>(j), Span{to, n});
    }
  }
  // Counts the column clocks of cycles from .. to, each also run by at least n columns.
  void CountColumns(uint64_t from, uint64_t to, uint32_t n) {
    uint64_t c = from;
    for (const Span& span : columns) {
      if (c > to) break;
      if (span.end < c) continue;
      const uint64_t last = std::min(span.end, to);
      column_clocks += (last - c + 1) * std::max(span.n, n);
      c = last + 1;
    }
    if (c <= to) column_clocks += (to - c + 1) * n;
  }
  // Counts cycle c's clocks (cycles in order).
  void Count(uint64_t c) {
    size_t gone = 0;
    while (gone < columns.size() && columns[gone].end < c) ++gone;
    if (gone != 0)
      columns.erase(columns.begin(), columns.begin() + static_cast<std::ptrdiff_t>(gone));
    column_clocks += columns.empty() ? 0 : columns.front().n;
    acc_cycles += acc.Runs(c);
    activate_cycles += activate.Runs(c);
  }
};

}  // namespace mxu::backends::model

#endif  // MXU_BACKENDS_MODEL_MARKS_H_
