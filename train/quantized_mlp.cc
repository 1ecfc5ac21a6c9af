#include "train/quantized_mlp.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "common/csr_map.h"
#include "driver/golden_request.h"
#include "golden/int8.h"

namespace mxu::train {
namespace {

int8_t Saturate(double q) { return static_cast<int8_t>(std::clamp(q, -128.0, 127.0)); }

// Half away from zero, as the device's requantization rounds.
double RoundHalfAway(double x) { return std::round(x); }

}  // namespace

QuantParams ActivationParams(float lo, float hi) {
  const double low = std::min(0.0, double(lo)), high = std::max(0.0, double(hi));
  QuantParams p;
  p.scale = high > low ? (high - low) / 255 : 1.0;
  p.zero_point = static_cast<int>(std::clamp(RoundHalfAway(-128 - low / p.scale), -128.0, 127.0));
  return p;
}

QuantizedMlp QuantizedMlp::Quantize(const Mlp& mlp, const Dataset& calibration,
                                    int calibration_samples) {
  if (calibration_samples < 1) {
    throw std::invalid_argument("quantization needs at least one calibration sample");
  }
  const int samples = std::min(calibration_samples, calibration.size());
  driver::Fp32Matrix x(samples, calibration.features);
  std::copy(calibration.x.begin(), calibration.x.begin() + size_t(samples) * calibration.features,
            x.data.begin());
  // The fp32 model's every layer input on the calibration samples.
  HostMatmulEngine host;
  const ForwardPass pass = mlp.Forward(host, x);
  const std::vector<DenseLayer>& dense = mlp.layers();

  QuantizedMlp q;
  for (size_t l = 0; l < dense.size(); ++l) {
    const DenseLayer& d = dense[l];
    QuantizedLayer layer;
    const auto [lo, hi] =
        std::minmax_element(pass.inputs[l].data.begin(), pass.inputs[l].data.end());
    layer.input = ActivationParams(*lo, *hi);
    layer.hidden = l + 1 < dense.size();
    const int k = d.w.rows, n = d.w.cols;
    layer.w = driver::Int8Matrix(k, n);
    layer.w_scale.assign(n, 1.0);
    layer.bias.assign(n, 0);
    for (int j = 0; j < n; ++j) {
      double max_abs = 0;
      for (int i = 0; i < k; ++i) max_abs = std::max(max_abs, std::fabs(double(d.w.at(i, j))));
      const double s = max_abs > 0 ? max_abs / 127 : 1.0;
      layer.w_scale[j] = s;
      int64_t column_sum = 0;
      for (int i = 0; i < k; ++i) {
        layer.w.at(i, j) = Saturate(RoundHalfAway(d.w.at(i, j) / s));
        column_sum += layer.w.at(i, j);
      }
      const double acc_scale = layer.input.scale * s;
      const double b = std::clamp(RoundHalfAway(d.b[j] / acc_scale), -1073741824.0, 1073741823.0);
      layer.bias[j] = static_cast<int32_t>(int64_t(b) - layer.input.zero_point * column_sum);
    }
    q.layers_.push_back(std::move(layer));
  }
  // A hidden layer's output is the next layer's input: requantize to that one's parameters.
  for (size_t l = 0; l + 1 < q.layers_.size(); ++l) {
    QuantizedLayer& layer = q.layers_[l];
    const QuantParams& out = q.layers_[l + 1].input;
    layer.quant.resize(layer.w_scale.size());
    for (size_t j = 0; j < layer.w_scale.size(); ++j) {
      layer.quant[j] =
          golden::QuantizeMultiplier(layer.input.scale * layer.w_scale[j] / out.scale).word();
    }
  }
  return q;
}

driver::Fp32Matrix QuantizedMlp::Logits(const driver::Fp32Matrix& x,
                                        const Int8ChainRunner& run) const {
  const QuantParams& in = layers_.front().input;
  driver::Int8Matrix a(x.rows, x.cols);
  for (size_t i = 0; i < x.data.size(); ++i) {
    a.data[i] = golden::QuantizeValue(x.data[i], static_cast<float>(in.scale), in.zero_point);
  }
  std::vector<driver::GemmRequest> chain(layers_.size());
  for (size_t l = 0; l < layers_.size(); ++l) {
    const QuantizedLayer& layer = layers_[l];
    driver::GemmRequest& request = chain[l];
    if (l == 0) request.a_int8 = &a;
    request.b_int8 = &layer.w;
    request.bias_int32 = &layer.bias;
    if (layer.hidden) {
      request.relu = true;
      request.output = driver::OutputType::kInt8;
      request.quant = &layer.quant;
      request.zero_point = layers_[l + 1].input.zero_point;
    } else {
      request.output = driver::OutputType::kInt32;
    }
  }
  const driver::Int32Matrix sums = run(chain);
  const QuantizedLayer& last = layers_.back();
  driver::Fp32Matrix logits(sums.rows, sums.cols);
  for (int r = 0; r < sums.rows; ++r) {
    for (int c = 0; c < sums.cols; ++c) {
      logits.at(r, c) = static_cast<float>(last.input.scale * last.w_scale[c] * sums.at(r, c));
    }
  }
  return logits;
}

std::string QuantizedMlp::Describe() const {
  std::string text;
  for (size_t l = 0; l < layers_.size(); ++l) {
    const QuantizedLayer& layer = layers_[l];
    const auto [lo, hi] = std::minmax_element(layer.w_scale.begin(), layer.w_scale.end());
    char line[160];
    std::snprintf(line, sizeof(line),
                  "layer %zu: %dx%d int8 weights (scales %.3g .. %.3g), input scale %.4g zero "
                  "point %d%s\n",
                  l + 1, layer.w.rows, layer.w.cols, *lo, *hi, layer.input.scale,
                  layer.input.zero_point, layer.hidden ? ", ReLU, int8 out" : ", int32 out");
    text += line;
  }
  return text;
}

driver::GemmResult HostInt8Gemm(const driver::GemmRequest& r) {
  const std::vector<int32_t> values = driver::GoldenInt8Values(r);
  const int m = r.trans_a ? r.a_int8->cols : r.a_int8->rows;
  const int n = r.trans_b ? r.b_int8->rows : r.b_int8->cols;
  driver::GemmResult result;
  if (r.output == driver::OutputType::kInt8) {
    result.c_int8 = driver::Int8Matrix(m, n);
    std::copy(values.begin(), values.end(), result.c_int8.data.begin());  // in int8 range
  } else {
    result.c_int32 = driver::Int32Matrix(m, n);
    result.c_int32.data = values;
  }
  return result;
}

driver::Int32Matrix RunInt8OnHost(const std::vector<driver::GemmRequest>& chain) {
  driver::GemmResult result;
  driver::Int8Matrix input;
  for (size_t i = 0; i < chain.size(); ++i) {
    driver::GemmRequest request = chain[i];
    if (i > 0) request.a_int8 = &input;
    result = HostInt8Gemm(request);
    if (i + 1 < chain.size()) input = result.c_int8;
  }
  return result.c_int32;
}

driver::Int32Matrix RunInt8OnDevice(driver::Device& device, const driver::DeviceConfig& config,
                                    const std::vector<driver::GemmRequest>& chain,
                                    uint64_t watchdog_cycles, EngineStats* stats) {
  const driver::Int8Matrix& x = *chain.front().a_int8;
  const int cols = static_cast<int>(config.cols), rows = static_cast<int>(config.rows);
  // Rows a chunk may have: its chained results (an N tile of rows each) in half the UB.
  int resident_tiles = 0;
  for (size_t i = 0; i + 1 < chain.size(); ++i) {
    resident_tiles += (chain[i].b_int8->cols + cols - 1) / cols;
  }
  int chunk = x.rows;
  if (resident_tiles > 0) {
    chunk = std::max(rows, static_cast<int>(config.ub_depth / 2) / resident_tiles / rows * rows);
  }
  driver::Int32Matrix sums(x.rows, chain.back().b_int8->cols);
  for (int begin = 0; begin < x.rows; begin += chunk) {
    const int end = std::min(x.rows, begin + chunk);
    driver::Int8Matrix part(end - begin, x.cols);
    std::copy(x.data.begin() + static_cast<std::ptrdiff_t>(begin) * x.cols,
              x.data.begin() + static_cast<std::ptrdiff_t>(end) * x.cols, part.data.begin());
    driver::GemmProgram program(device, config);
    for (size_t i = 0; i < chain.size(); ++i) {
      driver::GemmRequest request = chain[i];
      if (i == 0) {
        request.a_int8 = &part;
        program.Add(request);
      } else {
        program.AddChained(i - 1, request);
      }
      program.SetReturned(i, i + 1 == chain.size());
    }
    const driver::GemmResult result = program.Run(watchdog_cycles).back();
    std::copy(result.c_int32.data.begin(), result.c_int32.data.end(),
              sums.data.begin() + static_cast<std::ptrdiff_t>(begin) * sums.cols);
    if (stats) {
      stats->gemms += chain.size();
      stats->device_cycles += result.stats.counter(csr::Counter::kCycles);
      stats->array_busy_cycles += result.stats.counter(csr::Counter::kArrayBusy);
      stats->dma_read_bytes += result.stats.counter(csr::Counter::kDmaReadBytes);
      stats->dma_write_bytes += result.stats.counter(csr::Counter::kDmaWriteBytes);
    }
  }
  return sums;
}

}  // namespace mxu::train
