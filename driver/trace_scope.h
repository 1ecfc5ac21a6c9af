// Which signals an FST waveform holds (`--trace-scope`): tracing every signal of a 16 x 16 device
// writes ~30 KB a cycle and runs 30x slower than untraced, so by default a trace holds what the
// shipped GTKWave layouts show (waves/*.gtkw) and the other signals of their scopes.
//   layouts               the default
//   all                   every signal
//   HIER[:DEPTH],...      the signals in each hierarchical scope (e.g. mxu_top.mxu_top.u_dma),
//                         down to DEPTH levels below it (1: the scope's own signals; default: all),
//                         and the model's ports (mxu_top's clock, reset, bus) always
#ifndef MXU_DRIVER_TRACE_SCOPE_H_
#define MXU_DRIVER_TRACE_SCOPE_H_

#include <string>
#include <utility>
#include <vector>

namespace mxu::driver {

struct TraceScope {
  enum class Kind { kLayouts, kAll, kList };
  Kind kind = Kind::kLayouts;
  // kList: (depth, scope) pairs, as Verilator's dumpvars takes them.
  std::vector<std::pair<int, std::string>> scopes;
};

inline constexpr int kTraceScopeAllLevels = 999;

// Throws std::invalid_argument with a one-line reason for a malformed text.
TraceScope ParseTraceScope(const std::string& text);

}  // namespace mxu::driver

#endif  // MXU_DRIVER_TRACE_SCOPE_H_
