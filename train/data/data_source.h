// What a training or inference run reads: the IDX files `--data` names (a directory, or
// fashion-mnist for the installed Fashion-MNIST), or without it the generated spirals. One place,
// so that `mxu train` and `mxu predict` load a data set alike.
#ifndef MXU_TRAIN_DATA_DATA_SOURCE_H_
#define MXU_TRAIN_DATA_DATA_SOURCE_H_

#include <cstdint>
#include <string>

#include "train/data/dataset.h"

namespace mxu::train {

struct DataSource {
  std::string data;                         // the --data argument; empty: the spirals
  int train_samples = 0, test_samples = 0;  // IDX: keep the first N (0: all)
  int classes = kSpiralClasses;             // spirals
  int samples_per_class = kSpiralSamplesPerClass;
};

struct LoadedData {
  Split split;
  std::string name;  // "Fashion-MNIST", "IDX DIR", "3-arm spirals"
};

// Throws std::runtime_error (a missing or malformed file) naming the problem. The spirals are
// generated and split from seed.
LoadedData LoadData(const DataSource& source, uint64_t seed);

}  // namespace mxu::train

#endif  // MXU_TRAIN_DATA_DATA_SOURCE_H_
