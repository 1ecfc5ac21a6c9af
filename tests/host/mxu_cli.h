// Runs the built `mxu` binary (MXU_BINARY) as a child process, as a user would, for the
// command-line tests. Scratch files go to MXU_CLI_TMPDIR under per-process names: ctest runs the
// cases of a test binary in parallel.
#ifndef MXU_TESTS_HOST_MXU_CLI_H_
#define MXU_TESTS_HOST_MXU_CLI_H_

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

// A tiny IDX data set in folder dir (which must exist): 40 training and 10 test images of 2x2,
// two classes, under the four file names `--data` looks for.
inline void WriteTinyIdxData(const std::string& dir) {
  const auto idx = [](char dims, std::vector<uint32_t> shape, size_t count) {
    std::string bytes = {0, 0, 8, dims};
    for (uint32_t d : shape) {
      for (int byte = 3; byte >= 0; --byte) bytes += static_cast<char>(d >> (8 * byte));
    }
    for (size_t i = 0; i < count; ++i) bytes += static_cast<char>(dims == 1 ? i % 2 : i * 37);
    return bytes;
  };
  WriteBytes(dir + "/train-images-idx3-ubyte", idx(3, {40, 2, 2}, 160));
  WriteBytes(dir + "/train-labels-idx1-ubyte", idx(1, {40}, 40));
  WriteBytes(dir + "/t10k-images-idx3-ubyte", idx(3, {10, 2, 2}, 40));
  WriteBytes(dir + "/t10k-labels-idx1-ubyte", idx(1, {10}, 10));
}

}  // namespace mxu::host

#endif  // MXU_TESTS_HOST_MXU_CLI_H_
