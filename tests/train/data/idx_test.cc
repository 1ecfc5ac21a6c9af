// Tests of the IDX reader and data set loader (train/data/idx.h): round trips of small files
// written here, each error message, and a fuzz loop that must never crash.
#include "train/data/idx.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "train/data/gunzip.h"
#include "train/data/rng.h"

namespace mxu::train {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

// An IDX file: magic, type, dimension count, big-endian dims, then payload as given (which may
// deliberately disagree with the dims).
Bytes MakeIdx(const std::vector<uint32_t>& dims, const Bytes& payload, uint8_t type = 0x08) {
  Bytes bytes = {0, 0, type, static_cast<uint8_t>(dims.size())};
  for (const uint32_t dim : dims) {
    for (int shift = 24; shift >= 0; shift -= 8)
      bytes.push_back(static_cast<uint8_t>(dim >> shift));
  }
  bytes.insert(bytes.end(), payload.begin(), payload.end());
  return bytes;
}

// count images of rows x cols with pixel (i, p) = (7 * i + p) mod 256, and labels i mod classes.
Bytes MakeImages(uint32_t count, uint32_t rows, uint32_t cols) {
  Bytes pixels(static_cast<size_t>(count) * rows * cols);
  for (size_t i = 0; i < pixels.size(); ++i) {
    const size_t image = i / (rows * cols), pixel = i % (rows * cols);
    pixels[i] = static_cast<uint8_t>((7 * image + pixel) % 256);
  }
  return MakeIdx({count, rows, cols}, pixels);
}

Bytes MakeLabels(uint32_t count, int classes, int offset = 0) {
  Bytes labels(count);
  for (uint32_t i = 0; i < count; ++i) labels[i] = static_cast<uint8_t>((i + offset) % classes);
  return MakeIdx({count}, labels);
}

// bytes as a gzip file (zlib's deflate with a gzip wrapper, as gzip -9 writes it).
Bytes Gzip(const Bytes& bytes) {
  z_stream stream{};
  EXPECT_EQ(deflateInit2(&stream, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  Bytes out(deflateBound(&stream, bytes.size()) + 32);
  stream.next_in = const_cast<Bytef*>(bytes.data());
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = out.data();
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

// Scratch files live in a per-test folder under the build tree (CMake defines the root), so
// parallel CTest runs never share a file. The folder is kept when a test fails, for inspection.
class IdxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(MXU_TRAIN_TEST_TMPDIR) /
           ("idx." + std::string(info->test_suite_name()) + "." + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  std::string Path(const std::string& file) const { return (dir_ / file).string(); }
  std::string Dir() const { return dir_.string(); }

  void Write(const std::string& file, const Bytes& bytes) const {
    std::FILE* out = std::fopen(Path(file).c_str(), "wb");
    ASSERT_NE(out, nullptr) << Path(file);
    ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), out), bytes.size());
    ASSERT_EQ(std::fclose(out), 0);
  }

  // A valid MNIST-style directory: 20 training and 10 test images of 3x4, 4 classes.
  void WriteValidSet(bool with_test = true) const {
    Write("train-images-idx3-ubyte", MakeImages(20, 3, 4));
    Write("train-labels-idx1-ubyte", MakeLabels(20, 4));
    if (with_test) {
      Write("t10k-images-idx3-ubyte", MakeImages(10, 3, 4));
      Write("t10k-labels-idx1-ubyte", MakeLabels(10, 4, 1));
    }
  }

  // The message of the std::runtime_error LoadIdxDataset(Dir()) throws ("" if none).
  std::string LoadError() const {
    try {
      LoadIdxDataset(Dir());
    } catch (const std::runtime_error& error) {
      return error.what();
    }
    return "";
  }

  fs::path dir_;
};

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "message: " << (text)

TEST_F(IdxTest, ReadsAnIdxFile) {
  Write("a", MakeIdx({2, 3}, {1, 2, 3, 4, 5, 255}));
  const IdxArray array = ReadIdx(Path("a"));
  EXPECT_EQ(array.dims, (std::vector<size_t>{2, 3}));
  EXPECT_EQ(array.data, (Bytes{1, 2, 3, 4, 5, 255}));
  // Big-endian dims: 0x00000102 is 258, not 0x02010000.
  Write("b", MakeIdx({258}, Bytes(258, 9)));
  EXPECT_EQ(ReadIdx(Path("b")).dims, (std::vector<size_t>{258}));
}

TEST_F(IdxTest, LoadsTrainAndTestPairs) {
  WriteValidSet();
  const Split split = LoadIdxDataset(Dir());
  ASSERT_EQ(split.train.size(), 20);
  ASSERT_EQ(split.test.size(), 10);
  EXPECT_EQ(split.train.features, 12);
  EXPECT_EQ(split.test.features, 12);
  EXPECT_EQ(split.train.classes, 4);
  EXPECT_EQ(split.test.classes, 4);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(split.train.labels[i], i % 4);
    for (int p = 0; p < 12; ++p) {
      ASSERT_EQ(split.train.x[i * 12 + p], static_cast<float>((7 * i + p) % 256) / 255.0f);
    }
  }
  EXPECT_EQ(split.test.labels[0], 1);
  EXPECT_NO_THROW(ValidateDataset(split.train));
  EXPECT_NO_THROW(ValidateDataset(split.test));
}

