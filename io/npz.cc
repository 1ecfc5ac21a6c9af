#include "io/npz.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string_view>

#include "io/input_file.h"

namespace mxu::host {
namespace {

// ZIP record signatures and fixed sizes (PKWARE APPNOTE.TXT, sections 4.3.7, 4.3.12, 4.3.16).
constexpr uint32_t kLocalSignature = 0x04034b50;
constexpr uint32_t kCentralSignature = 0x02014b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr size_t kLocalSize = 30;
constexpr size_t kCentralSize = 46;
constexpr size_t kEndSize = 22;
constexpr size_t kZip64LocatorSize = 20;
constexpr size_t kMaxComment = 0xFFFF;
// 0xFFFFFFFF in a 32-bit field means "see the zip64 extra field"; 0xFFFF entries is still a
// plain count (zip64 archives are told by their locator record).
constexpr uint64_t kZip64Marker = 0xFFFFFFFF;
constexpr size_t kMaxEntries = 0xFFFF;
constexpr uint16_t kZip64ExtraId = 0x0001;
// Flag bits: 0 encrypted, 3 sizes and CRC in a data descriptor after the data, 11 UTF-8 name.
constexpr uint16_t kFlagEncrypted = 0x0001;
constexpr uint16_t kFlagDataDescriptor = 0x0008;
constexpr uint16_t kFlagUtf8 = 0x0800;
// Version 2.0: what stored entries need (the reader accepts any version).
constexpr uint16_t kVersion = 20;
// 1980-01-01 00:00:00, the earliest MS-DOS date: a fixed time keeps archives reproducible.
constexpr uint16_t kDosTime = 0;
constexpr uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;
constexpr size_t kQuoteLimit = 100;

[[noreturn]] void Fail(const std::string& name, const std::string& what) {
  throw std::runtime_error(name + ": " + what);
}

// For "A.npz: entry 'w.npy' is compressed ...": label names the entry, what is its predicate.
[[noreturn]] void Refuse(const std::string& label, const std::string& what) {
  throw std::runtime_error(label + " " + what);
}

// Entry names come from the file: escaped so that they cannot break one-line messages.
std::string Printable(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < kQuoteLimit; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c > 0x7e || c == '\\') {
      char hex[5];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > kQuoteLimit) out += "...";
  return out;
}

std::string Hex(uint32_t value, int digits) {
  char text[11];
  std::snprintf(text, sizeof(text), "0x%0*x", digits, static_cast<unsigned>(value));
  return text;
}

// CRC-32 (ISO-HDLC, reflected polynomial 0xEDB88320), as ZIP and zlib's crc32() compute it.
constexpr std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1) != 0 ? 0xEDB88320u : 0u);
    table[i] = crc;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kCrcTable = MakeCrcTable();

