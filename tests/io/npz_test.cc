#include "io/npz.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/scratch_dir.h"

namespace mxu::host {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;
using Dtype = NpyArray::Dtype;

#define EXPECT_CONTAINS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

// Scratch files live in a per-test folder under the build tree (CMake defines the root), so
// parallel CTest runs never share a file. The folder is kept when a test fails, for inspection.
class NpzTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& file) const { return scratch_.Path(file); }

  mxu::testing::ScratchDir scratch_{MXU_NPZ_TEST_TMPDIR};
};

Bytes FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteBytes(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

// CRC-32 bit by bit: an implementation independent of the table-driven one under test.
uint32_t BitwiseCrc32(const Bytes& data) {
  uint32_t crc = 0xFFFFFFFFu;
  for (const uint8_t byte : data) {
    crc ^= byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
  }
  return ~crc;
}

void Put(uint64_t value, size_t size, Bytes* out) {
  for (size_t i = 0; i < size; ++i) out->push_back(static_cast<uint8_t>(value >> (8 * i)));
}

uint32_t Get32(const Bytes& bytes, size_t at) {
  return bytes[at] | bytes[at + 1] << 8 | bytes[at + 2] << 16 | uint32_t{bytes[at + 3]} << 24;
}

// One entry of a hand-built archive: what numpy.savez, numpy.savez_compressed or a damaged or
// hostile file might hold.
struct ZipEntry {
  std::string name;
  Bytes data;
  uint16_t method = 0;
  uint16_t flags = 0;
  bool zip64_local = false;  // sizes in a zip64 extra field of the local header, as numpy.savez
  // Where the central directory says the local header is; the entry's own when unset.
  int64_t local_offset = -1;
  bool write_local = true;  // false: only a central directory record (see local_offset)
};

// A ZIP archive of entries, each local header followed by its data, then the central directory
// and the end record with `comment`.
Bytes Zip(const std::vector<ZipEntry>& entries, const std::string& comment = "") {
  Bytes out, central;
  for (const ZipEntry& e : entries) {
    const uint32_t crc = BitwiseCrc32(e.data);
    const size_t offset = out.size();
    const auto common = [&](Bytes* b, bool local) {
      Put(local && e.zip64_local ? 45 : 20, 2, b);
      Put(e.flags, 2, b);
      Put(e.method, 2, b);
      Put(0, 2, b);
      Put(0x21, 2, b);
      Put(crc, 4, b);
      const uint64_t size = local && e.zip64_local ? 0xFFFFFFFFu : e.data.size();
      Put(size, 4, b);
      Put(size, 4, b);
      Put(e.name.size(), 2, b);
      Put(local && e.zip64_local ? 20 : 0, 2, b);
    };
    if (e.write_local) {
      Put(0x04034b50, 4, &out);
      common(&out, true);
      out.insert(out.end(), e.name.begin(), e.name.end());
      if (e.zip64_local) {
        Put(1, 2, &out);
        Put(16, 2, &out);
        Put(e.data.size(), 8, &out);
        Put(e.data.size(), 8, &out);
      }
      out.insert(out.end(), e.data.begin(), e.data.end());
    }
    Put(0x02014b50, 4, &central);
    Put(0x031e, 2, &central);
    common(&central, false);
    Put(0, 2, &central);
    Put(0, 2, &central);
    Put(0, 2, &central);
    Put(0, 4, &central);
    Put(e.local_offset >= 0 ? static_cast<uint64_t>(e.local_offset) : offset, 4, &central);
    central.insert(central.end(), e.name.begin(), e.name.end());
  }
  const size_t central_offset = out.size();
  out.insert(out.end(), central.begin(), central.end());
  Put(0x06054b50, 4, &out);
  Put(0, 2, &out);
  Put(0, 2, &out);
  Put(entries.size(), 2, &out);
  Put(entries.size(), 2, &out);
  Put(central.size(), 4, &out);
  Put(central_offset, 4, &out);
  Put(comment.size(), 2, &out);
  out.insert(out.end(), comment.begin(), comment.end());
  return out;
}

// The error ParseNpz gives for `bytes`, checked to be one line that starts with the name.
std::string ParseError(const Bytes& bytes) {
  try {
    ParseNpz(bytes, "A.npz");
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("A.npz: ", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    return message;
  }
  ADD_FAILURE() << "ParseNpz accepted the bytes";
  return "";
}

// A checkpoint-like set of arrays, one of each dtype.
NpzEntries SampleArrays() {
  return {
      {"w1", MakeNpy(std::vector<float>{1.5f, -2.0f, 0.0f, -0.0f, 3.25f, 1e-30f}, {2, 3})},
      {"b1", MakeNpy(std::vector<double>{0.1, -1e300}, {2})},
      {"bf16", MakeNpy(std::vector<uint16_t>{0x3F80, 0xFFFF, 0}, {3, 1})},
      {"step", MakeNpy(std::vector<uint64_t>{0xFFFFFFFFFFFFFFFFu}, {})},
      {"labels", MakeNpy(std::vector<int32_t>{-1, 0, 7, INT32_MIN}, {4})},
      {"seed", MakeNpy(std::vector<int64_t>{-42, INT64_MAX}, {2})},
      {"optimizer", MakeNpyString("adam")},
      {"layers", MakeNpyStrings({"dense", "relu", ""})},
      {"empty", MakeNpy(std::vector<float>{}, {0, 4})},
  };
}

// A small archive for the truncation and corruption sweeps.
Bytes SmallArchive(const std::string& path) {
  WriteNpz(path, {{"a", MakeNpy(std::vector<float>{1, 2, 3}, {3})},
                  {"n", MakeNpyString("xy")},
                  {"s", MakeNpy(std::vector<uint64_t>{5}, {})}});
  return FileBytes(path);
}

// ---- Round trips and the bytes written ----

TEST_F(NpzTest, EveryDtypeRoundTrips) {
  const NpzEntries arrays = SampleArrays();
  WriteNpz(Path("ckpt.npz"), arrays);
  const NpzArchive archive = ReadNpz(Path("ckpt.npz"));
  EXPECT_EQ(archive.file(), Path("ckpt.npz"));
  ASSERT_EQ(archive.arrays().size(), arrays.size());
  std::vector<std::string> names;
  for (size_t i = 0; i < arrays.size(); ++i) {
    const auto& [name, array] = archive.arrays()[i];
    names.push_back(arrays[i].first);
    EXPECT_EQ(name, arrays[i].first);
    EXPECT_EQ(array.dtype, arrays[i].second.dtype) << name;
    EXPECT_EQ(array.string_length, arrays[i].second.string_length) << name;
    EXPECT_EQ(array.shape, arrays[i].second.shape) << name;
    EXPECT_EQ(array.data, arrays[i].second.data) << name;
  }
  EXPECT_EQ(archive.names(), names);  // archive order, the order given
  EXPECT_TRUE(archive.Has("step"));
  EXPECT_FALSE(archive.Has("step.npy"));
  EXPECT_EQ(archive.Get("step").AsUint64(), std::vector<uint64_t>{0xFFFFFFFFFFFFFFFFu});
  EXPECT_EQ(archive.Get("seed").AsInt64(), (std::vector<int64_t>{-42, INT64_MAX}));
  EXPECT_EQ(archive.Get("labels").AsInt32(), (std::vector<int32_t>{-1, 0, 7, INT32_MIN}));
  EXPECT_EQ(archive.Get("optimizer").AsString(), "adam");
  EXPECT_EQ(archive.Get("layers").AsStrings(), (std::vector<std::string>{"dense", "relu", ""}));
  EXPECT_EQ(archive.Get("b1").AsFloat64(), (std::vector<double>{0.1, -1e300}));
  EXPECT_EQ(archive.Get("empty").elements(), 0u);
  // The same bytes parse the same.
  EXPECT_EQ(ParseNpz(FileBytes(Path("ckpt.npz")), "x").names(), names);
}

TEST_F(NpzTest, WritesStoredEntriesWithCentralDirectory) {
  const NpyArray w = MakeNpy(std::vector<float>{1, 2}, {2});
  const NpyArray tag = MakeNpyString("v1");
  WriteNpz(Path("a.npz"), {{"w", w}, {"tag", tag}});
  const Bytes bytes = FileBytes(Path("a.npz"));
  const Bytes w_npy = SerializeNpy(w), tag_npy = SerializeNpy(tag);
  // Local header of w.npy at 0: signature, version 2.0, no flags, stored, CRC, sizes, name.
  ASSERT_GE(bytes.size(), 30u + 5 + w_npy.size());
  EXPECT_EQ(Get32(bytes, 0), 0x04034b50u);
  EXPECT_EQ(bytes[4], 20);
  EXPECT_EQ(bytes[6] | bytes[7] << 8, 0);  // flags
  EXPECT_EQ(bytes[8] | bytes[9] << 8, 0);  // method
  EXPECT_EQ(Get32(bytes, 14), BitwiseCrc32(w_npy));
  EXPECT_EQ(Get32(bytes, 18), w_npy.size());
  EXPECT_EQ(Get32(bytes, 22), w_npy.size());
  EXPECT_EQ(bytes[26], 5);  // "w.npy"
  EXPECT_EQ(bytes[28], 0);  // no extra field
  EXPECT_EQ(std::string(bytes.begin() + 30, bytes.begin() + 35), "w.npy");
  EXPECT_TRUE(std::equal(w_npy.begin(), w_npy.end(), bytes.begin() + 35));
  const size_t second = 35 + w_npy.size();
  EXPECT_EQ(Get32(bytes, second), 0x04034b50u);
  EXPECT_EQ(Get32(bytes, second + 14), BitwiseCrc32(tag_npy));
  // The end record: 2 entries, the central directory right before it, no comment.
  const size_t central = second + 30 + 7 + tag_npy.size();
  const size_t end = bytes.size() - 22;
  EXPECT_EQ(Get32(bytes, end), 0x06054b50u);
  EXPECT_EQ(bytes[end + 8], 2);
  EXPECT_EQ(bytes[end + 10], 2);
  EXPECT_EQ(Get32(bytes, end + 12), end - central);
  EXPECT_EQ(Get32(bytes, end + 16), central);
  EXPECT_EQ(bytes[end + 20] | bytes[end + 21] << 8, 0);
  EXPECT_EQ(Get32(bytes, central), 0x02014b50u);
  EXPECT_EQ(Get32(bytes, central + 42), 0u);  // w.npy's local header offset
  EXPECT_EQ(end - central, 2 * 46u + 5 + 7);
  // Writing is deterministic (a fixed timestamp).
  WriteNpz(Path("b.npz"), {{"w", w}, {"tag", tag}});
  EXPECT_EQ(FileBytes(Path("b.npz")), bytes);
}

TEST_F(NpzTest, EmptyArchiveRoundTrips) {
  WriteNpz(Path("e.npz"), {});
  EXPECT_EQ(FileBytes(Path("e.npz")).size(), 22u);
  EXPECT_TRUE(ReadNpz(Path("e.npz")).arrays().empty());
}

TEST_F(NpzTest, ReadsWhatNumpySavezWrites) {
  // numpy.savez forces zip64 local headers (sizes 0xFFFFFFFF, the real ones in an extra field),
  // version 4.5; an archive comment is allowed too.
  const Bytes npy = SerializeNpy(MakeNpy(std::vector<int32_t>{3, 4}, {2}));
  ZipEntry entry{"x.npy", npy};
  entry.zip64_local = true;
  const NpzArchive a = ParseNpz(Zip({entry}, "a comment"), "A.npz");
  EXPECT_EQ(a.Get("x").AsInt32(), (std::vector<int32_t>{3, 4}));
  // A UTF-8 name flag is fine.
  ZipEntry utf8{"y.npy", npy};
  utf8.flags = 0x0800;
  EXPECT_TRUE(ParseNpz(Zip({utf8}), "A.npz").Has("y"));
}

TEST_F(NpzTest, WritesAndReadsUpTo65535Entries) {
  NpzEntries arrays;
  const NpyArray one = MakeNpy(std::vector<uint16_t>{1}, {});
  for (size_t i = 0; i < 65535; ++i) arrays.emplace_back(std::to_string(i), one);
  WriteNpz(Path("max.npz"), arrays);
  const NpzArchive archive = ReadNpz(Path("max.npz"));
  EXPECT_EQ(archive.arrays().size(), 65535u);
  EXPECT_EQ(archive.arrays().back().first, "65534");
  arrays.emplace_back("65535", one);
  try {
    WriteNpz(Path("over.npz"), arrays);
    FAIL() << "wrote 65536 entries";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), Path("over.npz") +
                                         ": 65536 arrays are more than the 65535 entries of a ZIP "
                                         "archive without zip64");
  }
  EXPECT_FALSE(fs::exists(Path("over.npz")));
}

