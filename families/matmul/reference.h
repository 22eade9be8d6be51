// The matmul family's CPU reference, for the tests' CPU walks of its kernels: random A and
// B in [-1, 1), and the largest |C - A·B| of a walked C.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>
#include "tilelab/variant.h"

namespace tilelab::test {

struct Matrices {
    std::vector<float> a, b;   // A is M×K, B is K×N, row-major
};

inline Matrices random_inputs(const Problem& p, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    Matrices x;
    x.a.resize(size_t(p.dim[0] * p.dim[2]));
    x.b.resize(size_t(p.dim[2] * p.dim[1]));
    for (float& v : x.a) v = dist(gen);
    for (float& v : x.b) v = dist(gen);
    return x;
}

// Largest |C - A·B| over all elements, against a double-precision reference.
inline double max_error(const Problem& p, const Matrices& x, const std::vector<float>& c) {
    const int64_t M = p.dim[0], N = p.dim[1], K = p.dim[2];
    double worst = 0;
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
            double ref = 0;
            for (int64_t k = 0; k < K; ++k) ref += double(x.a[i * K + k]) * x.b[k * N + j];
            worst = std::max(worst, std::abs(ref - c[size_t(i * N + j)]));
        }
    return worst;
}

}  // namespace tilelab::test
