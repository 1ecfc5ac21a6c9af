// How the charts write numbers (internal to io/plot/): plain digits with thousands separators,
// never scientific notation where plain digits fit (a tick of 2,000,000 cycles, 0.001 MACs per
// byte), so that a tick or a bar's value reads as the tables beside it do.
#ifndef MXU_IO_PLOT_NUMBERS_H_
#define MXU_IO_PLOT_NUMBERS_H_

#include <cstddef>
#include <string>

namespace mxu::plot::numbers {

// The longest plain number a chart writes: 999,999,999,999,999 (and 0.00000000000001).
inline constexpr size_t kMaxPlainChars = 19;

// v with `decimals` digits after the point, the integer part in groups of three ("1,234,567.5"),
// trailing zeros after the point dropped ("2.50" -> "2.5", "3.0" -> "3"); no "-0". Longer than
// kMaxPlainChars: three significant digits, scientific ("1e+308").
std::string Plain(double v, int decimals);

// An axis tick at a multiple of step: as many decimals as the step needs ("0.25", "1,500",
// "2,000,000"); percent: a fraction as "40%" (one decimal when the step is under 1%).
std::string Tick(double value, double step, bool percent);

// A bar's value: percent with one decimal ("97.6%", "94.0%"); otherwise whole from 100 up
// ("1,234,567"), three significant digits below ("12.3", "0.456").
std::string Value(double v, bool percent);

// A power of ten 10^e, short: "0.001" ... "1" ... "100", then "1k", "10k", "1M" ... "100T";
// outside 10^-6 ... 10^14, "1e-7", "1e15".
std::string Decade(int e);

}  // namespace mxu::plot::numbers

#endif  // MXU_IO_PLOT_NUMBERS_H_
