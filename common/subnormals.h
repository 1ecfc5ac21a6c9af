// How the arithmetic treats subnormal numbers (docs/numerics.md). A build parameter of the RTL
// (mxu_pkg::FlushSubnormals) and an argument of the golden model.
#ifndef MXU_COMMON_SUBNORMALS_H_
#define MXU_COMMON_SUBNORMALS_H_

namespace mxu {

enum class Subnormals {
  kIeee,   // subnormal inputs and results kept: the host CPU's default mode
  kFlush,  // subnormal inputs read as zero, subnormal results flushed (FTZ + DAZ)
};

inline const char* ToString(Subnormals mode) {
  return mode == Subnormals::kIeee ? "ieee" : "flush";
}

}  // namespace mxu

#endif  // MXU_COMMON_SUBNORMALS_H_
