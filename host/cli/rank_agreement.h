// Under mpirun every rank must run the same job: a rank started with another --batch or --hidden
// would crash or hang in the first all-reduce. The ranks compare their configurations at start-up
// and their set-up's outcome before training, so that a difference or a usage error stops every
// rank with one line, printed once, and exit code 2 on every rank.
#ifndef MXU_HOST_CLI_RANK_AGREEMENT_H_
#define MXU_HOST_CLI_RANK_AGREEMENT_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "train/collective.h"
#include "train/mpi_collective.h"

namespace mxu::host {

// A hash of one option's value as parsed (its default when not given).
uint64_t OptionHash(const CLI::Option& option);

// The first option of command (outside `ignored`: those that only name outputs or the
// presentation) whose value differs between the ranks, or "" when they all agree. Every rank
// calls it at the same point; it costs one all-gather when they agree.
std::string DifferingOption(const CLI::App& command, const std::set<std::string>& ignored,
                            train::Collective& ranks);

// Every rank's outcome of the set-up: 0 ready, else its exit code. Returns the lowest rank that
// failed (its code in *failed_code), or -1 when every rank is ready. Every rank calls it once,
// failed or not.
int FirstFailedRank(train::Collective& ranks, int code, int* failed_code = nullptr);

// Under mpirun every rank first learns the command each rank runs (`mpirun -np 1 mxu train :
// -np 1 mxu predict` left the train rank waiting for ever). When they differ, rank 0 prints one
// line naming them and every rank returns exit code 2, once the line is out; otherwise nullopt.
// Every rank of the job calls it, whatever its command, before any other collective call.
std::optional<int> LeaveUnlessOneCommand(const std::string& command, train::MpiCollective& ranks);

// A command that runs as one process (all but train and bench --sweep), started as one of N > 1
// ranks: it takes part in LeaveUnlessOneCommand, then refuses to run N times (exit code 2, one
// line). nullopt when not started so.
std::optional<int> RefuseAsOneOfManyRanks(const std::string& command);

// Under mpirun, whether this is a rank other than 0: bad usage found before MPI starts is the
// same on every rank, and rank 0 alone reports it.
bool SilentRank();

// A silent rank's way out of bad usage: exit code 2, after a moment, since mpirun stops the whole
// job when a rank exits non-zero and would otherwise kill rank 0 before its line is out.
int SilentRankExit();

}  // namespace mxu::host

#endif  // MXU_HOST_CLI_RANK_AGREEMENT_H_
