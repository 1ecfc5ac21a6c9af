// The IDX reader and the IDX data set loader of train/data/idx.h.
#include "train/data/idx.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "io/input_file.h"
#include "train/data/gunzip.h"

namespace mxu::train {
namespace {

namespace fs = std::filesystem;

constexpr uint8_t kUnsignedByteType = 0x08;

// The spellings of the four files LoadIdxDataset looks for (each also with .gz).
const std::vector<std::string> kTrainImagesNames = {"train-images-idx3-ubyte",
                                                    "train-images.idx3-ubyte"};
const std::vector<std::string> kTrainLabelsNames = {"train-labels-idx1-ubyte",
                                                    "train-labels.idx1-ubyte"};
const std::vector<std::string> kTestImagesNames = {"t10k-images-idx3-ubyte",
                                                   "t10k-images.idx3-ubyte"};
const std::vector<std::string> kTestLabelsNames = {"t10k-labels-idx1-ubyte",
                                                   "t10k-labels.idx1-ubyte"};

[[noreturn]] void Fail(const std::string& name, const std::string& problem) {
  throw std::runtime_error(name + ": " + problem);
}

std::string Hex(unsigned value) {
  char text[8];
  std::snprintf(text, sizeof(text), "0x%02X", value & 0xFFu);
  return text;
}

const char* TypeName(uint8_t type) {
  switch (type) {
    case 0x08:
      return "unsigned byte";
    case 0x09:
      return "signed byte";
    case 0x0B:
      return "int16";
    case 0x0C:
      return "int32";
    case 0x0D:
      return "float32";
    case 0x0E:
      return "float64";
    default:
      return "unknown";
  }
}

// A named images + labels pair, already checked against each other.
struct ImageSet {
  IdxArray images, labels;
  std::string images_path, labels_path;
  size_t count() const { return labels.dims[0]; }
  size_t pixels() const { return images.dims[1] * images.dims[2]; }
};

// The first of names that exists in dir, else the first name.gz that does (the download as it
// comes), or "" if none does.
std::string FindFile(const fs::path& dir, const std::vector<std::string>& names) {
  std::error_code error;
  for (const std::string& name : names) {
    if (fs::exists(dir / name, error)) return (dir / name).string();
  }
  for (const std::string& name : names) {
    const fs::path gz = dir / (name + ".gz");
    if (fs::exists(gz, error)) return gz.string();
  }
  return "";
}

std::vector<std::string> WithGz(const std::vector<std::string>& names) {
  std::vector<std::string> all = names;
  for (const std::string& name : names) all.push_back(name + ".gz");
  return all;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string joined;
  for (size_t i = 0; i < names.size(); ++i) joined += (i == 0 ? "" : " or ") + names[i];
  return joined;
}

ImageSet LoadPair(const std::string& images_path, const std::string& labels_path) {
  ImageSet set;
  set.images_path = images_path;
  set.labels_path = labels_path;
  set.images = ReadIdx(images_path);
  set.labels = ReadIdx(labels_path);
  if (set.images.dims.size() != 3) {
    Fail(images_path, "images must be 3-D (count x rows x cols), found " +
                          std::to_string(set.images.dims.size()) + "-D");
  }
  if (set.labels.dims.size() != 1) {
    Fail(labels_path,
         "labels must be 1-D (count), found " + std::to_string(set.labels.dims.size()) + "-D");
  }
  if (set.images.dims[0] != set.labels.dims[0]) {
    Fail(labels_path, std::to_string(set.labels.dims[0]) + " labels for " +
                          std::to_string(set.images.dims[0]) + " images in " + images_path +
                          ": counts differ");
  }
  if (set.count() == 0) Fail(images_path, "empty set: no images");
  if (set.pixels() == 0) Fail(images_path, "empty images: 0 pixels each");
  if (set.count() > static_cast<size_t>(INT_MAX) || set.pixels() > static_cast<size_t>(INT_MAX)) {
    Fail(images_path, "too large: more than INT_MAX images or pixels per image");
  }
  return set;
}

// The first max_samples (all if max_samples <= 0) samples of set as floats in [0, 1].
Dataset ToDataset(const ImageSet& set, int max_samples, const std::string& name) {
  size_t count = set.count();
  if (max_samples > 0) count = std::min(count, static_cast<size_t>(max_samples));
  const size_t pixels = set.pixels();
  Dataset data;
  data.features = static_cast<int>(pixels);
  data.image_rows = static_cast<int>(set.images.dims[1]);
  data.image_cols = static_cast<int>(set.images.dims[2]);
  data.name = name;
  data.x.resize(count * pixels);
  for (size_t i = 0; i < count * pixels; ++i) data.x[i] = set.images.data[i] / 255.0f;
  data.labels.assign(set.labels.data.begin(), set.labels.data.begin() + count);
  return data;
}

int MaxLabel(const ImageSet& set) {
  return *std::max_element(set.labels.data.begin(), set.labels.data.end());
}

// The classes are the training labels 0..L-1, each with at least one sample: a stray label (200
// in a 10-class file) would otherwise make a model of 201 classes, most of them never seen.
void CheckTrainingClasses(const ImageSet& set) {
  const int max_label = MaxLabel(set);
  // One class is nothing to classify: the model would be right every time.
  if (max_label == 0)
    Fail(set.labels_path, "every label is 0: a classifier needs 2 classes or more");
  std::vector<bool> seen(static_cast<size_t>(max_label) + 1, false);
  for (uint8_t label : set.labels.data) seen[label] = true;
  for (int c = 0; c <= max_label; ++c) {
    if (!seen[static_cast<size_t>(c)]) {
      Fail(set.labels_path, "labels run up to " + std::to_string(max_label) + " but class " +
                                std::to_string(c) +
                                " has no sample: the classes must be 0..L-1, each present");
    }
  }
}

void CheckTestClasses(const ImageSet& test, int train_max_label) {
  const int max_label = MaxLabel(test);
  if (max_label > train_max_label) {
    Fail(test.labels_path, "label " + std::to_string(max_label) +
                               " is not a class of the training labels (0.." +
                               std::to_string(train_max_label) + ")");
  }
}

void KeepFirst(Dataset& data, int max_samples) {
  if (max_samples <= 0 || max_samples >= data.size()) return;
  data.labels.resize(static_cast<size_t>(max_samples));
  data.x.resize(static_cast<size_t>(max_samples) * static_cast<size_t>(data.features));
}

// The most an IDX file may declare: 2 GiB, as Gunzip's default cap (Fashion-MNIST's training
// images are 47 MB).
constexpr uint64_t kMaxPayload = uint64_t{1} << 31;
// deflate's best ratio is about 1032:1: a gzip file cannot hold more.
constexpr uint64_t kMaxDeflateRatio = 1100;

struct IdxLayout {
  IdxArray array;  // dims, no data
  size_t header_size = 0;
  uint64_t payload = 0;
};

// The header from head (the file's first head_size bytes, or the whole file), checked against
// total, the whole (decompressed) file's size; kUnknownSize skips the size checks.
constexpr uint64_t kUnknownSize = UINT64_MAX;
IdxLayout ParseIdxHeader(const uint8_t* bytes, size_t head_size, uint64_t total,
                         const std::string& name) {
  const uint64_t size = std::min<uint64_t>(head_size, total);
  if (size < 4) {
    Fail(name, "too short for an IDX header: " + std::to_string(size) + " bytes");
  }
  if (bytes[0] != 0 || bytes[1] != 0) {
    Fail(name, "bad magic " + Hex(bytes[0]) + " " + Hex(bytes[1]) +
                   " (an IDX file starts with two zero bytes): not an IDX file");
  }
  const uint8_t type = bytes[2];
  if (type != kUnsignedByteType) {
    Fail(name, "unsupported type code " + Hex(type) + " (" + TypeName(type) +
                   "): only 0x08 (unsigned byte) is supported");
  }
  const size_t rank = bytes[3];
  if (rank == 0) Fail(name, "bad dimension count 0");
  const size_t header_size = 4 + 4 * rank;
  if (size < header_size) {
    Fail(name, "truncated header: " + std::to_string(rank) + " dimensions need " +
                   std::to_string(header_size) + " header bytes, found " + std::to_string(size));
  }
  IdxLayout layout;
  layout.header_size = header_size;
  IdxArray& array = layout.array;
  for (size_t d = 0; d < rank; ++d) {
    const uint8_t* p = &bytes[4 + 4 * d];
    array.dims.push_back((size_t{p[0]} << 24) | (size_t{p[1]} << 16) | (size_t{p[2]} << 8) |
                         size_t{p[3]});
  }
  // The payload size in 64 bits. A zero dimension makes it 0 however large the others are;
  // otherwise each product is checked before it is formed (up to 255 factors below 2^32 each).
  uint64_t expected = 0;
  bool overflow = false;
  if (std::find(array.dims.begin(), array.dims.end(), 0) == array.dims.end()) {
    expected = 1;
    for (const size_t dim : array.dims) {
      if (expected > UINT64_MAX / dim) {
        overflow = true;
        break;
      }
      expected *= dim;
    }
  }
  layout.payload = expected;
  if (total == kUnknownSize) {
    if (overflow) expected = UINT64_MAX;
    layout.payload = expected;
    return layout;
  }
  const uint64_t found = total - header_size;
  if (overflow) {
    Fail(name, "truncated payload: the dimensions ask for more than 2^64 bytes, found " +
                   std::to_string(found));
  }
  if (found < expected) {
    Fail(name, "truncated payload: expected " + std::to_string(expected) + " bytes, found " +
                   std::to_string(found));
  }
  if (found > expected) {
    Fail(name, "oversized payload: expected " + std::to_string(expected) + " bytes, found " +
                   std::to_string(found));
  }
  return layout;
}

// An uncompressed IDX file.
IdxArray ParseRawIdx(const std::vector<uint8_t>& bytes, const std::string& name) {
  IdxLayout layout = ParseIdxHeader(bytes.data(), bytes.size(), bytes.size(), name);
  layout.array.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(layout.header_size),
                           bytes.end());
  return std::move(layout.array);
}

// The IDX header's bytes from read(out, size) (which returns fewer only at the end): the fixed
// four, then four per dimension.
template <typename Read>
std::vector<uint8_t> ReadIdxHead(Read read) {
  std::vector<uint8_t> head(4);
  head.resize(read(head.data(), 4));
  if (head.size() == 4) {
    head.resize(4 + 4 * size_t{head[3]});
    head.resize(4 + read(head.data() + 4, head.size() - 4));
  }
  return head;
}

// A gzip-compressed IDX file: the header inflated first, its declared size checked against the
// limit and the compressed size, then exactly that many bytes inflated.
IdxArray ReadGzipIdx(std::FILE* file, uint64_t compressed, const std::string& name) {
  GzipStream gzip(file, name);
  const auto read = [&](uint8_t* out, size_t size) { return gzip.Read(out, size); };
  const std::vector<uint8_t> head = ReadIdxHead(read);
  IdxLayout layout = ParseIdxHeader(head.data(), head.size(), kUnknownSize, name);
  if (layout.payload > kMaxPayload || layout.payload > kMaxDeflateRatio * compressed) {
    Fail(name, "the header declares " +
                   (layout.payload == UINT64_MAX ? std::string("more than 2^64")
                                                 : std::to_string(layout.payload)) +
                   " payload bytes: more than " +
                   (layout.payload > kMaxPayload
                        ? "the limit of " + std::to_string(kMaxPayload)
                        : "a " + std::to_string(compressed) + "-byte gzip file can hold"));
  }
  // Grown as the data comes, not allocated at the declared size: a header may lie.
  std::vector<uint8_t>& data = layout.array.data;
  constexpr size_t kChunk = size_t{1} << 20;
  for (size_t got = kChunk; data.size() < layout.payload && got > 0;) {
    const size_t at = data.size();
    data.resize(at + std::min<uint64_t>(kChunk, layout.payload - at));
    got = read(data.data() + at, data.size() - at);
    data.resize(at + got);
  }
  uint64_t found = data.size();
  // Past the declared size: count what is left (bounded by the compressed size), keep nothing.
  uint8_t rest[1 << 16];
  for (size_t got; found == layout.payload && (got = read(rest, sizeof rest)) > 0;) found += got;
  ParseIdxHeader(head.data(), head.size(), layout.header_size + found, name);
  return std::move(layout.array);
}

}  // namespace