// ---- Names ----

TEST_F(NpzTest, RefusesBadNamesBeforeWriting) {
  const NpyArray a = MakeNpy(std::vector<float>{1}, {1});
  const std::pair<NpzEntries, std::string> cases[] = {
      {{{"", a}}, ": an array name is empty"},
      {{{"a/b", a}}, ": array name 'a/b' contains '/'"},
      {{{"x", a}, {"tab\there", a}}, ": array name 'tab\\x09here' is not printable ASCII"},
      {{{"caf\xc3\xa9", a}}, "is not printable ASCII"},
      {{{"w", a}, {"b", a}, {"w", a}}, ": array name 'w' appears twice"},
  };
  for (const auto& [arrays, part] : cases) {
    try {
      WriteNpz(Path("n.npz"), arrays);
      ADD_FAILURE() << "wrote " << part;
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind(Path("n.npz") + ": ", 0), 0u) << e.what();
      EXPECT_CONTAINS(std::string(e.what()), part);
    }
    EXPECT_FALSE(fs::exists(Path("n.npz"))) << part;
  }
}

TEST_F(NpzTest, GetNamesTheFileAndTheMissingArray) {
  WriteNpz(Path("g.npz"), {{"w", MakeNpy(std::vector<float>{1}, {1})}});
  const NpzArchive archive = ReadNpz(Path("g.npz"));
  try {
    archive.Get("bias");
    FAIL() << "found a missing array";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), Path("g.npz") + ": no array 'bias'");
  }
}

