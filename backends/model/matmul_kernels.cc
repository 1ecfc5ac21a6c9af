// A MATMUL's rows on the host: the portable scalar loops and the AVX2 ones, chosen at run time.
// The vectors hold columns: lane c does column c's multiply and add in row order, exactly the
// scalar loop's operations, so the bits are the same (NaN payloads differ only inside a sum,
// and every NaN result is written canonical).
#include "backends/model/matmul_kernels.h"

#include <algorithm>
#include <atomic>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#include "backends/model/bits.h"
#include "common/bf16.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define MXU_MODEL_X86 1
#endif

namespace mxu::backends::model {
namespace {

// Products of at least this many multiplies run on both cores (a thread's start costs tens of
// microseconds: a 128 x 128 array's MATMUL of 256 rows is 4 M).
constexpr uint64_t kThreadMacs = uint64_t{1} << 20;

void FloatScalar(const MatmulRows<float>& m) {
  std::vector<float> psum(m.C);
  for (uint32_t i = 0; i < m.rows; ++i) {
    const uint16_t* in = m.in + i * m.in_stride;
    uint32_t* acc = m.acc + size_t{i} * m.C;
    std::fill(psum.begin(), psum.end(), 0.0f);
    for (uint32_t r = 0; r < m.k; ++r) {
      const float av = Bf16ToFloat(in[r]);
      const float* wr = m.w + size_t{r} * m.C;
      for (uint32_t c = 0; c < m.C; ++c) psum[c] = psum[c] + av * wr[c];
    }
    for (uint32_t c = 0; c < m.C; ++c) {
      float v = c < m.n ? psum[c] : 0.0f;
      if (m.accumulate) v = F(acc[c]) + v;
      acc[c] = Canon(v);
    }
  }
}

// A column's sum of at most R products is exact in int32 (|product| <= 2^14).
void IntScalar(const MatmulRows<int32_t>& m) {
  std::vector<int32_t> psum(m.C);
  for (uint32_t i = 0; i < m.rows; ++i) {
    const uint16_t* in = m.in + i * m.in_stride;
    uint32_t* acc = m.acc + size_t{i} * m.C;
    std::fill(psum.begin(), psum.end(), 0);
    for (uint32_t r = 0; r < m.k; ++r) {
      const int32_t av = LaneInt8(in[r]);
      const int32_t* wr = m.w + size_t{r} * m.C;
      for (uint32_t c = 0; c < m.C; ++c) psum[c] += av * wr[c];
    }
    for (uint32_t c = 0; c < m.C; ++c) {
      const uint32_t sum = c < m.n ? static_cast<uint32_t>(psum[c]) : 0u;
      acc[c] = m.accumulate ? acc[c] + sum : sum;  // unsigned: wraps modulo 2^32
    }
  }
}

#ifdef MXU_MODEL_X86

// All ones in the lanes below `count` (of 8).
__attribute__((target("avx2"))) __m256i LaneMask(uint32_t from, uint32_t to) {
  const uint32_t count = to > from ? std::min<uint32_t>(to - from, 8) : 0;
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// Each row's first k operands widened to float (bf16 is fp32's top half), so that the kernel
// broadcasts an operand straight from memory.
__attribute__((target("avx2"))) void Widen(const MatmulRows<float>& m, float* out) {
  for (uint32_t i = 0; i < m.rows; ++i, out += m.k) {
    const uint16_t* in = m.in + i * m.in_stride;
    uint32_t r = 0;
    for (; r + 8 <= m.k; r += 8) {
      const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + r));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + r),
                          _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
    }
    for (; r < m.k; ++r) out[r] = Bf16ToFloat(in[r]);
  }
}