TEST_F(IdxTest, PixelsScaleToZeroOne) {
  Write("train-images-idx3-ubyte", MakeIdx({2, 1, 3}, {0, 128, 255, 0, 0, 0}));
  Write("train-labels-idx1-ubyte", MakeIdx({2}, {0, 1}));
  Write("t10k-images-idx3-ubyte", MakeIdx({1, 1, 3}, {255, 0, 1}));
  Write("t10k-labels-idx1-ubyte", MakeIdx({1}, {0}));
  const Split split = LoadIdxDataset(Dir());
  EXPECT_EQ(split.train.x, (std::vector<float>{0.0f, 128 / 255.0f, 1.0f, 0.0f, 0.0f, 0.0f}));
  EXPECT_EQ(split.test.x, (std::vector<float>{1.0f, 0.0f, 1 / 255.0f}));
}

TEST_F(IdxTest, AcceptsTheDottedSpelling) {
  Write("train-images.idx3-ubyte", MakeImages(20, 3, 4));
  Write("train-labels.idx1-ubyte", MakeLabels(20, 4));
  Write("t10k-images.idx3-ubyte", MakeImages(10, 3, 4));
  Write("t10k-labels.idx1-ubyte", MakeLabels(10, 4));
  const Split split = LoadIdxDataset(Dir());
  EXPECT_EQ(split.train.size(), 20);
  EXPECT_EQ(split.test.size(), 10);
}

TEST_F(IdxTest, WithoutTestFilesSplitsTheTrainingPair) {
  WriteValidSet(/*with_test=*/false);
  const Split split = LoadIdxDataset(Dir());
  EXPECT_EQ(split.train.size(), 16);
  EXPECT_EQ(split.test.size(), 4);
  std::vector<int> test_counts(4, 0);
  for (const int label : split.test.labels) ++test_counts[label];
  EXPECT_EQ(test_counts, (std::vector<int>{1, 1, 1, 1}));  // stratified: 5 per class, 1 to test
  // The same directory gives the same split.
  EXPECT_EQ(LoadIdxDataset(Dir()).test.x, split.test.x);
  EXPECT_EQ(LoadIdxDataset(Dir(), 5, 3).train.size(), 5);
  EXPECT_EQ(LoadIdxDataset(Dir(), 5, 3).test.size(), 3);
}

TEST_F(IdxTest, MaxSamplesKeepsTheFirstOnes) {
  WriteValidSet();
  const Split all = LoadIdxDataset(Dir());
  const Split some = LoadIdxDataset(Dir(), 7, 4);
  ASSERT_EQ(some.train.size(), 7);
  ASSERT_EQ(some.test.size(), 4);
  EXPECT_EQ(some.train.labels,
            std::vector<int>(all.train.labels.begin(), all.train.labels.begin() + 7));
  EXPECT_EQ(some.train.x, std::vector<float>(all.train.x.begin(), all.train.x.begin() + 7 * 12));
  EXPECT_EQ(some.train.classes, 4);  // from all labels, not only the ones kept
  EXPECT_EQ(LoadIdxDataset(Dir(), 1000, 0).train.size(), 20);
}

TEST_F(IdxTest, ClassesAreAtLeastTwo) {
  Write("train-images-idx3-ubyte", MakeImages(3, 2, 2));
  Write("train-labels-idx1-ubyte", MakeIdx({3}, {0, 0, 0}));
  Write("t10k-images-idx3-ubyte", MakeImages(1, 2, 2));
  Write("t10k-labels-idx1-ubyte", MakeIdx({1}, {0}));
  // One class is nothing to learn: it was made a "2-class" model right 100% of the time.
  EXPECT_CONTAINS(LoadError(), "every label is 0");
  Write("train-labels-idx1-ubyte", MakeIdx({3}, {0, 1, 0}));
  EXPECT_EQ(LoadIdxDataset(Dir()).train.classes, 2);
}

