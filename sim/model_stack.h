// A stack for the verilated model's evaluation. Verilator keeps a model's wide temporaries on the
// stack of whoever calls eval(): a 128 x 128 device's settle needs more than a process's main
// stack (8 MiB; it overflowed there). The platform's SystemC thread gets kModelStackBytes of its
// own (set_stack_size), and the evaluations made outside that thread (the constructor's reset, a
// CSR access's settle) run on a ModelStack: the same size, on the same OS thread (a ucontext, so
// the model's thread-local state holds), its pages committed only as they are touched.
#ifndef MXU_SIM_MODEL_STACK_H_
#define MXU_SIM_MODEL_STACK_H_

#include <cstddef>
#include <functional>

namespace mxu::sim {

inline constexpr size_t kModelStackBytes = size_t{256} * 1024 * 1024;

class ModelStack {
 public:
  ModelStack();  // maps the stack (std::runtime_error if it cannot)
  ~ModelStack();
  ModelStack(const ModelStack&) = delete;
  ModelStack& operator=(const ModelStack&) = delete;

  // Runs fn on this stack and returns when it does; an exception it throws is rethrown here.
  void Run(const std::function<void()>& fn);

 private:
  void* stack_;
  bool running_ = false;  // a call from code already on this stack runs where it is
};

}  // namespace mxu::sim

#endif  // MXU_SIM_MODEL_STACK_H_