TEST_F(NpzTest, RefusesEntriesThatAreNotNamedArraysOrAppearTwice) {
  const Bytes npy = SerializeNpy(MakeNpy(std::vector<float>{1}, {1}));
  EXPECT_EQ(ParseError(Zip({{"w.npy", npy}, {"w.npy", npy}})),
            "A.npz: entry 'w.npy' appears twice");
  EXPECT_EQ(ParseError(Zip({{"w.txt", npy}})),
            "A.npz: entry 'w.txt' is not an array (expected a name such as 'w.npy')");
  EXPECT_CONTAINS(ParseError(Zip({{".npy", npy}})), "is not an array");
  EXPECT_CONTAINS(ParseError(Zip({{"w", npy}})), "is not an array");
}

// ---- Refused archives ----

TEST_F(NpzTest, RefusesCompressedEntries) {
  // numpy.savez_compressed: method 8 (deflate). The data need not be real deflate: the method is
  // refused before the data is looked at.
  ZipEntry entry{"w.npy", {0x63, 0x60, 0x00, 0x00}};
  entry.method = 8;
  EXPECT_EQ(ParseError(Zip({entry})),
            "A.npz: entry 'w.npy' is compressed (method 8): only numpy.savez archives are read, "
            "not numpy.savez_compressed");
  entry.method = 14;  // LZMA
  EXPECT_CONTAINS(ParseError(Zip({entry})), "is compressed (method 14)");
}