// The classes are the training labels 0..L-1, each present: a stray label of 200 does not make a
// 201-class model, and a test label must be a training class.
TEST_F(IdxTest, RefusesSparseOrUnknownClasses) {
  Write("train-images-idx3-ubyte", MakeImages(4, 2, 2));
  Write("train-labels-idx1-ubyte", MakeIdx({4}, {0, 1, 200, 1}));
  EXPECT_CONTAINS(LoadError(),
                  "train-labels-idx1-ubyte: labels run up to 200 but class 2 has no "
                  "sample");
  Write("train-labels-idx1-ubyte", MakeIdx({4}, {0, 1, 2, 1}));
  Write("t10k-images-idx3-ubyte", MakeImages(1, 2, 2));
  Write("t10k-labels-idx1-ubyte", MakeIdx({1}, {2}));
  EXPECT_EQ(LoadError(), "");
  Write("t10k-labels-idx1-ubyte", MakeIdx({1}, {9}));
  EXPECT_CONTAINS(LoadError(),
                  "t10k-labels-idx1-ubyte: label 9 is not a class of the training labels (0..2)");
}

TEST_F(IdxTest, MissingDirectoryOrFile) {
  EXPECT_CONTAINS(LoadError(),
                  "missing training images: looked for train-images-idx3-ubyte or "
                  "train-images.idx3-ubyte");
  try {
    LoadIdxDataset(Path("nowhere"));
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_CONTAINS(error.what(), "nowhere: no such directory");
  }
  Write("train-images-idx3-ubyte", MakeImages(20, 3, 4));
  EXPECT_CONTAINS(LoadError(), "missing training labels: looked for train-labels-idx1-ubyte");
  Write("train-labels-idx1-ubyte", MakeLabels(20, 4));
  Write("t10k-images-idx3-ubyte", MakeImages(10, 3, 4));
  EXPECT_CONTAINS(LoadError(),
                  "test images without test labels: looked for t10k-labels-idx1-ubyte");
  fs::remove(Path("t10k-images-idx3-ubyte"));
  Write("t10k-labels-idx1-ubyte", MakeLabels(10, 4));
  EXPECT_CONTAINS(LoadError(), "test labels without test images");
  try {
    ReadIdx(Path("absent"));
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_CONTAINS(error.what(), "absent: cannot open");
  }
}

// The data sets come as .gz downloads: read as they are, giving what the plain files give.
TEST_F(IdxTest, ReadsGzipCompressedFiles) {
  WriteValidSet();
  const Split plain = LoadIdxDataset(Dir());
  for (const char* name : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                           "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}) {
    const IdxArray array = ReadIdx(Path(name));
    Bytes file = MakeIdx(std::vector<uint32_t>(array.dims.begin(), array.dims.end()), array.data);
    Write(std::string(name) + ".gz", Gzip(file));
    fs::remove(Path(name));
  }
  const Split gz = LoadIdxDataset(Dir());
  EXPECT_EQ(gz.train.x, plain.train.x);
  EXPECT_EQ(gz.train.labels, plain.train.labels);
  EXPECT_EQ(gz.test.x, plain.test.x);
  EXPECT_EQ(gz.test.labels, plain.test.labels);
  EXPECT_EQ(gz.train.image_rows, 3);
  EXPECT_EQ(gz.train.image_cols, 4);
  // A plain file wins over its .gz; gzip data under a plain name is recognised by its magic.
  Write("train-labels-idx1-ubyte", Gzip(MakeLabels(20, 4, 2)));
  EXPECT_EQ(LoadIdxDataset(Dir()).train.labels[0], 2);
  // Two concatenated members are one file, as gunzip reads them.
  const Bytes labels = MakeLabels(20, 4, 3);
  Bytes two = Gzip(Bytes(labels.begin(), labels.begin() + 10));
  const Bytes second = Gzip(Bytes(labels.begin() + 10, labels.end()));
  two.insert(two.end(), second.begin(), second.end());
  Write("train-labels-idx1-ubyte", two);
  EXPECT_EQ(LoadIdxDataset(Dir()).train.labels[0], 3);
}

