#include "host/cli/rank_agreement.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace mxu::host {
namespace {

// FNV-1a, 64 bits: the same on every rank and every build.
uint64_t Hash(const std::string& text, uint64_t hash = 14695981039346656037ull) {
  for (const unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

std::vector<const CLI::Option*> Compared(const CLI::App& command,
                                         const std::set<std::string>& ignored) {
  std::vector<const CLI::Option*> options;
  for (const CLI::Option* option : command.get_options()) {
    if (ignored.count(option->get_name()) == 0 && option->get_name() != "--help") {
      options.push_back(option);
    }
  }
  return options;
}

}  // namespace

uint64_t OptionHash(const CLI::Option& option) {
  // A value given equal to the default is the default: the ranks run the same job.
  uint64_t hash = Hash(option.get_name());
  if (option.count() == 0) return Hash("=" + option.get_default_str(), hash);
  for (const std::string& value : option.results()) hash = Hash("=" + value, hash);
  return hash;
}

std::string DifferingOption(const CLI::App& command, const std::set<std::string>& ignored,
                            train::Collective& ranks) {
  const std::vector<const CLI::Option*> options = Compared(command, ignored);
  uint64_t all = 0;
  for (const CLI::Option* option : options) all = Hash(std::to_string(OptionHash(*option)), all);
  const std::vector<uint64_t> hashes = ranks.AllGather(all);
  bool agree = true;
  for (const uint64_t h : hashes) agree = agree && h == hashes[0];
  if (agree) return "";
  // Every rank learnt the same: now option by option, in the same order on every rank.
  for (const CLI::Option* option : options) {
    const std::vector<uint64_t> each = ranks.AllGather(OptionHash(*option));
    for (const uint64_t h : each) {
      if (h != each[0]) return option->get_name();
    }
  }
  return "the options";  // not reached: some option's hash differs
}

int FirstFailedRank(train::Collective& ranks, int code, int* failed_code) {
  const std::vector<uint64_t> codes = ranks.AllGather(static_cast<uint64_t>(code));
  for (size_t r = 0; r < codes.size(); ++r) {
    if (codes[r] == 0) continue;
    if (failed_code) *failed_code = static_cast<int>(codes[r]);
    return static_cast<int>(r);
  }
  return -1;
}

std::optional<int> LeaveUnlessOneCommand(const std::string& command, train::MpiCollective& ranks) {
  const std::vector<std::string> commands = ranks.AllGatherText(command);
  if (std::all_of(commands.begin(), commands.end(),
                  [&](const std::string& c) { return c == commands[0]; })) {
    return std::nullopt;
  }
  if (ranks.rank() == 0) {
    std::string which;
    for (size_t r = 0; r < commands.size(); ++r) {
      which += (r ? ", " : "") + commands[r] + " (rank " + std::to_string(r) + ")";
    }
    std::fprintf(stderr,
                 "mxu %s: the ranks of this job run different commands: %s; give every rank the "
                 "same command\n",
                 command.c_str(), which.c_str());
    std::fflush(stderr);
  }
  ranks.AllGather(uint64_t{0});  // mpirun stops the job at the first non-zero exit
  return 2;
}

std::optional<int> RefuseAsOneOfManyRanks(const std::string& command) {
  if (train::MpiWorldSize() <= 1) return std::nullopt;
  train::MpiCollective ranks;
  if (const std::optional<int> code = LeaveUnlessOneCommand(command, ranks)) return code;
  if (ranks.rank() == 0) {
    std::fprintf(stderr,
                 "mxu %s: runs as one process, not as the %d ranks of an MPI job (under mpirun "
                 "only train and bench --sweep use the ranks): run it without mpirun\n",
                 command.c_str(), ranks.size());
    std::fflush(stderr);
  }
  ranks.AllGather(uint64_t{0});
  return 2;
}

bool SilentRank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK"}) {
    const char* rank = std::getenv(name);
    if (rank != nullptr) return std::string(rank) != "0";
  }
  return false;
}

int SilentRankExit() {
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  return 2;
}

}  // namespace mxu::host
