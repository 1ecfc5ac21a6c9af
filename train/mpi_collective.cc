#include "train/mpi_collective.h"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace mxu::train {
namespace {

template <typename T>
void GatherAndSum(std::vector<T>& values, MPI_Datatype type, int size) {
  std::vector<T> all(values.size() * static_cast<size_t>(size));
  if (MPI_Allgather(values.data(), static_cast<int>(values.size()), type, all.data(),
                    static_cast<int>(values.size()), type, MPI_COMM_WORLD) != MPI_SUCCESS) {
    throw std::runtime_error("MPI_Allgather failed");
  }
  for (size_t i = 0; i < values.size(); ++i) {
    T sum = all[i];
    for (int r = 1; r < size; ++r) sum += all[static_cast<size_t>(r) * values.size() + i];
    values[i] = sum;
  }
}

}  // namespace

bool LaunchedByMpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr;
}

int MpiWorldSize() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* size = std::getenv(name);
    if (size != nullptr) return std::max(1, std::atoi(size));
  }
  return 1;
}

MpiCollective::MpiCollective() {
  if (MPI_Init(nullptr, nullptr) != MPI_SUCCESS) throw std::runtime_error("MPI_Init failed");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiCollective::~MpiCollective() { MPI_Finalize(); }

void MpiCollective::SumInRankOrder(std::vector<float>& values) {
  if (size_ > 1) GatherAndSum(values, MPI_FLOAT, size_);
}

void MpiCollective::SumInRankOrder(std::vector<double>& values) {
  if (size_ > 1) GatherAndSum(values, MPI_DOUBLE, size_);
}

std::vector<uint64_t> MpiCollective::AllGather(uint64_t value) {
  std::vector<uint64_t> all(static_cast<size_t>(size_));
  if (MPI_Allgather(&value, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD) !=
      MPI_SUCCESS) {
    throw std::runtime_error("MPI_Allgather failed");
  }
  return all;
}

std::vector<float> MpiCollective::AllGather(const std::vector<float>& values) {
  if (size_ == 1) return values;
  const std::vector<uint64_t> counts = AllGather(static_cast<uint64_t>(values.size()));
  std::vector<int> sizes, offsets;
  uint64_t total = 0;
  for (uint64_t count : counts) {
    offsets.push_back(static_cast<int>(total));
    sizes.push_back(static_cast<int>(count));
    total += count;
  }
  if (total > static_cast<uint64_t>(INT32_MAX)) throw std::runtime_error("all-gather too large");
  std::vector<float> all(total);
  if (MPI_Allgatherv(values.data(), static_cast<int>(values.size()), MPI_FLOAT, all.data(),
                     sizes.data(), offsets.data(), MPI_FLOAT, MPI_COMM_WORLD) != MPI_SUCCESS) {
    throw std::runtime_error("MPI_Allgatherv failed");
  }
  return all;
}

std::vector<std::string> MpiCollective::AllGatherText(const std::string& text) {
  const std::vector<uint64_t> sizes = AllGather(static_cast<uint64_t>(text.size()));
  std::vector<int> counts, offsets;
  uint64_t total = 0;
  for (uint64_t size : sizes) {
    offsets.push_back(static_cast<int>(total));
    counts.push_back(static_cast<int>(size));
    total += size;
  }
  if (total > static_cast<uint64_t>(INT32_MAX)) throw std::runtime_error("all-gather too large");
  std::string all(total, '\0');
  if (MPI_Allgatherv(text.data(), static_cast<int>(text.size()), MPI_CHAR, all.data(),
                     counts.data(), offsets.data(), MPI_CHAR, MPI_COMM_WORLD) != MPI_SUCCESS) {
    throw std::runtime_error("MPI_Allgatherv failed");
  }
  std::vector<std::string> texts;
  for (size_t r = 0; r < sizes.size(); ++r) texts.push_back(all.substr(offsets[r], sizes[r]));
  return texts;
}

void MpiCollective::Abort(const std::string& message) const {
  std::fflush(stdout);
  std::fprintf(stderr, "mxu train: rank %d of %d: %s\n", rank_, size_, message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);  // MPI_Abort does not return; this satisfies [[noreturn]]
}

}  // namespace mxu::train