TEST_F(IdxTest, BadGzipFilesGiveOneLineErrors) {
  WriteValidSet();
  fs::remove(Path("train-labels-idx1-ubyte"));
  const Bytes good = Gzip(MakeLabels(20, 4));
  // Cut short: inside the deflate data, and inside the 8-byte trailer.
  Write("train-labels-idx1-ubyte.gz", Bytes(good.begin(), good.begin() + good.size() / 2));
  EXPECT_CONTAINS(LoadError(), "train-labels-idx1-ubyte.gz: truncated gzip data");
  Write("train-labels-idx1-ubyte.gz", Bytes(good.begin(), good.end() - 3));
  EXPECT_CONTAINS(LoadError(), "train-labels-idx1-ubyte.gz: truncated gzip data");
  // A flipped payload byte fails the CRC or the deflate stream.
  Bytes flipped = good;
  flipped[flipped.size() - 12] ^= 0x55;
  Write("train-labels-idx1-ubyte.gz", flipped);
  EXPECT_CONTAINS(LoadError(), "train-labels-idx1-ubyte.gz: corrupt gzip data");
  Write("train-labels-idx1-ubyte.gz", {0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00});
  EXPECT_CONTAINS(LoadError(), "train-labels-idx1-ubyte.gz: truncated gzip data");
  Bytes garbage = good;
  garbage.push_back(0x42);
  garbage.push_back(0x42);
  Write("train-labels-idx1-ubyte.gz", garbage);
  EXPECT_CONTAINS(LoadError(), "trailing garbage after the gzip data");
  // A sound gzip of a bad IDX file: the IDX error, named after the .gz file.
  Write("train-labels-idx1-ubyte.gz", Gzip({0x50, 0x4B, 0x03, 0x04, 0, 0, 0, 0}));
  EXPECT_CONTAINS(LoadError(), "train-labels-idx1-ubyte.gz: bad magic 0x50 0x4B");
  Write("train-labels-idx1-ubyte.gz", Gzip(MakeIdx({20}, Bytes(19, 1))));
  EXPECT_CONTAINS(LoadError(), "truncated payload: expected 20 bytes, found 19");
  // Decompression is bounded.
  EXPECT_THROW(Gunzip(Gzip(Bytes(100000, 0)), "bomb", 1000), std::runtime_error);
  try {
    Gunzip(Gzip(Bytes(100000, 0)), "bomb", 1000);
  } catch (const std::runtime_error& error) {
    EXPECT_CONTAINS(error.what(), "bomb: decompresses to more than 1000 bytes");
  }
}

// The header's declared size is checked before the data is read: a gzip file declaring more
// than it can hold (deflate packs at most about 1032:1) or more than 2 GiB is refused without
// inflating it; a device (no size) is refused; a plain file's size is checked before reading.
TEST_F(IdxTest, DeclaredSizesAreCheckedBeforeReading) {
  // 2^31 - 1 labels declared, 1 MiB of them present: once decompressed whole before the check.
  Bytes labels = MakeIdx({1}, Bytes(1, 0));
  labels[4] = 0x7F, labels[5] = labels[6] = labels[7] = 0xFF;
  labels.pop_back();
  labels.resize(labels.size() + (size_t{1} << 20), 0);
  Write("big.gz", Gzip(labels));
  try {
    ReadIdx(Path("big.gz"));
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_CONTAINS(error.what(),
                    "big.gz: the header declares 2147483647 payload bytes: more "
                    "than a ");
    EXPECT_CONTAINS(error.what(), "-byte gzip file can hold");
  }
  Bytes over = MakeIdx({2, 1}, Bytes(2, 0));
  over[4] = over[8] = 0xFF;  // 0xFF000000 squared: far above 2 GiB
  Write("over.gz", Gzip(over));
  try {
    ReadIdx(Path("over.gz"));
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_CONTAINS(error.what(), "more than the limit of 2147483648");
  }
  // A plain file: the size is checked before anything past the header is read.
  Write("short", MakeIdx({20}, Bytes(19, 1)));
  try {
    ReadIdx(Path("short"));
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_CONTAINS(error.what(), "short: truncated payload: expected 20 bytes, found 19");
  }
  // A gzip file of several members, read across them.
  const Bytes rest = Gzip({3, 4});
  Bytes joined = Gzip(Bytes{0, 0, 8, 1, 0, 0, 0, 4, 1, 2});
  joined.insert(joined.end(), rest.begin(), rest.end());
  Write("members.gz", joined);
  EXPECT_EQ(ReadIdx(Path("members.gz")).data, (Bytes{1, 2, 3, 4}));
}