TEST_F(NpzTest, RefusesEncryptionDataDescriptorsZip64AndMultiDisk) {
  const Bytes npy = SerializeNpy(MakeNpy(std::vector<float>{1}, {1}));
  ZipEntry encrypted{"w.npy", npy};
  encrypted.flags = 1;
  EXPECT_EQ(ParseError(Zip({encrypted})), "A.npz: entry 'w.npy' is encrypted");
  ZipEntry descriptor{"w.npy", npy};
  descriptor.flags = 8;
  EXPECT_CONTAINS(ParseError(Zip({descriptor})), "data descriptor");
  ZipEntry odd_flags{"w.npy", npy};
  odd_flags.flags = 0x0040;
  EXPECT_EQ(ParseError(Zip({odd_flags})), "A.npz: entry 'w.npy' has unsupported flags 0x0040");

  // A zip64 end-of-central-directory locator right before the end record.
  Bytes zip64 = Zip({{"w.npy", npy}});
  const size_t end = zip64.size() - 22;
  Bytes locator;
  Put(0x07064b50, 4, &locator);
  Put(0, 4, &locator);
  Put(0, 8, &locator);
  Put(1, 4, &locator);
  zip64.insert(zip64.begin() + static_cast<std::ptrdiff_t>(end), locator.begin(), locator.end());
  EXPECT_CONTAINS(ParseError(zip64), "a zip64 archive");
  Bytes marker = Zip({{"w.npy", npy}});
  for (int i = 0; i < 4; ++i) marker[marker.size() - 22 + 16 + i] = 0xFF;  // central offset
  EXPECT_CONTAINS(ParseError(marker), "a zip64 archive");

  Bytes multi = Zip({{"w.npy", npy}});
  multi[multi.size() - 22 + 4] = 1;  // this disk's number
  EXPECT_EQ(ParseError(multi), "A.npz: a multi-disk ZIP archive, which is not supported");
}

