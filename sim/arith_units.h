// The verilated arithmetic units (sim/arith_harness.sv) behind a plain C++ interface.
#ifndef MXU_SIM_ARITH_UNITS_H_
#define MXU_SIM_ARITH_UNITS_H_

#include <cstdint>
#include <memory>

#include "common/subnormals.h"

class VerilatedContext;
class Varith_harness;

namespace mxu::sim {

class ArithUnits {
 public:
  ArithUnits();
  ~ArithUnits();
  ArithUnits(const ArithUnits&) = delete;
  ArithUnits& operator=(const ArithUnits&) = delete;

  // Every unit's output in both modes for one pair of operands, indexed by Subnormals.
  struct Outputs {
    uint32_t mul[2];      // bf16_mul(a[15:0], b[15:0])
    uint32_t add[2];      // fp32_add(a, b)
    uint16_t to_bf16[2];  // fp32_to_bf16(a)
  };
  Outputs Evaluate(uint32_t a, uint32_t b);

  // Each call drives the operands and evaluates the combinational units. Results are raw bits.
  uint32_t Bf16Mul(uint16_t a, uint16_t b, Subnormals mode);
  uint32_t Fp32Add(uint32_t a, uint32_t b, Subnormals mode);
  uint16_t Fp32ToBf16(uint32_t a, Subnormals mode);

 private:
  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<Varith_harness> model_;
};

}  // namespace mxu::sim

#endif  // MXU_SIM_ARITH_UNITS_H_