// One class (every label 0) was trained as "2 classes" to 100%; two samples failed later with a
// message that did not name the 80/20 split.
TEST_F(IdxTest, OneClassOrAnEmptySplitIsRefused) {
  Write("train-images-idx3-ubyte", MakeImages(20, 3, 4));
  Write("train-labels-idx1-ubyte", MakeLabels(20, 1));
  EXPECT_CONTAINS(LoadError(), "train-labels-idx1-ubyte: every label is 0: a classifier needs 2");
  Write("train-images-idx3-ubyte", MakeImages(2, 3, 4));
  Write("train-labels-idx1-ubyte", MakeLabels(2, 2));
  EXPECT_CONTAINS(LoadError(),
                  "the 80/20 split of 2 samples (no t10k-* test files) leaves no "
                  "test sample");
}

TEST_F(IdxTest, NamedDataSet) {
  EXPECT_EQ(DataDirectory("some/dir"), "some/dir");
  // fashion-mnist is the installed package's directory, or a one-line error naming the package.
  try {
    EXPECT_EQ(DataDirectory("fashion-mnist"), kFashionMnistDir);
    EXPECT_TRUE(fs::is_directory(kFashionMnistDir));
  } catch (const std::runtime_error& error) {
    EXPECT_FALSE(fs::is_directory(kFashionMnistDir));
    EXPECT_CONTAINS(error.what(), "fashion-mnist: not installed");
    EXPECT_CONTAINS(error.what(), kFashionMnistPackage);
  }
}

TEST_F(IdxTest, BadMagicAndType) {
  WriteValidSet();
  Write("train-images-idx3-ubyte", Bytes{0x50, 0x4B, 0x03, 0x04, 0, 0, 0, 0});
  EXPECT_CONTAINS(LoadError(), "train-images-idx3-ubyte: bad magic 0x50 0x4B");
  Write("train-images-idx3-ubyte", MakeIdx({1, 1, 1}, {0, 0, 0, 0}, 0x0D));
  EXPECT_CONTAINS(LoadError(), "unsupported type code 0x0D (float32)");
  Write("train-images-idx3-ubyte", MakeIdx({1, 1, 1}, {0}, 0x42));
  EXPECT_CONTAINS(LoadError(), "unsupported type code 0x42");
  Write("train-images-idx3-ubyte", Bytes{0, 0});
  EXPECT_CONTAINS(LoadError(), "too short for an IDX header");
}

TEST_F(IdxTest, WrongDimensionCounts) {
  WriteValidSet();
  Write("train-images-idx3-ubyte", MakeIdx({20, 12}, Bytes(240, 1)));
  EXPECT_CONTAINS(LoadError(),
                  "train-images-idx3-ubyte: images must be 3-D (count x rows x cols), "
                  "found 2-D");
  WriteValidSet();
  Write("t10k-labels-idx1-ubyte", MakeIdx({10, 1}, Bytes(10, 1)));
  EXPECT_CONTAINS(LoadError(), "t10k-labels-idx1-ubyte: labels must be 1-D (count), found 2-D");
  Write("t10k-labels-idx1-ubyte", Bytes{0, 0, 8, 0});
  EXPECT_CONTAINS(LoadError(), "bad dimension count 0");
  Write("t10k-labels-idx1-ubyte", Bytes{0, 0, 8, 3, 0, 0, 0, 1});
  EXPECT_CONTAINS(LoadError(), "truncated header: 3 dimensions need 16 header bytes, found 8");
}

TEST_F(IdxTest, TruncatedAndOversizedPayloads) {
  WriteValidSet();
  Write("train-labels-idx1-ubyte", MakeIdx({20}, Bytes(19, 1)));
  EXPECT_CONTAINS(LoadError(),
                  "train-labels-idx1-ubyte: truncated payload: expected 20 bytes, found 19");
  Write("train-labels-idx1-ubyte", MakeIdx({20}, Bytes(21, 1)));
  EXPECT_CONTAINS(LoadError(),
                  "train-labels-idx1-ubyte: oversized payload: expected 20 bytes, found 21");
  // Dimensions whose product overflows 64 bits.
  Write("train-labels-idx1-ubyte", MakeIdx({0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}, Bytes(5, 1)));
  EXPECT_CONTAINS(LoadError(), "truncated payload: the dimensions ask for more than 2^64 bytes");
}

