#include "host/bench/topology.h"

#include <cctype>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "host/cli/cli.h"
#include "io/input_file.h"

namespace mxu::host {
namespace {

const std::vector<std::string> kConvColumns = {"Layer name",    "IFMAP Height", "IFMAP Width",
                                               "Filter Height", "Filter Width", "Channels",
                                               "Num Filter",    "Strides"};
const std::vector<std::string> kGemmColumns = {"Layer", "M", "N", "K"};

std::string Trim(const std::string& text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

// A field quoted in a message: control bytes escaped (\xNN) and long text cut, so that a binary
// file's bytes cannot break the one-line message.
std::string Quote(const std::string& text) {
  constexpr size_t kLimit = 60;
  std::string out = "'";
  for (size_t i = 0; i < text.size() && i < kLimit; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7F) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + (text.size() > kLimit ? "...'" : "'");
}

bool HasControlByte(const std::string& text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) return true;
  }
  return false;
}

// Header names compare without case or spaces: "IFMAP Height" == "ifmap height".
std::string Key(const std::string& text) {
  std::string key;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) {
      key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return key;
}

// The fields of a CSV line, trimmed; SCALE-Sim's trailing comma leaves no empty last field.
std::vector<std::string> Fields(const std::string& line) {
  std::vector<std::string> fields(1);
  for (char c : line) {
    if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  for (std::string& field : fields) field = Trim(field);
  if (fields.size() > 1 && fields.back().empty()) fields.pop_back();
  return fields;
}

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void Fail(int line, const std::string& message) const {
    throw UsageError("--topology " + path_ + (line > 0 ? ":" + std::to_string(line) : "") + ": " +
                     message);
  }

  // A size: a decimal integer in [1, kMaxTopologyValue].
  uint64_t Size(int line, const std::string& field, const std::string& text) const {
    const std::string where = "'" + field + "' ";
    if (text.empty()) Fail(line, where + "is empty");
    const bool negative = text[0] == '-';
    if (negative && text.size() == 1) Fail(line, where + "is not an integer: '-'");
    uint64_t value = 0;
    for (size_t i = negative ? 1 : 0; i < text.size(); ++i) {
      const char c = text[i];
      if (c < '0' || c > '9' || text.size() > 18) {
        Fail(line, where + "is not an integer: " + Quote(text));
      }
      value = value * 10 + static_cast<uint64_t>(c - '0');
    }
    if (negative || value == 0) Fail(line, where + "must be at least 1, got " + text);
    if (value > kMaxTopologyValue) {
      Fail(line, where + "is " + text + ", above " + std::to_string(kMaxTopologyValue));
    }
    return value;
  }

  // The GEMM within the driver's limits; `how` says where each dimension comes from.
  // More fields than the format has: the wrong format or a shifted row, never silently cut.
  void CheckCount(int line, const std::string& where, size_t count,
                  const std::vector<std::string>& columns) const {
    if (count <= columns.size()) return;
    Fail(line, where + std::to_string(count) + " fields, the " +
                   (columns.size() == kGemmColumns.size() ? "GEMM" : "convolution") +
                   " format has " + std::to_string(columns.size()) + " ('" + columns.front() +
                   "' to '" + columns.back() + "')");
  }

  void CheckGemm(const TopologyLayer& layer, const std::string how[3]) const {
    const uint64_t dims[3] = {layer.m, layer.k, layer.n};
    const char* names[3] = {"M", "K", "N"};
    for (int i = 0; i < 3; ++i) {
      if (dims[i] > kMaxGemmDimension) {
        Fail(layer.line, std::string(names[i]) + how[i] + " = " + std::to_string(dims[i]) +
                             ": above the driver's limit of " + std::to_string(kMaxGemmDimension));
      }
    }
    const uint64_t bytes = 2 * layer.m * layer.k + 2 * layer.k * layer.n + 4 * layer.m * layer.n;
    if (bytes > kMaxGemmBytes) {
      Fail(layer.line, "GEMM " + std::to_string(layer.m) + "x" + std::to_string(layer.k) + "x" +
                           std::to_string(layer.n) +
                           ": A, B and C exceed 2 GiB, half the device's host memory");
    }
  }

 private:
  std::string path_;
};

}  // namespace

