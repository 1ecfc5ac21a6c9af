// The ranks of an MPI job (`mpirun -np N mxu train ...`) as a Collective. Sums gather every
// rank's vector (MPI_Allgather) and add them in rank order on each rank: MPI_Allreduce may add
// in any order, which would make runs differ in the last bits.
#ifndef MXU_TRAIN_MPI_COLLECTIVE_H_
#define MXU_TRAIN_MPI_COLLECTIVE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "train/collective.h"

namespace mxu::train {

// Whether this process was started by an MPI launcher (mpirun / mpiexec of Open MPI, or a
// PMI-based one): only then is MPI initialized, so a plain `mxu train` never touches it.
bool LaunchedByMpi();
// The number of ranks the launcher started (its environment, before MPI_Init); 1 without one.
int MpiWorldSize();

class MpiCollective : public Collective {
 public:
  // MPI_Init; MPI_Finalize on destruction. One per process.
  MpiCollective();
  ~MpiCollective() override;
  MpiCollective(const MpiCollective&) = delete;
  MpiCollective& operator=(const MpiCollective&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void SumInRankOrder(std::vector<float>& values) override;
  void SumInRankOrder(std::vector<double>& values) override;
  std::vector<uint64_t> AllGather(uint64_t value) override;
  std::vector<float> AllGather(const std::vector<float>& values) override;
  // Every rank's text, in rank order (`mxu bench --sweep` gathers its points' results so).
  std::vector<std::string> AllGatherText(const std::string& text);

  // Prints "mxu train: rank R of N: <message>" on stderr and stops every rank of the job
  // (MPI_Abort): the others may be waiting in a collective and would never return.
  [[noreturn]] void Abort(const std::string& message) const;

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace mxu::train

#endif  // MXU_TRAIN_MPI_COLLECTIVE_H_
