// What data- and model-parallel training need from its ranks (one simulated chip each): sums that
// give the same bits on every rank and every run, and a check that all ranks agree. `mxu train`
// under mpirun uses MpiCollective (train/mpi_collective.h); a lone process uses
// SingleProcess, whose sums are the values themselves.
#ifndef MXU_TRAIN_COLLECTIVE_H_
#define MXU_TRAIN_COLLECTIVE_H_

#include <cstdint>
#include <vector>

namespace mxu::train {

class Collective {
 public:
  virtual ~Collective() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Replaces values by their sum over the ranks, added in rank order (0 + 1 + ... + N-1), so
  // that every rank gets the same bits whatever the ranks' timing. Every rank passes the same
  // count.
  virtual void SumInRankOrder(std::vector<float>& values) = 0;
  virtual void SumInRankOrder(std::vector<double>& values) = 0;
  // Every rank's value, in rank order.
  virtual std::vector<uint64_t> AllGather(uint64_t value) = 0;
  // Every rank's values concatenated in rank order (the ranks may pass different counts).
  virtual std::vector<float> AllGather(const std::vector<float>& values) = 0;
};

class SingleProcess : public Collective {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void SumInRankOrder(std::vector<float>&) override {}
  void SumInRankOrder(std::vector<double>&) override {}
  std::vector<uint64_t> AllGather(uint64_t value) override { return {value}; }
  std::vector<float> AllGather(const std::vector<float>& values) override { return values; }
};

}  // namespace mxu::train

#endif  // MXU_TRAIN_COLLECTIVE_H_