Topology ParseTopology(const std::string& path, const std::string& text) {
  const Reader reader(path);
  Topology topology;
  topology.path = path;
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  const std::vector<std::string>* columns = nullptr;
  while (std::getline(in, raw)) {
    ++line;
    if (line == 1 && raw.rfind("\xEF\xBB\xBF", 0) == 0) raw.erase(0, 3);  // a UTF-8 BOM
    if (Trim(raw).empty()) continue;
    const std::vector<std::string> fields = Fields(raw);
    if (columns == nullptr) {
      // The header: its first column tells the format, then every column must be in its place.
      const std::string first = Key(fields[0]);
      if (first == Key(kConvColumns[0])) {
        columns = &kConvColumns;
      } else if (first == Key(kGemmColumns[0])) {
        columns = &kGemmColumns;
      } else {
        reader.Fail(line, "header: expected SCALE-Sim's '" + kConvColumns[0] + ", " +
                              kConvColumns[1] + ", ...' (convolutions) or '" + kGemmColumns[0] +
                              ", M, N, K' (GEMMs), got " + Quote(fields[0]));
      }
      topology.conv = columns == &kConvColumns;
      reader.CheckCount(line, "header: ", fields.size(), *columns);
      for (size_t i = 1; i < columns->size(); ++i) {
        if (i >= fields.size()) reader.Fail(line, "header: missing column '" + (*columns)[i] + "'");
        if (Key(fields[i]) != Key((*columns)[i])) {
          reader.Fail(line, "header: column " + std::to_string(i + 1) + " must be '" +
                                (*columns)[i] + "', got " + Quote(fields[i]));
        }
      }
      continue;
    }
    if (fields.size() < columns->size()) {
      reader.Fail(line, "missing field '" + (*columns)[fields.size()] + "'");
    }
    reader.CheckCount(line, "", fields.size(), *columns);
    TopologyLayer layer;
    layer.line = line;
    layer.name = fields[0];
    if (layer.name.empty()) reader.Fail(line, "'" + (*columns)[0] + "' is empty");
    if (HasControlByte(layer.name)) {
      reader.Fail(line, "'" + (*columns)[0] + "' " + Quote(layer.name) + " holds a control byte");
    }
    std::vector<uint64_t> v(columns->size());
    for (size_t i = 1; i < columns->size(); ++i) {
      v[i] = reader.Size(line, (*columns)[i], fields[i]);
    }
    if (topology.conv) {
      layer.ifmap_h = v[1], layer.ifmap_w = v[2], layer.filter_h = v[3], layer.filter_w = v[4];
      layer.channels = v[5], layer.filters = v[6], layer.stride = v[7];
      for (int i : {3, 4}) {
        if (v[i] > v[i - 2]) {
          reader.Fail(line, "'" + kConvColumns[i] + "' " + std::to_string(v[i]) + " exceeds '" +
                                kConvColumns[i - 2] + "' " + std::to_string(v[i - 2]));
        }
      }
      const uint64_t out_h = (layer.ifmap_h - layer.filter_h) / layer.stride + 1;
      const uint64_t out_w = (layer.ifmap_w - layer.filter_w) / layer.stride + 1;
      layer.m = out_h * out_w;
      layer.k = layer.filter_h * layer.filter_w * layer.channels;
      layer.n = layer.filters;
      const std::string how[3] = {" (output height x width)", " (filter height x width x channels)",
                                  " (Num Filter)"};
      reader.CheckGemm(layer, how);
    } else {
      layer.m = v[1], layer.n = v[2], layer.k = v[3];
      const std::string how[3] = {"", "", ""};
      reader.CheckGemm(layer, how);
    }
    topology.layers.push_back(layer);
  }
  if (columns == nullptr) reader.Fail(0, "empty file: no header and no layers");
  if (topology.layers.empty()) reader.Fail(0, "no layers after the header");
  return topology;
}

Topology ReadTopology(const std::string& path) {
  std::vector<uint8_t> bytes;
  try {
    // A device or a FIFO is refused before it is opened (io/input_file.h): /dev/zero never ends.
    io::InputFile file(path, "a topology file");
    if (file.size() > kMaxTopologyBytes) {
      throw UsageError("--topology " + path + ": " + std::to_string(file.size()) +
                       " bytes, more than a topology's limit of " +
                       std::to_string(kMaxTopologyBytes));
    }
    bytes = file.ReadAll();
  } catch (const UsageError&) {
    throw;
  } catch (const std::runtime_error& error) {
    throw UsageError(std::string("--topology ") + error.what());
  }
  return ParseTopology(path, std::string(bytes.begin(), bytes.end()));
}

}  // namespace mxu::host