// Rows i .. i + N - 1, columns c0 .. c0 + 8B - 1 (those below C): N x B vectors of partial sums
// in registers across the k products, N rows at once so that the adds of one column (a chain,
// each waiting on the last) overlap with the other rows'. `a`: the rows' widened operands.
template <int B, int N>
__attribute__((target("avx2"))) void FloatRowsAvx2(const MatmulRows<float>& m, const float* a,
                                                   uint32_t i, uint32_t c0, const __m256i* lanes,
                                                   const __m256i* live) {
  const bool full = c0 + 8 * B <= m.C;  // every lane a column: plain loads
  __m256 p[N][B];
  for (int j = 0; j < N; ++j) {
    for (int b = 0; b < B; ++b) p[j][b] = _mm256_setzero_ps();
  }
  const float* ar = a + size_t{i} * m.k;
  for (uint32_t r = 0; r < m.k; ++r) {
    const float* wr = m.w + size_t{r} * m.C + c0;
    __m256 w[B];
    for (int b = 0; b < B; ++b) {
      w[b] = full ? _mm256_loadu_ps(wr + 8 * b) : _mm256_maskload_ps(wr + 8 * b, lanes[b]);
    }
    for (int j = 0; j < N; ++j) {
      const __m256 av = _mm256_broadcast_ss(ar + static_cast<size_t>(j) * m.k + r);
      for (int b = 0; b < B; ++b) p[j][b] = _mm256_add_ps(p[j][b], _mm256_mul_ps(av, w[b]));
    }
  }
  const __m256 nan = _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(kNan)));
  for (int j = 0; j < N; ++j) {
    float* acc = reinterpret_cast<float*>(m.acc + size_t{i + j} * m.C + c0);
    for (int b = 0; b < B; ++b) {
      __m256 v = _mm256_and_ps(p[j][b], _mm256_castsi256_ps(live[b]));  // +0 past the tile
      if (m.accumulate) v = _mm256_add_ps(_mm256_maskload_ps(acc + 8 * b, lanes[b]), v);
      v = _mm256_blendv_ps(v, nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
      _mm256_maskstore_ps(acc + 8 * b, lanes[b], v);
    }
  }
}

// Columns c0 .. c0 + 8B - 1 of every row, a few rows at a time.
template <int B>
__attribute__((target("avx2"))) void FloatAvx2(const MatmulRows<float>& m, const float* a,
                                               uint32_t c0) {
  // N x B partial sums, the weights and an operand fit the 16 registers.
  constexpr int kRows = B == 1 ? 8 : (B == 2 ? 6 : 2);
  __m256i lanes[B], live[B];  // lanes that exist, lanes of the tile's columns
  for (int b = 0; b < B; ++b) {
    lanes[b] = LaneMask(c0 + 8 * b, m.C);
    live[b] = LaneMask(c0 + 8 * b, std::min(m.n, m.C));
  }
  uint32_t i = 0;
  for (; i + kRows <= m.rows; i += kRows) FloatRowsAvx2<B, kRows>(m, a, i, c0, lanes, live);
  for (; i < m.rows; ++i) FloatRowsAvx2<B, 1>(m, a, i, c0, lanes, live);
}

template <int B>
__attribute__((target("avx2"))) void IntAvx2(const MatmulRows<int32_t>& m, uint32_t c0) {
  __m256i lanes[B], live[B];
  for (int b = 0; b < B; ++b) {
    lanes[b] = LaneMask(c0 + 8 * b, m.C);
    live[b] = LaneMask(c0 + 8 * b, std::min(m.n, m.C));
  }
  for (uint32_t i = 0; i < m.rows; ++i) {
    const uint16_t* in = m.in + i * m.in_stride;
    __m256i p[B];
    for (int b = 0; b < B; ++b) p[b] = _mm256_setzero_si256();
    for (uint32_t r = 0; r < m.k; ++r) {
      const __m256i av = _mm256_set1_epi32(LaneInt8(in[r]));
      const int* wr = m.w + size_t{r} * m.C + c0;
      for (int b = 0; b < B; ++b) {
        const __m256i w = _mm256_maskload_epi32(wr + 8 * b, lanes[b]);
        p[b] = _mm256_add_epi32(p[b], _mm256_mullo_epi32(av, w));
      }
    }
    int* acc = reinterpret_cast<int*>(m.acc + size_t{i} * m.C + c0);
    for (int b = 0; b < B; ++b) {
      __m256i v = _mm256_and_si256(p[b], live[b]);
      if (m.accumulate) v = _mm256_add_epi32(_mm256_maskload_epi32(acc + 8 * b, lanes[b]), v);
      _mm256_maskstore_epi32(acc + 8 * b, lanes[b], v);
    }
  }
}