uint32_t Crc32(const uint8_t* data, size_t size) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) crc = kCrcTable[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

uint64_t Get(const uint8_t* bytes, size_t size) {
  uint64_t value = 0;
  for (size_t i = size; i-- > 0;) value = (value << 8) | bytes[i];
  return value;
}
uint16_t Get16(const uint8_t* bytes) { return static_cast<uint16_t>(Get(bytes, 2)); }
uint32_t Get32(const uint8_t* bytes) { return static_cast<uint32_t>(Get(bytes, 4)); }

void Put(uint64_t value, size_t size, std::vector<uint8_t>* out) {
  for (size_t i = 0; i < size; ++i) out->push_back(static_cast<uint8_t>(value >> (8 * i)));
}

// ---- Writing ----

void CheckNames(const NpzEntries& arrays, const std::string& path) {
  if (arrays.size() > kMaxEntries) {
    Fail(path, std::to_string(arrays.size()) +
                   " arrays are more than the 65535 entries of a ZIP archive without zip64");
  }
  std::set<std::string> seen;
  for (const auto& [name, array] : arrays) {
    if (name.empty()) Fail(path, "an array name is empty");
    for (const char c : name) {
      if (c == '/') Fail(path, "array name '" + Printable(name) + "' contains '/'");
      if (c < 0x20 || c > 0x7e) {
        Fail(path, "array name '" + Printable(name) + "' is not printable ASCII");
      }
    }
    if (!seen.insert(name).second) Fail(path, "array name '" + name + "' appears twice");
  }
}

// The fields local and central headers share, from "version needed" to the name's length.
void PutCommon(const std::string& entry, uint32_t crc, uint32_t size, std::vector<uint8_t>* out) {
  Put(kVersion, 2, out);  // version needed to extract
  Put(0, 2, out);         // flags
  Put(0, 2, out);         // method: stored
  Put(kDosTime, 2, out);
  Put(kDosDate, 2, out);
  Put(crc, 4, out);
  Put(size, 4, out);  // compressed size
  Put(size, 4, out);  // uncompressed size
  Put(entry.size(), 2, out);
  Put(0, 2, out);  // extra field length
}

class ZipFile {
 public:
  explicit ZipFile(const std::string& path) : path_(path) {
    file_ = std::fopen(path.c_str(), "wb");
    if (file_ == nullptr) {
      Fail(path, std::string("cannot open for writing: ") + std::strerror(errno));
    }
  }
  // Only reached on an error: a regular file is ours to remove, a device or FIFO must survive.
  ~ZipFile() {
    if (file_ == nullptr) return;
    std::fclose(file_);
    std::error_code ignored;
    if (std::filesystem::is_regular_file(path_, ignored)) std::remove(path_.c_str());
  }

  void Write(const uint8_t* data, size_t size) {
    if (size == 0) return;  // an empty vector's data() may be null, which fwrite must not get
    if (std::fwrite(data, 1, size, file_) != size) WriteFailed();
    offset_ += size;
  }
  void Write(const std::vector<uint8_t>& bytes) { Write(bytes.data(), bytes.size()); }
  uint64_t offset() const { return offset_; }

  // fflush and fclose can be the calls that report a full disk.
  void Close() {
    int error = std::fflush(file_) == 0 ? 0 : errno;
    if (std::fclose(file_) != 0 && error == 0) error = errno;
    file_ = nullptr;
    if (error != 0) {
      std::error_code ignored;
      if (std::filesystem::is_regular_file(path_, ignored)) std::remove(path_.c_str());
      Fail(path_, std::string("write failed: ") + std::strerror(error));
    }
  }

 private:
  [[noreturn]] void WriteFailed() {
    Fail(path_, std::string("write failed: ") + std::strerror(errno));
  }

  std::string path_;
  std::FILE* file_ = nullptr;
  uint64_t offset_ = 0;
};

// ---- Reading ----

// One entry as the central directory and its local header describe it, checked for consistency.
struct Entry {
  std::string name;  // as stored, with ".npy"
  uint32_t crc = 0;
  size_t local = 0;  // offset of the local header
  size_t data = 0;   // offset of the data
  size_t size = 0;
};

// The sizes in a local header's zip64 extra field (numpy.savez writes one for every entry): the
// extra field must be a sequence of well-formed blocks. False if there is no zip64 block.
bool Zip64Sizes(const uint8_t* extra, size_t extra_size, const std::string& label,
                uint64_t* uncompressed, uint64_t* compressed) {
  bool found = false;
  for (size_t pos = 0; pos < extra_size;) {
    if (extra_size - pos < 4) Fail(label, "malformed local extra field");
    const uint16_t id = Get16(&extra[pos]);
    const uint16_t size = Get16(&extra[pos + 2]);
    if (size > extra_size - pos - 4) Fail(label, "malformed local extra field");
    if (id == kZip64ExtraId) {
      if (found || size < 16) Fail(label, "malformed zip64 extra field");
      *uncompressed = Get(&extra[pos + 4], 8);
      *compressed = Get(&extra[pos + 12], 8);
      found = true;
    }
    pos += 4 + size;
  }
  return found;
}

// Reads the central directory entry at *pos (advanced past it) and checks its local header.
Entry ReadEntry(const std::vector<uint8_t>& bytes, size_t* pos, size_t central_end, size_t data_end,
                size_t index, size_t count, const std::string& name) {
  const uint8_t* b = bytes.data();
  const std::string which = "entry " + std::to_string(index) + " of " + std::to_string(count);
  if (central_end - *pos < kCentralSize) {
    Fail(name, "truncated central directory at " + which);
  }
  const uint8_t* c = &b[*pos];
  if (Get32(c) != kCentralSignature) {
    Fail(name,
         "bad central directory signature at offset " + std::to_string(*pos) + " (" + which + ")");
  }
  const uint16_t flags = Get16(&c[8]), method = Get16(&c[10]);
  const uint32_t crc = Get32(&c[16]);
  const uint64_t compressed = Get32(&c[20]), uncompressed = Get32(&c[24]);
  const size_t name_size = Get16(&c[28]), extra_size = Get16(&c[30]), comment_size = Get16(&c[32]);
  const uint16_t disk = Get16(&c[34]);
  const uint64_t local = Get32(&c[42]);
  if (central_end - *pos - kCentralSize < name_size + extra_size + comment_size) {
    Fail(name, "truncated central directory at " + which);
  }
  Entry entry;
  entry.name.assign(reinterpret_cast<const char*>(&c[kCentralSize]), name_size);
  entry.crc = crc;
  *pos += kCentralSize + name_size + extra_size + comment_size;

  const std::string label = name + ": entry '" + Printable(entry.name) + "'";
  if (method != 0) {
    Refuse(label, "is compressed (method " + std::to_string(method) +
                      "): only numpy.savez archives are read, not numpy.savez_compressed");
  }
  if ((flags & kFlagEncrypted) != 0) Refuse(label, "is encrypted");
  if ((flags & kFlagDataDescriptor) != 0) {
    Refuse(label,
           "has its sizes in a data descriptor (flag bit 3), which numpy.savez does not write");
  }
  if ((flags & ~kFlagUtf8) != 0) Refuse(label, "has unsupported flags " + Hex(flags, 4));
  if (compressed == kZip64Marker || uncompressed == kZip64Marker || local == kZip64Marker) {
    Refuse(label, "is a zip64 entry (4 GiB or more), which is not supported");
  }
  if (compressed != uncompressed) {
    Refuse(label, "is stored but its sizes differ (" + std::to_string(compressed) +
                      " compressed, " + std::to_string(uncompressed) + " uncompressed)");
  }
  if (disk != 0) Refuse(label, "is on disk " + std::to_string(disk) + " of a multi-disk archive");

  // The local header, its name and the data must lie before the central directory.
  if (local > data_end || data_end - local < kLocalSize) {
    Fail(label, "local header offset " + std::to_string(local) +
                    " is out of range (entries end at " + std::to_string(data_end) + ")");
  }
  const uint8_t* l = &b[local];
  if (Get32(l) != kLocalSignature) {
    Fail(label, "bad local header signature at offset " + std::to_string(local));
  }
  const uint16_t local_flags = Get16(&l[6]), local_method = Get16(&l[8]);
  const uint32_t local_crc = Get32(&l[14]);
  uint64_t local_compressed = Get32(&l[18]), local_uncompressed = Get32(&l[22]);
  const size_t local_name_size = Get16(&l[26]), local_extra_size = Get16(&l[28]);
  const size_t header_end = local + kLocalSize + local_name_size + local_extra_size;
  if (header_end > data_end) {
    Fail(label, "truncated local header at offset " + std::to_string(local));
  }
  const std::string_view local_name(reinterpret_cast<const char*>(&l[kLocalSize]), local_name_size);
  if (local_name != entry.name) {
    Fail(label, "local header names it '" + Printable(local_name) + "'");
  }
  if (local_flags != flags || local_method != method || local_crc != crc) {
    Fail(label, "local header disagrees with the central directory (flags, method or CRC-32)");
  }
  if (local_compressed == kZip64Marker && local_uncompressed == kZip64Marker) {
    if (!Zip64Sizes(&l[kLocalSize + local_name_size], local_extra_size, label, &local_uncompressed,
                    &local_compressed)) {
      Fail(label, "local header has zip64 sizes but no zip64 extra field");
    }
  }
  if (local_compressed != compressed || local_uncompressed != uncompressed) {
    Fail(label, "local header sizes (" + std::to_string(local_compressed) + ", " +
                    std::to_string(local_uncompressed) + ") disagree with the central directory (" +
                    std::to_string(compressed) + ")");
  }
  if (compressed > data_end - header_end) {
    Fail(label, "data of " + std::to_string(compressed) + " bytes at offset " +
                    std::to_string(header_end) + " runs past the entries' end at " +
                    std::to_string(data_end));
  }
  entry.local = static_cast<size_t>(local);
  entry.data = header_end;
  entry.size = static_cast<size_t>(compressed);
  return entry;
}

}  // namespace

