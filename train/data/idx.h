// A strict reader of IDX files (the MNIST / Fashion-MNIST format) and a loader of an image
// classification data set from a directory of them.
//
// IDX layout (after gzip decompression, when the file starts with the gzip magic): two zero bytes,
// a type code (only 0x08, unsigned byte, is supported), the number of dimensions, each dimension as
// a big-endian uint32, then exactly the product of the dimensions in bytes. Every error is a
// std::runtime_error with a one-line message that starts with the file (or directory) name, e.g.
// "data/train-labels-idx1-ubyte: truncated payload: expected 60000 bytes, found 59000". No byte
// sequence makes the reader crash.
#ifndef MXU_TRAIN_DATA_IDX_H_
#define MXU_TRAIN_DATA_IDX_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "train/data/dataset.h"

namespace mxu::train {

struct IdxArray {
  // The dimensions, outermost first (e.g. {60000, 28, 28} for MNIST training images).
  std::vector<size_t> dims;
  // The product of dims bytes, row-major.
  std::vector<uint8_t> data;
};

// Reads and parses the IDX file at path.
IdxArray ReadIdx(const std::string& path);
// Parses the bytes of a whole IDX file; name_for_errors starts every error message.
IdxArray ParseIdx(const std::vector<uint8_t>& bytes, const std::string& name_for_errors);

// Loads dir/train-images-idx3-ubyte + dir/train-labels-idx1-ubyte as the training set and
// dir/t10k-images-idx3-ubyte + dir/t10k-labels-idx1-ubyte as the test set (the spellings
// train-images.idx3-ubyte etc. are accepted too, and each name with .gz: gzip-compressed, as the
// data sets are downloaded; a plain file wins over its .gz). Images must be 3-D (count x rows x
// cols) and labels 1-D with the same count; features = rows * cols pixels / 255 in [0, 1],
// row-major; classes = the largest training label + 1 (at least 2); every class 0..L-1 must have a
// sample in the training files (before max_train), and the test labels must be among them. Without
// the t10k pair, the training pair is split 80/20 by SplitDataset with seed kIdxSplitSeed.
// max_train > 0 (max_test > 0) keeps only the first max_train (max_test) samples of the training
// (test) set, after any split.
Split LoadIdxDataset(const std::string& dir, int max_train = 0, int max_test = 0);

// Every path LoadIdxDataset(dir) may read: each spelling of its four files, plain and .gz,
// whether it exists or not (an output there would replace or shadow the data set).
std::vector<std::string> IdxDataFiles(const std::string& dir);

// The installed Fashion-MNIST (Debian package dataset-fashion-mnist, .gz files).
inline constexpr char kFashionMnistName[] = "fashion-mnist";
inline constexpr char kFashionMnistDir[] = "/usr/share/datasets/fashion-mnist";
inline constexpr char kFashionMnistPackage[] = "dataset-fashion-mnist";

// The directory `--data NAME` means: kFashionMnistName is the installed set (a one-line
// std::runtime_error naming the package if it is not installed), anything else a directory.
std::string DataDirectory(const std::string& name);

inline constexpr uint64_t kIdxSplitSeed = 20240601;
inline constexpr double kIdxSplitTestFraction = 0.2;

}  // namespace mxu::train

#endif  // MXU_TRAIN_DATA_IDX_H_
