// Post-training quantization of a trained MLP for the device's int8 mode (docs/training.md,
// "int8 inference"), after Jacob et al. 2018 (TFLite):
// - weights: per output column, symmetric: scale_w[n] = max |W[:, n]| / 127, zero point 0;
// - activations (each layer's input): one affine int8 scale and zero point per layer, calibrated
//   as the [min, max] range (0 included) seen on calibration samples run through the fp32 model;
// - each layer: int8 x int8 -> int32 on the device, the bias folded into an int32 bias with the
//   input zero point's correction (-z_x x the column sums of the int8 weights); a hidden layer
//   requantizes to the next layer's int8 input with its ReLU (a clamp at the zero point), the last
//   layer's int32 sums are scaled back to fp32 logits on the host.
// Inference is then entirely in the integer mode: one quantization of the input on the host, int8
// GEMMs chained through the requantization, and the logits' dequantization at the end.
#ifndef MXU_TRAIN_QUANTIZED_MLP_H_
#define MXU_TRAIN_QUANTIZED_MLP_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "driver/gemm.h"
#include "driver/matrix.h"
#include "train/data/dataset.h"
#include "train/mlp.h"

namespace mxu::train {

// An affine int8 quantization: real = scale * (q - zero_point).
struct QuantParams {
  double scale = 1;
  int zero_point = 0;
};

// The [lo, hi] range (0 included, so that 0 is exact) over 256 levels.
QuantParams ActivationParams(float lo, float hi);

struct QuantizedLayer {
  driver::Int8Matrix w;         // inputs x outputs, symmetric per column
  std::vector<double> w_scale;  // per output column
  std::vector<int32_t> bias;    // folded: b / (s_x s_w) - z_x * column sums of w
  QuantParams input;            // of this layer's input
  std::vector<uint32_t> quant;  // hidden layers: requantization to the next layer's input
  bool hidden = false;          // ReLU and int8 output; the last layer gives int32
};

// Runs the layers' int8 GEMMs as one chain, each request after the first taking its A from the
// one before (a_int8 null: the previous result, requantized to int8), and gives the last
// result's int32 sums: on the device (RunInt8OnDevice) or the host's golden model
// (RunInt8OnHost).
using Int8ChainRunner = std::function<driver::Int32Matrix(const std::vector<driver::GemmRequest>&)>;

class QuantizedMlp {
 public:
  // Quantizes `mlp`, calibrating the activation ranges on the first `calibration_samples`
  // samples of `calibration` (fp32 on the host). Throws std::invalid_argument for a count < 1.
  static QuantizedMlp Quantize(const Mlp& mlp, const Dataset& calibration, int calibration_samples);

  // The fp32 logits of rows x (one sample a row), every product in the int8 mode.
  driver::Fp32Matrix Logits(const driver::Fp32Matrix& x, const Int8ChainRunner& run) const;

  const std::vector<QuantizedLayer>& layers() const { return layers_; }
  // One line per layer: its input's scale and zero point, the weights' scale range.
  std::string Describe() const;

 private:
  std::vector<QuantizedLayer> layers_;
};

// The host's int8 GEMM (golden::Int8Gemm and RequantizeMatrix), and a chain of them: the runner
// of --backend host.
driver::GemmResult HostInt8Gemm(const driver::GemmRequest& request);
driver::Int32Matrix RunInt8OnHost(const std::vector<driver::GemmRequest>& chain);
// The chain as device programs (driver::GemmProgram, each layer chained to the one before, the
// int8 activations kept in the unified buffer), in row chunks whose chained results fit half of
// it (rows are independent: the same sums); each program's counters are added to `stats`.
driver::Int32Matrix RunInt8OnDevice(driver::Device& device, const driver::DeviceConfig& config,
                                    const std::vector<driver::GemmRequest>& chain,
                                    uint64_t watchdog_cycles, EngineStats* stats);

}  // namespace mxu::train

#endif  // MXU_TRAIN_QUANTIZED_MLP_H_
