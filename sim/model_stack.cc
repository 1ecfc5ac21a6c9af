#include "sim/model_stack.h"

#include <sys/mman.h>
#include <ucontext.h>

#include <exception>
#include <stdexcept>
#include <string>

namespace mxu::sim {
namespace {

// The call in progress on a ModelStack (makecontext passes no pointer portably).
struct Call {
  const std::function<void()>* fn;
  std::exception_ptr error;
  ucontext_t caller;
};
thread_local Call* g_call = nullptr;

void Trampoline() {
  Call* call = g_call;
  try {
    (*call->fn)();
  } catch (...) {
    call->error = std::current_exception();  // rethrown on the caller's stack
  }
}  // returns to uc_link: the caller

}  // namespace

ModelStack::ModelStack()
    : stack_(mmap(nullptr, kModelStackBytes, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0)) {
  if (stack_ == MAP_FAILED) {
    throw std::runtime_error("cannot map a " + std::to_string(kModelStackBytes >> 20) +
                             " MiB stack for the RTL model's evaluation");
  }
}

ModelStack::~ModelStack() { munmap(stack_, kModelStackBytes); }

void ModelStack::Run(const std::function<void()>& fn) {
  if (running_) {
    fn();
    return;
  }
  running_ = true;
  Call call{&fn, nullptr, {}};
  ucontext_t callee;
  getcontext(&callee);
  callee.uc_stack.ss_sp = stack_;
  callee.uc_stack.ss_size = kModelStackBytes;
  callee.uc_link = &call.caller;
  makecontext(&callee, Trampoline, 0);
  Call* const outer = g_call;
  g_call = &call;
  swapcontext(&call.caller, &callee);
  g_call = outer;
  running_ = false;
  if (call.error) std::rethrow_exception(call.error);
}

}  // namespace mxu::sim
