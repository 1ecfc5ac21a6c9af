// sim::ModelStack: code run on it has the model's stack (kModelStackBytes, far more than a
// process's main stack of 8 MiB, where a 128 x 128 device's settle overflowed), returns to the
// caller, and an exception it throws reaches the caller.
#include "sim/model_stack.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace mxu::sim {
namespace {

// Touches `bytes` of stack below the caller's frame, as a verilated settle's wide temporaries do.
__attribute__((noinline)) uint64_t UseStack(size_t bytes) {
  volatile char* block = static_cast<volatile char*>(__builtin_alloca(bytes));
  for (size_t i = 0; i < bytes; i += 4096) block[i] = static_cast<char>(i >> 12);
  uint64_t sum = 0;
  for (size_t i = 0; i < bytes; i += 4096) sum += static_cast<unsigned char>(block[i]);
  return sum;
}

TEST(ModelStack, RunsCodeNeedingFarMoreThanTheMainStack) {
  ModelStack stack;
  const size_t bytes = size_t{64} << 20;  // 8 times the main stack's usual limit
  uint64_t sum = 0;
  stack.Run([&] { sum = UseStack(bytes); });
  uint64_t want = 0;
  for (size_t i = 0; i < bytes; i += 4096) want += static_cast<unsigned char>(i >> 12);
  EXPECT_EQ(sum, want);
}

TEST(ModelStack, RethrowsOnTheCallersStackAndStaysUsable) {
  ModelStack stack;
  EXPECT_THROW(stack.Run([] { throw std::runtime_error("inside"); }), std::runtime_error);
  int runs = 0;
  stack.Run([&] {
    ++runs;
    stack.Run([&] { ++runs; });  // from the stack itself: runs where it is
  });
  EXPECT_EQ(runs, 2);
}

}  // namespace
}  // namespace mxu::sim
