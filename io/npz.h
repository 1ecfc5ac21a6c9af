// A small, strict reader and writer of NumPy .npz archives (checkpoints: several named arrays in
// one file), on top of io/npy.h.
//
// An .npz file is a ZIP archive with one entry "<name>.npy" per array, each a whole .npy file.
// numpy.load(path) (allow_pickle=False is enough) reads what WriteNpz writes: stored (method 0,
// uncompressed) entries with their CRC-32, local headers, a central directory and an
// end-of-central-directory record, no zip64 and no archive comment. Names are non-empty
// printable ASCII without '/', each once; entries keep the order given.
//
// ReadNpz reads what numpy.savez writes (its local headers carry a zip64 extra field even for
// small entries, with the sizes themselves or 0xFFFFFFFF in the header: both are accepted; an
// archive comment is allowed) and refuses everything else: compressed entries
// (numpy.savez_compressed, method 8), encrypted entries, data descriptors, zip64 archives (an
// entry or archive of 4 GiB or more, or over 65535 entries), multi-disk archives, entries that
// are not "<name>.npy" or are named twice, and any inconsistency: bad signatures, truncation,
// offsets or sizes outside the file, overlapping entries, local and central headers that
// disagree, CRC-32 mismatches, malformed .npy data (io/npy.h's rules).
//
// Every error is a std::runtime_error with a one-line message that starts with the file name
// (the path, or ParseNpz's name_for_errors), e.g.
//   "ckpt.npz: entry 'w1.npy': CRC-32 mismatch (stored 0x1c291ca3, computed 0x0d4a1185)".
#ifndef MXU_IO_NPZ_H_
#define MXU_IO_NPZ_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/npy.h"

namespace mxu::host {

using NpzEntries = std::vector<std::pair<std::string, NpyArray>>;

// The arrays of an archive, by name (without ".npy"), in archive order.
class NpzArchive {
 public:
  NpzArchive(std::string file, NpzEntries arrays)
      : file_(std::move(file)), arrays_(std::move(arrays)) {}

  bool Has(const std::string& name) const;
  // Throws "<file>: no array '<name>'" if there is none.
  const NpyArray& Get(const std::string& name) const;
  std::vector<std::string> names() const;
  const NpzEntries& arrays() const { return arrays_; }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  NpzEntries arrays_;
};

// Writes the arrays to exactly path (callers wanting an atomic replace write a temporary file and
// rename it). Names are checked before the file is opened, each array as it is written; throws on
// any error, including a failed final flush, and removes a partially written regular file.
void WriteNpz(const std::string& path, const NpzEntries& arrays);

// Reads and parses the archive at path (a regular file).
NpzArchive ReadNpz(const std::string& path);
// Parses the bytes of a whole archive; name_for_errors starts every error message.
NpzArchive ParseNpz(const std::vector<uint8_t>& bytes, const std::string& name_for_errors);

}  // namespace mxu::host

#endif  // MXU_IO_NPZ_H_
