#include "sim/arith_units.h"

#include "Varith_harness.h"
#include "verilated.h"

namespace mxu::sim {

ArithUnits::ArithUnits()
    : context_(std::make_unique<VerilatedContext>()),
      model_(std::make_unique<Varith_harness>(context_.get(), "arith")) {}

ArithUnits::~ArithUnits() { model_->final(); }

ArithUnits::Outputs ArithUnits::Evaluate(uint32_t a, uint32_t b) {
  model_->a_i = a;
  model_->b_i = b;
  model_->eval();
  return {{model_->mul_ieee_o, model_->mul_flush_o},
          {model_->add_ieee_o, model_->add_flush_o},
          {model_->to_bf16_ieee_o, model_->to_bf16_flush_o}};
}

uint32_t ArithUnits::Bf16Mul(uint16_t a, uint16_t b, Subnormals mode) {
  return Evaluate(a, b).mul[static_cast<int>(mode)];
}

uint32_t ArithUnits::Fp32Add(uint32_t a, uint32_t b, Subnormals mode) {
  return Evaluate(a, b).add[static_cast<int>(mode)];
}

uint16_t ArithUnits::Fp32ToBf16(uint32_t a, Subnormals mode) {
  return Evaluate(a, 0).to_bf16[static_cast<int>(mode)];
}

}  // namespace mxu::sim