IdxArray ParseIdx(const std::vector<uint8_t>& bytes, const std::string& name_for_errors) {
  // A gzip file (by its magic, whatever its name) is unpacked first, once.
  if (IsGzip(bytes)) return ParseRawIdx(Gunzip(bytes, name_for_errors), name_for_errors);
  return ParseRawIdx(bytes, name_for_errors);
}

IdxArray ReadIdx(const std::string& path) {
  // A device or a FIFO has no size to check the header against (io/input_file.h).
  const io::InputFile input(path, "an IDX file");
  std::FILE* file = input.get();
  const uint64_t size = input.size();
  const int first = std::fgetc(file), second = std::fgetc(file);
  std::rewind(file);
  if (first == 0x1F && second == 0x8B) return ReadGzipIdx(file, size, path);
  const auto read = [&](uint8_t* out, size_t bytes) {
    const size_t got = std::fread(out, 1, bytes, file);
    if (std::ferror(file)) Fail(path, "read error");
    return got;
  };
  const std::vector<uint8_t> head = ReadIdxHead(read);
  IdxLayout layout = ParseIdxHeader(head.data(), head.size(), size, path);
  layout.array.data.resize(layout.payload);
  if (read(layout.array.data.data(), layout.payload) != layout.payload) {
    Fail(path, "truncated payload: the file shrank while read");
  }
  return std::move(layout.array);
}

