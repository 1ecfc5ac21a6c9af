// Model parallelism (tensor parallel, Megatron-style column slicing): an MLP whose every weight
// matrix is cut by output columns across the ranks, each rank one chip holding its slice of W and
// b and the whole batch. Per layer and step:
//   forward   Y_r = ReLU(X W_r + b_r) on rank r's device, then an all-gather of the Y_r gives
//             every rank the whole Y (the next layer's X; dropout masks drawn alike on every rank)
//   backward  dW_r = X^T dY_r and db_r on rank r's device and host; dX = sum_r dY_r W_r^T, each
//             rank's partial product summed in rank order (an all-reduce)
// The optimizer updates each rank's slices alone (Adam and SGD are elementwise), so the weight
// memory per rank is about 1/N of the model's. The all-gathers' and all-reduces' cycles on the
// ring interconnect are counted as data parallelism's all-reduce is.
#ifndef MXU_TRAIN_TENSOR_PARALLEL_MLP_H_
#define MXU_TRAIN_TENSOR_PARALLEL_MLP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "train/collective.h"
#include "train/interconnect.h"
#include "train/mlp.h"
#include "train/model.h"

namespace mxu::train {

class TensorParallelMlp : public Model {
 public:
  // widths: inputs, hidden..., classes, each output width at least the number of ranks. The
  // weights are the one-chip Mlp's (same seed), sliced. Throws std::invalid_argument otherwise.
  TensorParallelMlp(const std::vector<int>& widths, uint64_t seed, Collective& ranks,
                    const RingInterconnect& link);

  Fp32Matrix Forward(MatmulEngine& engine, const Fp32Matrix& x, bool for_backward) override;
  Gradients Backward(MatmulEngine& engine, const Fp32Matrix& d_logits,
                     const Gradients* sum = nullptr) override;
  // This rank's slices: W0_r, b0_r, W1_r, b1_r, ...
  std::vector<std::vector<float>*> Parameters() override;
  // The whole model's count; local_parameter_count() is this rank's.
  size_t parameter_count() const override;
  size_t local_parameter_count() const;
  std::string Describe() const override;
  // The ring's cycles of every all-gather and all-reduce so far.
  uint64_t communication_cycles() const { return communication_cycles_; }
  // The whole model's tensors W0, b0, W1, ... from every rank's slices of them (Parameters()'s
  // layout; a collective call: every rank calls it), and this rank's slices of whole tensors
  // (throws std::invalid_argument when their sizes are not the model's). Checkpoints hold the
  // whole model, so that one chip can load it.
  std::vector<std::vector<float>> GatherWhole(const std::vector<std::vector<float>>& slices);
  std::vector<std::vector<float>> SliceOf(const std::vector<std::vector<float>>& whole) const;
  // Rank r's columns [first, last) of a layer `width` wide.
  static std::pair<int, int> Columns(int width, int rank, int ranks);

 private:
  // The whole [rows x width] matrix from every rank's column slice of it.
  Fp32Matrix GatherColumns(const Fp32Matrix& slice, int width);

  std::vector<int> widths_;
  std::vector<DenseLayer> layers_;  // slices
  Collective& ranks_;
  RingInterconnect link_;
  ForwardPass pass_;
  uint64_t communication_cycles_ = 0;
};

}  // namespace mxu::train

#endif  // MXU_TRAIN_TENSOR_PARALLEL_MLP_H_