TEST_F(NpzTest, RefusesOtherFiles) {
  EXPECT_EQ(ParseError({}), "A.npz: not an .npz archive: 0 bytes are too few for a ZIP archive");
  EXPECT_EQ(ParseError(SerializeNpy(MakeNpy(std::vector<float>{1}, {1}))),
            "A.npz: a .npy file, not an .npz archive");
  EXPECT_EQ(ParseError(Bytes(100, 'x')),
            "A.npz: not an .npz archive: no ZIP end-of-central-directory record");
  // A comment whose length disagrees with the file: no valid end record.
  Bytes comment = Zip({}, "abc");
  comment.pop_back();
  EXPECT_CONTAINS(ParseError(comment), "no ZIP end-of-central-directory record");
}

TEST_F(NpzTest, RefusesCrcMismatch) {
  Bytes bytes = SmallArchive(Path("s.npz"));
  bytes[30 + 5 + 128] ^= 0x01;  // the first float of a.npy
  EXPECT_CONTAINS(ParseError(bytes), "A.npz: entry 'a.npy': CRC-32 mismatch (stored 0x");
}

TEST_F(NpzTest, RefusesOverlappingEntries) {
  // b.npy's local header and data lie inside a.npy's data: each entry is well-formed alone.
  const Bytes inner_npy = SerializeNpy(MakeNpy(std::vector<float>{7}, {1}));
  const Bytes inner_zip = Zip({{"b.npy", inner_npy}});
  const Bytes inner(inner_zip.begin(), inner_zip.begin() + 30 + 5 + inner_npy.size());
  ZipEntry outer{"a.npy", inner};
  ZipEntry alias{"b.npy", {}};
  alias.data = inner_npy;  // for the CRC and sizes of its central record
  alias.write_local = false;
  alias.local_offset = 30 + 5;
  EXPECT_EQ(ParseError(Zip({outer, alias})), "A.npz: entries 'a.npy' and 'b.npy' overlap");
  // Two central records of one local header overlap too.
  ZipEntry twin{"b.npy", inner_npy};
  twin.write_local = false;
  twin.local_offset = 0;
  EXPECT_CONTAINS(ParseError(Zip({{"b.npy", inner_npy}, twin})), "overlap");
}