bool NpzArchive::Has(const std::string& name) const {
  return std::any_of(arrays_.begin(), arrays_.end(),
                     [&](const auto& entry) { return entry.first == name; });
}

const NpyArray& NpzArchive::Get(const std::string& name) const {
  for (const auto& [entry_name, array] : arrays_) {
    if (entry_name == name) return array;
  }
  Fail(file_, "no array '" + Printable(name) + "'");
}

std::vector<std::string> NpzArchive::names() const {
  std::vector<std::string> names;
  for (const auto& entry : arrays_) names.push_back(entry.first);
  return names;
}

void WriteNpz(const std::string& path, const NpzEntries& arrays) {
  CheckNames(arrays, path);
  ZipFile file(path);
  std::vector<uint8_t> central;
  for (const auto& [name, array] : arrays) {
    const std::string entry = name + ".npy";
    const std::vector<uint8_t> npy = SerializeNpy(array, path + ": array '" + name + "'");
    // Sizes and offsets of 0xFFFFFFFF or more need zip64.
    if (npy.size() >= kZip64Marker) {
      Fail(path, "array '" + name + "' is " + std::to_string(npy.size()) +
                     " bytes: 4 GiB or more needs zip64, which is not supported");
    }
    if (file.offset() >= kZip64Marker) {
      Fail(path, "the archive reaches 4 GiB before array '" + name + "': zip64 is not supported");
    }
    const uint32_t crc = Crc32(npy.data(), npy.size());
    const uint32_t size = static_cast<uint32_t>(npy.size());
    std::vector<uint8_t> local;
    Put(kLocalSignature, 4, &local);
    PutCommon(entry, crc, size, &local);
    local.insert(local.end(), entry.begin(), entry.end());

    Put(kCentralSignature, 4, &central);
    Put(kVersion, 2, &central);  // version made by: 2.0, MS-DOS attributes
    PutCommon(entry, crc, size, &central);
    Put(0, 2, &central);  // comment length
    Put(0, 2, &central);  // disk number
    Put(0, 2, &central);  // internal attributes
    Put(0, 4, &central);  // external attributes
    Put(file.offset(), 4, &central);
    central.insert(central.end(), entry.begin(), entry.end());

    file.Write(local);
    file.Write(npy);
  }
  const uint64_t central_offset = file.offset();
  if (central_offset >= kZip64Marker || central.size() >= kZip64Marker) {
    Fail(path, "the archive reaches 4 GiB: zip64 is not supported");
  }
  std::vector<uint8_t> end;
  Put(kEndSignature, 4, &end);
  Put(0, 2, &end);  // this disk
  Put(0, 2, &end);  // the central directory's disk
  Put(arrays.size(), 2, &end);
  Put(arrays.size(), 2, &end);
  Put(central.size(), 4, &end);
  Put(central_offset, 4, &end);
  Put(0, 2, &end);  // comment length
  file.Write(central);
  file.Write(end);
  file.Close();
}