TEST_F(IdxTest, CountMismatchAndEmptySets) {
  WriteValidSet();
  Write("t10k-labels-idx1-ubyte", MakeLabels(9, 4));
  EXPECT_CONTAINS(LoadError(), "t10k-labels-idx1-ubyte: 9 labels for 10 images");
  EXPECT_CONTAINS(LoadError(), "counts differ");
  WriteValidSet();
  Write("train-images-idx3-ubyte", MakeIdx({0, 3, 4}, {}));
  Write("train-labels-idx1-ubyte", MakeIdx({0}, {}));
  EXPECT_CONTAINS(LoadError(), "train-images-idx3-ubyte: empty set");
  Write("train-images-idx3-ubyte", MakeIdx({20, 0, 4}, {}));
  Write("train-labels-idx1-ubyte", MakeLabels(20, 4));
  EXPECT_CONTAINS(LoadError(), "0 pixels");
  WriteValidSet();
  Write("t10k-images-idx3-ubyte", MakeImages(10, 4, 3));
  EXPECT_CONTAINS(LoadError(), "images are 4x3 but the training images");
}

// Parses bytes; only std::runtime_error may come out, and a success must be self-consistent.
void ParseMustNotCrash(const Bytes& bytes) {
  try {
    const IdxArray array = ParseIdx(bytes, "fuzz");
    size_t count = 1;
    for (const size_t dim : array.dims) count *= dim;
    ASSERT_EQ(array.data.size(), count);
  } catch (const std::runtime_error& error) {
    ASSERT_EQ(std::string(error.what()).rfind("fuzz: ", 0), 0u) << error.what();
  }
}

TEST_F(IdxTest, FuzzedBytesNeverCrash) {
  Rng rng(2024);
  const Bytes valid = MakeImages(3, 4, 5);
  // Every truncation of a valid file.
  for (size_t length = 0; length <= valid.size(); ++length) {
    ParseMustNotCrash(Bytes(valid.begin(), valid.begin() + length));
  }
  // Every truncation and some byte flips of a gzip-compressed valid file.
  const Bytes gz = Gzip(valid);
  for (size_t length = 0; length <= gz.size(); ++length) {
    ParseMustNotCrash(Bytes(gz.begin(), gz.begin() + length));
  }
  for (int round = 0; round < 2000; ++round) {
    Bytes bytes = gz;
    bytes[rng.Below(bytes.size())] = static_cast<uint8_t>(rng.Below(256));
    ParseMustNotCrash(bytes);
  }
  // Random bytes behind a valid magic and type (so the dims parsing is reached), and pure noise.
  for (int round = 0; round < 5000; ++round) {
    Bytes bytes(rng.Below(64));
    for (uint8_t& byte : bytes) byte = static_cast<uint8_t>(rng.Below(256));
    if (round % 2 == 0 && bytes.size() >= 4) {
      bytes[0] = bytes[1] = 0;
      bytes[2] = 0x08;
      bytes[3] = static_cast<uint8_t>(rng.Below(5));
    }
    ParseMustNotCrash(bytes);
  }
  // Random byte flips in a valid file.
  for (int round = 0; round < 5000; ++round) {
    Bytes bytes = valid;
    const int flips = 1 + static_cast<int>(rng.Below(4));
    for (int f = 0; f < flips; ++f) {
      // Mostly the header, where the structure is.
      const size_t at = rng.Below(2) ? rng.Below(16) : rng.Below(bytes.size());
      bytes[at] = static_cast<uint8_t>(rng.Below(256));
    }
    ParseMustNotCrash(bytes);
  }
  // A few mutated files through the whole loader too.
  WriteValidSet();
  for (int round = 0; round < 50; ++round) {
    Bytes bytes = MakeLabels(20, 4);
    bytes[rng.Below(bytes.size())] = static_cast<uint8_t>(rng.Below(256));
    bytes.resize(rng.Below(bytes.size() + 4));
    Write("train-labels-idx1-ubyte", bytes);
    try {
      const Split split = LoadIdxDataset(Dir());
      EXPECT_NO_THROW(ValidateDataset(split.train));
      EXPECT_NO_THROW(ValidateDataset(split.test));
    } catch (const std::runtime_error&) {
    }
  }
}

}  // namespace
}  // namespace mxu::train