TEST_F(NpzTest, EntryErrorsNameTheEntry) {
  // Well-formed ZIP, malformed .npy inside.
  Bytes npy = SerializeNpy(MakeNpy(std::vector<float>{1, 2}, {2}));
  npy.pop_back();
  EXPECT_EQ(ParseError(Zip({{"w.npy", npy}})),
            "A.npz: entry 'w.npy': truncated data: expected 8 bytes, found 7");
  EXPECT_EQ(ParseError(Zip({{"w.npy", {'P', 'K'}}})),
            "A.npz: entry 'w.npy': not a .npy file (missing \\x93NUMPY magic)");
  // A name with a control character is quoted escaped.
  EXPECT_EQ(ParseError(Zip({{"a\nb.txt", npy}})),
            "A.npz: entry 'a\\x0ab.txt' is not an array (expected a name such as 'w.npy')");
}

// Every proper prefix of an archive is refused, with a one-line message (ParseError checks).
TEST_F(NpzTest, RefusesTruncationAtEveryLength) {
  const Bytes bytes = SmallArchive(Path("s.npz"));
  ASSERT_GT(bytes.size(), 400u);
  for (size_t size = 0; size < bytes.size(); ++size) {
    const Bytes prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(size));
    EXPECT_FALSE(ParseError(prefix).empty()) << size;
  }
  // And from a file.
  WriteBytes(Path("t.npz"), Bytes(bytes.begin(), bytes.end() - 1));
  EXPECT_THROW(ReadNpz(Path("t.npz")), std::runtime_error);
}

// Corrupt archives either parse or throw std::runtime_error with a one-line message; run under
// AddressSanitizer this also shows that nothing is read out of bounds.
TEST_F(NpzTest, SurvivesByteFlips) {
  // Ours, and one as numpy.savez writes it (zip64 local extra field) with an archive comment.
  ZipEntry numpy_style{"n.npy", SerializeNpy(MakeNpyStrings({"ab", "c"}))};
  numpy_style.zip64_local = true;
  const Bytes archives[] = {SmallArchive(Path("s.npz")), Zip({numpy_style}, "comment")};
  size_t refused = 0, parsed = 0;
  const auto attempt = [&](const Bytes& damaged, const std::string& what) {
    try {
      const NpzArchive archive = ParseNpz(damaged, "A.npz");
      for (const auto& [name, array] : archive.arrays()) EXPECT_FALSE(name.empty()) << what;
      ++parsed;
    } catch (const std::runtime_error& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("A.npz: ", 0), 0u) << what << ": " << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << what << ": " << message;
      ++refused;
    }
  };
  std::mt19937 rng(20240601);
  for (const Bytes& bytes : archives) {
    for (size_t i = 0; i < bytes.size(); ++i) {
      for (const uint8_t mask : {0x01, 0x10, 0x80, 0xFF}) {
        Bytes damaged = bytes;
        damaged[i] ^= mask;
        attempt(damaged, "byte " + std::to_string(i) + " ^ " + std::to_string(mask));
      }
    }
    for (int trial = 0; trial < 10000; ++trial) {
      Bytes damaged = bytes;
      const int flips = 1 + static_cast<int>(rng() % 8);
      for (int f = 0; f < flips; ++f) damaged[rng() % damaged.size()] = static_cast<uint8_t>(rng());
      if (rng() % 4 == 0) damaged.resize(rng() % damaged.size());
      attempt(damaged, "trial " + std::to_string(trial));
    }
  }
  // Timestamps, versions, attributes and the comment's text are not checked; nearly all else is.
  EXPECT_GT(refused, 10 * parsed);
  EXPECT_GT(parsed, 0u);
}

// ---- Files ----