NpzArchive ParseNpz(const std::vector<uint8_t>& bytes, const std::string& name_for_errors) {
  const std::string& name = name_for_errors;
  const uint8_t* b = bytes.data();
  const size_t size = bytes.size();
  if (size >= 6 && std::memcmp(b, "\x93NUMPY", 6) == 0)
    Fail(name, "a .npy file, not an .npz archive");
  if (size < kEndSize) {
    Fail(name,
         "not an .npz archive: " + std::to_string(size) + " bytes are too few for a ZIP archive");
  }
  // The end-of-central-directory record: the last one whose comment runs exactly to the end.
  size_t end = size;
  const size_t lowest = size - kEndSize > kMaxComment ? size - kEndSize - kMaxComment : 0;
  for (size_t pos = size - kEndSize + 1; pos-- > lowest;) {
    if (Get32(&b[pos]) == kEndSignature && Get16(&b[pos + 20]) == size - pos - kEndSize) {
      end = pos;
      break;
    }
  }
  if (end == size) {
    const bool zip = Get32(b) == kLocalSignature;
    Fail(name, zip ? "truncated or corrupt ZIP archive: no end-of-central-directory record"
                   : "not an .npz archive: no ZIP end-of-central-directory record");
  }
  const uint16_t disk = Get16(&b[end + 4]), central_disk = Get16(&b[end + 6]);
  const size_t disk_entries = Get16(&b[end + 8]), entries = Get16(&b[end + 10]);
  const uint64_t central_size = Get32(&b[end + 12]), central_offset = Get32(&b[end + 16]);
  if ((end >= kZip64LocatorSize && Get32(&b[end - kZip64LocatorSize]) == kZip64LocatorSignature) ||
      central_size == kZip64Marker || central_offset == kZip64Marker) {
    Fail(name, "a zip64 archive (4 GiB or more, or over 65535 entries), which is not supported");
  }
  if (disk != 0 || central_disk != 0 || disk_entries != entries) {
    Fail(name, "a multi-disk ZIP archive, which is not supported");
  }
  if (central_offset > end || end - central_offset != central_size) {
    Fail(name, "the central directory (" + std::to_string(central_size) + " bytes at offset " +
                   std::to_string(central_offset) +
                   ") does not end where the end-of-central-directory record begins (offset " +
                   std::to_string(end) + ")");
  }
  const size_t data_end = static_cast<size_t>(central_offset);
  std::vector<Entry> list;
  size_t pos = data_end;
  for (size_t i = 0; i < entries; ++i) {
    list.push_back(ReadEntry(bytes, &pos, end, data_end, i, entries, name));
  }
  if (pos != end) {
    Fail(name, "the central directory has " + std::to_string(end - pos) +
                   " bytes after its last entry (" + std::to_string(entries) + " entries)");
  }
  // No two entries may share bytes (a crafted archive could alias one array's data to another's).
  std::vector<const Entry*> by_offset;
  for (const Entry& entry : list) by_offset.push_back(&entry);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const Entry* x, const Entry* y) { return x->local < y->local; });
  for (size_t i = 1; i < by_offset.size(); ++i) {
    const Entry& before = *by_offset[i - 1];
    if (by_offset[i]->local < before.data + before.size) {
      Fail(name, "entries '" + Printable(before.name) + "' and '" + Printable(by_offset[i]->name) +
                     "' overlap");
    }
  }
  std::set<std::string> seen;
  for (const Entry& entry : list) {
    const std::string label = name + ": entry '" + Printable(entry.name) + "'";
    constexpr std::string_view kSuffix = ".npy";
    if (entry.name.size() <= kSuffix.size() ||
        entry.name.compare(entry.name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
      Refuse(label, "is not an array (expected a name such as 'w.npy')");
    }
    if (!seen.insert(entry.name).second) Refuse(label, "appears twice");
    const uint32_t crc = Crc32(&b[entry.data], entry.size);
    if (crc != entry.crc) {
      Fail(label,
           "CRC-32 mismatch (stored " + Hex(entry.crc, 8) + ", computed " + Hex(crc, 8) + ")");
    }
  }
  NpzEntries arrays;
  for (const Entry& entry : list) {
    const std::string label = name + ": entry '" + Printable(entry.name) + "'";
    arrays.emplace_back(entry.name.substr(0, entry.name.size() - 4),
                        ParseNpy(&b[entry.data], entry.size, label));
  }
  return NpzArchive(name, std::move(arrays));
}

NpzArchive ReadNpz(const std::string& path) {
  // A device or a FIFO has no size to check the archive's offsets against (io/input_file.h).
  return ParseNpz(io::ReadInputFile(path, "an .npz file"), path);
}

}  // namespace mxu::host
