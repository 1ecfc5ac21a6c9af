#include "train/data/data_source.h"

#include "train/data/idx.h"

namespace mxu::train {

LoadedData LoadData(const DataSource& source, uint64_t seed) {
  LoadedData loaded;
  if (!source.data.empty()) {
    loaded.split =
        LoadIdxDataset(DataDirectory(source.data), source.train_samples, source.test_samples);
    loaded.name = source.data == kFashionMnistName ? "Fashion-MNIST" : "IDX " + source.data;
    return loaded;
  }
  loaded.split =
      SplitDataset(MakeSpirals(source.samples_per_class, source.classes, kSpiralNoise, seed),
                   kSpiralTestFraction, seed);
  loaded.name = std::to_string(source.classes) + "-arm spirals";
  return loaded;
}

}  // namespace mxu::train
