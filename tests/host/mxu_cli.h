// Runs the built `mxu` binary (MXU_BINARY) as a child process, as a user would, for the
// command-line tests. Scratch files go to MXU_CLI_TMPDIR under per-process names: ctest runs the
// cases of a test binary in parallel.
#ifndef MXU_TESTS_HOST_MXU_CLI_H_
#define MXU_TESTS_HOST_MXU_CLI_H_

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

namespace mxu::host {

struct CliResult {
  int exit_code;
  std::string out, err;
};

inline std::string TempPath(const std::string& name) {
  return std::string(MXU_CLI_TMPDIR) + "/" + std::to_string(getpid()) + "_" + name;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs a shell command: its stdout, its stderr (through a scratch file) and its exit code.
inline CliResult RunShell(const std::string& command) {
  const std::string err_path = TempPath("stderr.txt");
  CliResult result;
  FILE* pipe = popen((command + " 2>" + err_path).c_str(), "r");
  char buffer[4096];
  while (pipe && fgets(buffer, sizeof buffer, pipe)) result.out += buffer;
  const int status = pipe ? pclose(pipe) : -1;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = ReadFile(err_path);
  return result;
}

inline CliResult RunMxu(const std::string& args) {
  return RunShell(std::string(MXU_BINARY) + " " + args);
}

// Bad input: exit code 2 and one line on stderr that contains `fragment`.
inline void ExpectUsageError(const std::string& args, const std::string& fragment) {
  const CliResult r = RunMxu(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << args << "\n" << r.err;
}

// The JSON object a --json run printed on stdout (an empty object when it printed nothing); the
// run must have succeeded.
inline nlohmann::json JsonOutput(const CliResult& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out.empty() ? "{}" : r.out);
}

inline void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace mxu::host

#endif  // MXU_TESTS_HOST_MXU_CLI_H_