TEST_F(NpzTest, ReadAndWriteErrorsNameThePath) {
  const NpzEntries arrays = {{"w", MakeNpy(std::vector<float>{1}, {1})}};
  try {
    ReadNpz(Path("missing.npz"));
    FAIL() << "read a missing file";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(Path("missing.npz") + ": cannot open for reading: ", 0),
              0u)
        << e.what();
  }
  try {
    ReadNpz(scratch_.dir().string());
    FAIL() << "read a directory";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), scratch_.dir().string() + ": a directory, not an .npz file");
  }
  try {
    WriteNpz(Path("no/such/dir/a.npz"), arrays);
    FAIL() << "wrote into a missing directory";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(
        std::string(e.what()).rfind(Path("no/such/dir/a.npz") + ": cannot open for writing: ", 0),
        0u)
        << e.what();
  }
  // An array that cannot be serialized, after one that was: the partial file is removed.
  NpyArray bad = MakeNpy(std::vector<float>{1, 2}, {2});
  bad.data.pop_back();
  try {
    WriteNpz(Path("p.npz"), {arrays[0], {"bad", bad}});
    FAIL() << "wrote a 7-byte float32 pair";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(
        std::string(e.what()),
        Path("p.npz") + ": array 'bad': 7 data bytes do not match shape (2,) of float32 '<f4'");
  }
  EXPECT_FALSE(fs::exists(Path("p.npz")));
}

#ifdef __linux__
TEST_F(NpzTest, FailedWritesAreReported) {
  // /dev/full accepts the open and fails the write (ENOSPC) when the buffer is flushed: a small
  // archive fails at the final flush, a large one in the middle.
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  for (const size_t count : {size_t{1}, size_t{1} << 20}) {
    try {
      WriteNpz("/dev/full", {{"w", MakeNpy(std::vector<float>(count, 1.0f), {count})}});
      FAIL() << "wrote to /dev/full";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("/dev/full: write failed: ", 0), 0u) << e.what();
    }
  }
  EXPECT_TRUE(fs::exists("/dev/full")) << "only regular files are removed after a failure";
}
#endif

// ---- NumPy interoperability ----

struct PythonResult {
  int exit_code = -1;
  std::string output;
};