// Up to 32 columns a pass (four vectors of partial sums in registers): kernel<B>(m, c0).
template <typename W, typename Kernel>
void ColumnPasses(const MatmulRows<W>& m, Kernel kernel) {
  for (uint32_t c0 = 0; c0 < m.C; c0 += 32) {
    switch (std::min<uint32_t>((m.C - c0 + 7) / 8, 4)) {
      case 1:
        kernel(std::integral_constant<int, 1>(), c0);
        break;
      case 2:
        kernel(std::integral_constant<int, 2>(), c0);
        break;
      case 3:
        kernel(std::integral_constant<int, 3>(), c0);
        break;
      default:
        kernel(std::integral_constant<int, 4>(), c0);
        break;
    }
  }
}

void FloatVector(const MatmulRows<float>& m, const float* a) {
  ColumnPasses(m, [&](auto b, uint32_t c0) { FloatAvx2<decltype(b)::value>(m, a, c0); });
}
void IntVector(const MatmulRows<int32_t>& m) {
  ColumnPasses(m, [&](auto b, uint32_t c0) { IntAvx2<decltype(b)::value>(m, c0); });
}

// Rows from `first` on of m (its operands and results), the rest dropped.
template <typename W>
MatmulRows<W> RowsFrom(const MatmulRows<W>& m, uint32_t first) {
  MatmulRows<W> part = m;
  part.rows = m.rows - first;
  part.in += first * m.in_stride;
  part.acc += size_t{first} * m.C;
  return part;
}

// A large product's rows in two halves, the second on a thread of its own in the caller's
// floating-point mode (MXCSR: FTZ/DAZ); rows are independent, so the bits are the same either
// way. body(part, first_row).
template <typename W, typename Body>
void BothCores(const MatmulRows<W>& m, Body body) {
  static const bool two = std::thread::hardware_concurrency() >= 2;
  if (!two || m.rows < 2 || uint64_t{m.rows} * m.k * m.C < kThreadMacs) {
    body(m, 0);
    return;
  }
  const uint32_t half = m.rows / 2;
  MatmulRows<W> top = m;
  top.rows = half;
  const MatmulRows<W> bottom = RowsFrom(m, half);
  const unsigned csr = _mm_getcsr();
  std::thread worker;
  try {
    worker = std::thread([&] {
      _mm_setcsr(csr);
      body(bottom, half);
    });
  } catch (const std::system_error&) {  // no thread to be had: the caller does both
    body(bottom, half);
  }
  body(top, 0);
  if (worker.joinable()) worker.join();
}

MatmulPath BestPath() {
  return __builtin_cpu_supports("avx2") ? MatmulPath::kAvx2 : MatmulPath::kScalar;
}

#else

MatmulPath BestPath() { return MatmulPath::kScalar; }

#endif

std::atomic<MatmulPath>& Path() {
  static std::atomic<MatmulPath> path{BestPath()};
  return path;
}

}  // namespace

MatmulPath ActiveMatmulPath() { return Path().load(std::memory_order_relaxed); }

void ForceMatmulPath(MatmulPath path) {
  Path().store(path == MatmulPath::kScalar ? path : BestPath(), std::memory_order_relaxed);
}

void MatmulFloatRows(const MatmulRows<float>& m) {
#ifdef MXU_MODEL_X86
  if (ActiveMatmulPath() == MatmulPath::kAvx2) {
    thread_local std::vector<float> widened;
    widened.resize(size_t{m.rows} * m.k);
    Widen(m, widened.data());
    const float* a = widened.data();  // the thread-local's, not the worker's own
    BothCores(m, [&m, a](const MatmulRows<float>& part, uint32_t first) {
      FloatVector(part, a + size_t{first} * m.k);
    });
    return;
  }
#endif
  FloatScalar(m);
}

void MatmulIntRows(const MatmulRows<int32_t>& m) {
#ifdef MXU_MODEL_X86
  if (ActiveMatmulPath() == MatmulPath::kAvx2) {
    BothCores(m, [](const MatmulRows<int32_t>& part, uint32_t) { IntVector(part); });
    return;
  }
#endif
  IntScalar(m);
}

}  // namespace mxu::backends::model