std::string DataDirectory(const std::string& name) {
  if (name != kFashionMnistName) return name;
  std::error_code error;
  if (!fs::is_directory(kFashionMnistDir, error)) {
    Fail(name, std::string("not installed: ") + kFashionMnistDir + " is missing (apt-get install " +
                   kFashionMnistPackage + ", or run scripts/setup.sh)");
  }
  return kFashionMnistDir;
}

std::vector<std::string> IdxDataFiles(const std::string& dir) {
  std::vector<std::string> paths;
  for (const auto* names :
       {&kTrainImagesNames, &kTrainLabelsNames, &kTestImagesNames, &kTestLabelsNames}) {
    for (const std::string& name : WithGz(*names)) paths.push_back((fs::path(dir) / name).string());
  }
  return paths;
}

Split LoadIdxDataset(const std::string& dir_name, int max_train, int max_test) {
  const fs::path dir(dir_name);
  std::error_code error;
  if (!fs::is_directory(dir, error)) Fail(dir_name, "no such directory");

  const std::string train_images = FindFile(dir, kTrainImagesNames);
  const std::string train_labels = FindFile(dir, kTrainLabelsNames);
  const std::string test_images = FindFile(dir, kTestImagesNames);
  const std::string test_labels = FindFile(dir, kTestLabelsNames);
  if (train_images.empty()) {
    Fail(dir_name, "missing training images: looked for " + JoinNames(WithGz(kTrainImagesNames)));
  }
  if (train_labels.empty()) {
    Fail(dir_name, "missing training labels: looked for " + JoinNames(WithGz(kTrainLabelsNames)));
  }
  if (test_images.empty() != test_labels.empty()) {
    Fail(dir_name, test_images.empty() ? "test labels without test images: looked for " +
                                             JoinNames(WithGz(kTestImagesNames))
                                       : "test images without test labels: looked for " +
                                             JoinNames(WithGz(kTestLabelsNames)));
  }

  const ImageSet train_set = LoadPair(train_images, train_labels);
  CheckTrainingClasses(train_set);
  Split split;
  const int max_label = MaxLabel(train_set);
  if (test_images.empty()) {
    // The whole training pair is split, then each part is cut to its maximum; the split is
    // shuffled, so the first samples of each part are a random, stratified-ish subset.
    Dataset all = ToDataset(train_set, 0, "idx:" + dir_name);
    all.classes = std::max(max_label + 1, 2);
    split = SplitDataset(all, kIdxSplitTestFraction, kIdxSplitSeed);
    if (split.train.size() == 0 || split.test.size() == 0) {
      Fail(dir_name, "the 80/20 split of " + std::to_string(all.size()) +
                         " samples (no t10k-* test files) leaves no " +
                         (split.test.size() == 0 ? "test" : "training") +
                         " sample: give more samples of each class, or a t10k pair");
    }
    KeepFirst(split.train, max_train);
    KeepFirst(split.test, max_test);
    return split;
  }
  const ImageSet test_set = LoadPair(test_images, test_labels);
  if (test_set.images.dims[1] != train_set.images.dims[1] ||
      test_set.images.dims[2] != train_set.images.dims[2]) {
    Fail(test_images, "images are " + std::to_string(test_set.images.dims[1]) + "x" +
                          std::to_string(test_set.images.dims[2]) + " but the training images in " +
                          train_images + " are " + std::to_string(train_set.images.dims[1]) + "x" +
                          std::to_string(train_set.images.dims[2]));
  }
  CheckTestClasses(test_set, max_label);
  split.train = ToDataset(train_set, max_train, "idx:" + dir_name + " (train)");
  split.test = ToDataset(test_set, max_test, "idx:" + dir_name + " (test)");
  split.train.classes = split.test.classes = std::max(max_label + 1, 2);
  return split;
}

}  // namespace mxu::train