// Runs Debian's python3 (CMake's MXU_NPZ_TEST_PYTHON) on a script with arguments; stdout and
// stderr together.
PythonResult RunPython(const std::string& script_path, const std::string& args) {
  PythonResult result;
  const std::string command =
      std::string(MXU_NPZ_TEST_PYTHON) + " " + script_path + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  while (fgets(buffer, sizeof buffer, pipe) != nullptr) result.output += buffer;
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

bool HaveNumpy() {
  const std::string command = std::string(MXU_NPZ_TEST_PYTHON) + " -c 'import numpy' 2>/dev/null";
  return std::system(command.c_str()) == 0;
}

void WriteText(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST_F(NpzTest, NumpyLoadsWhatWeWrite) {
  if (!HaveNumpy()) GTEST_SKIP() << MXU_NPZ_TEST_PYTHON << " has no numpy";
  WriteNpz(Path("ours.npz"), SampleArrays());
  // Floats are compared by their bits (-0.0, 1e-30), strings as str.
  WriteText(Path("check.py"), R"(import sys
import numpy as np
z = np.load(sys.argv[1], allow_pickle=False)
assert z.files == ['w1', 'b1', 'bf16', 'step', 'labels', 'seed', 'optimizer', 'layers', 'empty'], z.files
def check(name, dtype, shape, values, view=None):
    a = z[name]
    assert a.dtype == np.dtype(dtype), (name, a.dtype)
    assert a.shape == shape, (name, a.shape)
    got = (a.view(view) if view else a).ravel().tolist()
    assert got == values, (name, got, values)
check('w1', '<f4', (2, 3), np.array([1.5, -2.0, 0.0, -0.0, 3.25, 1e-30], np.float32).view(np.uint32).tolist(), np.uint32)
check('b1', '<f8', (2,), np.array([0.1, -1e300]).view(np.uint64).tolist(), np.uint64)
check('bf16', '<u2', (3, 1), [0x3F80, 0xFFFF, 0])
check('step', '<u8', (), [2**64 - 1])
check('labels', '<i4', (4,), [-1, 0, 7, -2**31])
check('seed', '<i8', (2,), [-42, 2**63 - 1])
check('optimizer', '<U4', (), ['adam'])
check('layers', '<U5', (3,), ['dense', 'relu', ''])
check('empty', '<f4', (0, 4), [])
assert z['optimizer'].item() == 'adam'
print('ok')
)");
  const PythonResult r = RunPython(Path("check.py"), Path("ours.npz"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "ok\n");
}

TEST_F(NpzTest, ReadsNumpySavezAndRefusesSavezCompressed) {
  if (!HaveNumpy()) GTEST_SKIP() << MXU_NPZ_TEST_PYTHON << " has no numpy";
  WriteText(Path("write.py"), R"(import sys
import numpy as np
arrays = dict(
    step=np.uint64(2**63 + 5),
    seed=np.array([-1, 2**40, -2**63], dtype='<i8'),
    counts=np.array([0, 2**64 - 1], dtype='<u8'),
    name=np.array('mlp-784'),
    tags=np.array(['a', 'bcd', '']),
    w=(np.arange(6, dtype='<f4').reshape(2, 3) / 4),
    wt=np.arange(6, dtype='<f8').reshape(2, 3).T,
    bits=np.array([1, 0xFFFF], dtype='<u2'),
    c=np.array([-3], dtype='<i4'),
)
np.savez(sys.argv[1], np.array([9.5], dtype='<f4'), **arrays)
np.savez_compressed(sys.argv[2], **arrays)
)");
  const PythonResult r = RunPython(Path("write.py"), Path("np.npz") + " " + Path("npc.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const NpzArchive a = ReadNpz(Path("np.npz"));
  // numpy.savez names positional arrays arr_0, ... and stores them after the named ones.
  EXPECT_EQ(a.names(), (std::vector<std::string>{"step", "seed", "counts", "name", "tags", "w",
                                                 "wt", "bits", "c", "arr_0"}));
  EXPECT_EQ(a.Get("arr_0").AsFloat32(), std::vector<float>{9.5f});
  EXPECT_TRUE(a.Get("step").shape.empty());
  EXPECT_EQ(a.Get("step").AsUint64(), std::vector<uint64_t>{(uint64_t{1} << 63) + 5});
  EXPECT_EQ(a.Get("seed").AsInt64(), (std::vector<int64_t>{-1, int64_t{1} << 40, INT64_MIN}));
  EXPECT_EQ(a.Get("counts").AsUint64(), (std::vector<uint64_t>{0, UINT64_MAX}));
  EXPECT_EQ(a.Get("name").string_length, 7u);
  EXPECT_EQ(a.Get("name").AsString(), "mlp-784");
  EXPECT_EQ(a.Get("tags").AsStrings(), (std::vector<std::string>{"a", "bcd", ""}));
  EXPECT_EQ(a.Get("w").shape, (std::vector<size_t>{2, 3}));
  EXPECT_EQ(a.Get("w").AsFloat32(), (std::vector<float>{0, 0.25f, 0.5f, 0.75f, 1, 1.25f}));
  // The transposed view is saved Fortran-ordered and read back in C order.
  EXPECT_EQ(a.Get("wt").shape, (std::vector<size_t>{3, 2}));
  EXPECT_EQ(a.Get("wt").AsFloat64(), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(a.Get("bits").AsUint16(), (std::vector<uint16_t>{1, 0xFFFF}));
  EXPECT_EQ(a.Get("c").AsInt32(), std::vector<int32_t>{-3});

  try {
    ReadNpz(Path("npc.npz"));
    FAIL() << "read a numpy.savez_compressed archive";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              Path("npc.npz") +
                  ": entry 'step.npy' is compressed (method 8): only numpy.savez archives are "
                  "read, not numpy.savez_compressed");
  }
}

}  // namespace
}  // namespace mxu::host
