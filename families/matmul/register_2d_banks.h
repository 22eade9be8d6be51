// The 2D register-tiled kernel's shared-memory accesses (kernels/matmul/register_2d.cuh)
// as the compiler emits them, for the bank model (tilelab/banks.h). Lessons 05 and 07 use it.
//
// The source reads and writes single floats in places where consecutive floats of one thread lie
// next to each other; NVCC merges such a run into float2/float4 accesses wherever it can prove
// the alignment. SharedSiteBuilder (tilelab/banks.h) applies that rule; the instruction counts
// per width it gives were checked against the PTX of sm_90 at BM=BN=128, BK=TM=TN=8, DBUF=1, for
// TRANSPOSE_A 0/1 with PAD 0, 2, 4, FLOAT4 0/1 and UNROLL 1/2. At odd PAD the PTX mixes widths
// differently (and over-reads): the reads carry a caveat there.
#pragma once
#include "register_2d.h"

namespace tilelab::matmul {

inline std::vector<SharedAccessSite> register_2d_shared_sites(const Register2dConfig& c, const Problem& p) {
    const int threads = c.threads(), cols = c.bn / c.tn, rows = c.bm / c.tm;
    const int ld_a = c.transpose_a ? c.bm + c.pad : c.bk + c.pad, ld_b = c.bn + c.pad;
    const int group_m = c.tm % 4 == 0 ? 4 : c.tm, group_n = c.tn % 4 == 0 ? 4 : c.tn;
    const int vec = c.float4_loads ? 4 : 1;
    const double repeats = double(ceil_div(p.dim[1], c.bn)) * double(ceil_div(p.dim[0], c.bm)) *
                           double(ceil_div(p.dim[2], c.bk));
    const auto gcd4 = [](int64_t x) { return pow2_alignment(x); };
    std::vector<SharedAccessSite> out;

    // Stores: element e = tid + r·threads of each tile, `vec` consecutive k (A) or n (B) per r.
    SharedSiteBuilder a_store("As store", c.transpose_a ? "As[k+i][m]: word = (k+i)·(BM+PAD) + m" : "As[m][k+i]: word = m·(BK+PAD) + k + i", true);
    for (int r = 0; r < c.bm * c.bk / threads / vec; ++r) {
        const auto m_of = [=](int t) { return (t + r * threads) / (c.bk / vec); };
        const auto k_of = [=](int t) { return ((t + r * threads) % (c.bk / vec)) * vec; };
        if (c.transpose_a) {
            for (int i = 0; i < vec; ++i)
                a_store.run([=](int t) { return (k_of(t) + i) * ld_a + m_of(t); }, 0, 1, 1);
        } else {
            a_store.run([=](int t) { return m_of(t) * ld_a + k_of(t); }, 0, vec, std::min(gcd4(ld_a), vec));
        }
    }
    SharedSiteBuilder b_store("Bs store", "Bs[k][n+i]: word = k·(BN+PAD) + n + i", true);
    for (int r = 0; r < c.bk * c.bn / threads / vec; ++r) {
        const auto k_of = [=](int t) { return (t + r * threads) / (c.bn / vec); };
        const auto n_of = [=](int t) { return ((t + r * threads) % (c.bn / vec)) * vec; };
        b_store.run([=](int t) { return k_of(t) * ld_b + n_of(t); }, 0, vec, std::min(gcd4(ld_b), vec));
    }

    // Fragment reads, per k of the slice: TM values of A and TN of B.
    SharedSiteBuilder a_load("As read (a_frag)", c.transpose_a ? "As[k][m]: word = k·(BM+PAD) + m" : "As[m][k]: word = m·(BK+PAD) + k", false);
    SharedSiteBuilder b_load("Bs read (b_frag)", "Bs[k][n]: word = k·(BN+PAD) + n", false);
    const auto row_const = [=](int i) { return (i / group_m) * (rows * group_m) + i % group_m; };   // + ty·group_m
    const auto col_const = [=](int j) { return (j / group_n) * (cols * group_n) + j % group_n; };   // + tx·group_n
    const auto ty_of = [=](int t) { return t / cols; };
    const auto tx_of = [=](int t) { return t % cols; };
    const bool vec_frag_a = c.transpose_a && group_m == 4 && ld_a % 4 == 0;
    const bool vec_frag_b = group_n == 4 && ld_b % 4 == 0;
    // k·ld_a is a known constant only when the k loop is unrolled; else only its alignment is known.
    const int k_known = c.unroll >= 2 ? 4 : gcd4(ld_a);
    if (!c.transpose_a && c.unroll >= 2) {
        // As[m][k] with the k loop unrolled: each row's BK floats are one run along k.
        for (int i = 0; i < c.tm; ++i)
            a_load.run([=](int t) { return ty_of(t) * group_m * ld_a; }, int64_t(row_const(i)) * ld_a, c.bk,
                       gcd4(int64_t(group_m) * ld_a));
    } else {
        for (int k = 0; k < c.bk; ++k)
            for (int g = 0; g < c.tm; g += group_m) {
                if (vec_frag_a) {
                    a_load.run([=](int t) { return ty_of(t) * 4; }, int64_t(k) * ld_a + row_const(g), 4, 4);
                } else if (c.transpose_a && c.unroll >= 1) {
                    a_load.run([=](int t) { return ty_of(t) * group_m; }, int64_t(k) * ld_a + row_const(g), group_m,
                               std::min(gcd4(group_m), k_known));
                } else {
                    for (int i = g; i < g + group_m; ++i) {
                        if (c.transpose_a)
                            a_load.run([=](int t) { return ty_of(t) * group_m; }, int64_t(k) * ld_a + row_const(i), 1, 1);
                        else
                            a_load.run([=](int t) { return ty_of(t) * group_m * ld_a; }, int64_t(row_const(i)) * ld_a + k, 1, 1);
                    }
                }
            }
    }
    for (int k = 0; k < c.bk; ++k)
        for (int g = 0; g < c.tn; g += group_n) {
            const int64_t at = int64_t(k) * ld_b + col_const(g);
            const auto thread_part = [=](int t) { return tx_of(t) * group_n; };
            if (vec_frag_b) b_load.run(thread_part, at, 4, 4);
            else if (c.unroll >= 1) b_load.run(thread_part, at, group_n, std::min(gcd4(group_n), c.unroll >= 2 ? 4 : gcd4(ld_b)));
            else for (int j = 0; j < group_n; ++j) b_load.run(thread_part, at + j, 1, 1);
        }
    // Odd leading dimensions: the compiler's mix of widths (over-reading vectors included) was
    // not reproduced by the rule above; the stores are exact, the reads are not.
    const bool odd = ld_a % 2 != 0 || ld_b % 2 != 0;
    if (odd) {
        const std::string why = "With an odd PAD the compiler mixes float, float2 and float4 reads in a way this model does not reproduce: these counts are approximate.";
        a_load.set_caveat(why);
        b_load.set_caveat(why);
    }
    for (const SharedSiteBuilder* b : {&a_store, &b_store, &a_load, &b_load}) b->add_to(out, threads, repeats);
    return out;
}

// The 2D kernel as a variant's config: lessons 05 and 07 both compile it and differ only in
// their parameters.
struct Register2dVariant : Register2dConfig {
    static Register2dVariant from(const ParamReader& p) { return {register_2d_config(p)}; }
    std::string invalid_reason(const Problem& p, const Target& t) const { return register_2d_invalid_reason(*this, p, t); }
    KernelInstance kernel() const { return register_2d_kernel(*this); }
    LaunchShape launch(const Problem& p) const { return register_2d_launch(*this, p); }
    TileGeometry tiles(const Problem& p) const { return register_2d_tiles(*this, p); }
    CostModel cost_model(const Problem& p) const { return register_2d_cost_model(*this, p); }
    std::vector<SharedAccessSite> shared_sites(const Problem& p) const { return register_2d_shared_sites(*this, p); }
};

}  // namespace tilelab::matmul
