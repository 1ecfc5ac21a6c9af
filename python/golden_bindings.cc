// The golden model from Python: golden_gemm and golden_gemm_int8 for the same arguments as
// Device.gemm and Device.gemm_int8, the int8 mode's scales, and bf16 rounding.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/bf16.h"
#include "driver/golden_request.h"
#include "python/arguments.h"

namespace mxu::python {
namespace {

py::array GoldenGemm(const py::array& a, const py::array& b, bool ta, bool tb, bool relu,
                     const std::optional<py::array>& bias,
                     const std::optional<py::array>& accumulate, const std::string& out,
                     long long array_rows, const std::string& subnormals) {
  const Subnormals mode = ParseSubnormals(subnormals);
  const int rows = static_cast<int>(CheckedRange("array_rows", array_rows, 1, 65535));
  const auto args = ParseGemm(a, b, ta, tb, relu, bias, accumulate, out, mode);
  driver::CheckGemmRequest(args->request);  // the device's refusals, in its words
  return ToArray(driver::GoldenBits(args->request, rows, mode), args->m, args->n,
                 args->request.output);
}

py::array GoldenGemmInt8(const py::array& a, const py::array& b, bool ta, bool tb, bool relu,
                         const std::optional<py::array>& bias,
                         const std::optional<py::array>& accumulate,
                         const std::optional<py::object>& scales, long long zero_point) {
  const auto args = ParseGemmInt8(a, b, ta, tb, relu, bias, accumulate, scales, zero_point);
  driver::CheckGemmRequest(args->request);
  return ToInt8ModeArray(GoldenInt8(*args), args->m, args->n, args->request.output);
}

// A real scale as the device applies it: (multiplier, shift).
std::pair<uint32_t, int> QuantizeMultiplier(double scale) {
  const uint32_t word = QuantWord(scale, "scale");  // the one check of gemm_int8's scales
  return std::make_pair(word >> 8, static_cast<int>(word & 63));
}

py::array_t<uint16_t> FloatToBf16Array(const py::array& array, const std::string& subnormals) {
  const Subnormals mode = ParseSubnormals(subnormals);
  const auto x = Exactly<float>("float_to_bf16", array, "float32");
  py::array_t<uint16_t> out(std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()));
  for (py::ssize_t i = 0; i < x.size(); ++i) {
    out.mutable_data()[i] = FloatToBf16(x.data()[i], mode);
  }
  return out;
}

py::array_t<float> Bf16ToFloatArray(const py::array& array) {
  const auto x = Exactly<uint16_t>("bf16_to_float", array, "uint16 (bf16 bits)");
  py::array_t<float> out(std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()));
  for (py::ssize_t i = 0; i < x.size(); ++i) {
    out.mutable_data()[i] = Bf16ToFloat(x.data()[i]);
  }
  return out;
}

}  // namespace

void RegisterGolden(py::module_& m) {
  m.def("golden_gemm", &GoldenGemm, py::arg("a"), py::arg("b"), py::kw_only(),
        py::arg("ta") = false, py::arg("tb") = false, py::arg("relu") = false,
        py::arg("bias") = py::none(), py::arg("accumulate") = py::none(), py::arg("out") = "fp32",
        py::arg("array_rows") = 16, py::arg("subnormals") = "ieee",
        "The golden model's C for the same arguments as Device.gemm: K accumulated in tiles of "
        "array_rows in the contract's order (docs/numerics.md).");
  m.def("golden_gemm_int8", &GoldenGemmInt8, py::arg("a"), py::arg("b"), py::kw_only(),
        py::arg("ta") = false, py::arg("tb") = false, py::arg("relu") = false,
        py::arg("bias") = py::none(), py::arg("accumulate") = py::none(),
        py::arg("scales") = py::none(), py::arg("zero_point") = 0,
        "The golden model's C for the same arguments as Device.gemm_int8: the exact integer "
        "product, then the requantization rule (docs/numerics.md, the integer mode).");
  m.def("quantize_multiplier", &QuantizeMultiplier, py::arg("scale"),
        "A real scale as the device applies it, multiplier / 2^shift: (multiplier, shift), the "
        "multiplier in [2^23, 2^24) (smaller only below 2^-40), the shift 0 .. 63. Its "
        "quantization word is multiplier << 8 | shift.");
  m.def("float_to_bf16", &FloatToBf16Array, py::arg("x"), py::arg("subnormals") = "ieee",
        "float32 -> bf16 bits (uint16), round to nearest even, as the device and the tool do.");
  m.def("bf16_to_float", &Bf16ToFloatArray, py::arg("x"), "bf16 bits (uint16) -> float32, exact.");
}

}  // namespace mxu::python
