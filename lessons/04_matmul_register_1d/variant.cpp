// 1D register tiling: each of T threads computes U consecutive outputs of one row, with a slice
// of S values of A in registers and the S×U slice of B transposed in shared memory
// (kernels/matmul/register_1d.cuh).
#include <algorithm>
#include "../../families/matmul/model.h"
#include "tilelab/i18n.h"

namespace tilelab {
namespace {

constexpr int kMaxSliceProducts = 1024;   // S·U, the multiply-adds a thread unrolls per slice

// kernels/matmul/register_1d.cuh at one set of parameter values.
struct Register1d {
    int threads = 128;   // <- T: rows of C per block, one thread each
    int outputs = 128;   // <- U: consecutive outputs of a row per thread
    int slice = 1;       // <- S: values of A per thread per k-step

    static inline const std::vector<ParamSpec> params = {
        {.name = "T", .kind = ParamKind::Pow2, .min = 32, .max = 1024, .def = 128},
        {.name = "U", .kind = ParamKind::Pow2, .min = 1, .max = 256, .def = 128},
        // S stops at 8: the fully unrolled S×U inner loop at S=64 took NVRTC over a minute to
        // compile (255 registers, spills) and taught nothing the smaller slices do not.
        {.name = "S", .kind = ParamKind::Pow2, .min = 1, .max = 8, .def = 1},
    };
    static Register1d from(const ParamReader& p) { return {.threads = p["T"], .outputs = p["U"], .slice = p["S"]}; }
    int b_loads_per_thread() const { return slice * outputs / threads; }   // S·U/T
    int smem_bytes() const { return outputs * slice * 4; }

    std::string invalid_reason(const Problem& p, const Target& t) const;
    KernelInstance kernel() const;
    // T threads a block, one row of C each: U columns by T rows of C per block.
    LaunchShape launch(const Problem& p) const {
        return {.grid = {unsigned(ceil_div(p.dim[1], outputs)), unsigned(ceil_div(p.dim[0], threads)), 1},
                .block = {unsigned(threads), 1, 1}};
    }
    TileGeometry tiles(const Problem& p) const;
    CostModel cost_model(const Problem& p) const;
    std::vector<SharedAccessSite> shared_sites(const Problem& p) const;
};

// Bt[U][S]: one 4-byte store per r. The U·S reads (ld.shared.f32 in the PTX) walk the whole array
// in order at constant offsets, so ptxas merges them into 16-byte loads (LDS.128) when U·S is a
// multiple of 4, else 8-byte ones when it is even: the H100's counters show U·S/4 load
// instructions at T=64 U=16 S=4. Every thread of every block issues them at every k-step of S.
std::vector<SharedAccessSite> Register1d::shared_sites(const Problem& p) const {
    const Register1d& c = *this;
    const int T = c.threads, U = c.outputs, S = c.slice;
    const double repeats = double(ceil_div(p.dim[1], U)) * double(ceil_div(p.dim[0], T)) * double(ceil_div(p.dim[2], S));
    SharedAccessSite store;
    store.name = "Bt[u][s] = B[k0+s][col0+u]";
    store.formula = "e = t + r·T, u = e mod U, s = e / U:  word = u·S + s,  r = 0..S·U/T−1";
    store.store = true;
    store.threads = T;
    store.instances = c.b_loads_per_thread();
    store.repeats = repeats;
    store.byte_address = [T, U, S](int r, int t) {
        const int e = t + r * T;
        return int64_t(4) * ((e % U) * S + e / U);
    };
    SharedAccessSite load;
    const int floats = (U * S) % 4 == 0 ? 4 : (U * S) % 2 == 0 ? 2 : 1;
    load.name = floats == 1 ? "Bt[u][s]" : floats == 2 ? "Bt[u][s] (float2)" : "Bt[u][s] (float4)";
    load.formula = "word = u·S + s = i, the same for every thread,  i = 0..U·S−1 in steps of the width";
    load.store = false;
    load.width_bytes = 4 * floats;
    load.threads = T;
    load.instances = U * S / floats;
    load.repeats = repeats;
    load.byte_address = [floats](int i, int) { return int64_t(4) * floats * i; };
    return {store, load};
}

std::string Register1d::invalid_reason(const Problem& p, const Target& t) const {
    const Register1d& c = *this;
    const int T = c.threads, U = c.outputs, S = c.slice;
    if (T > t.max_threads_per_block)
        return trf("constraint.matmul.register_1d.t_threads_per_block", T, t.max_threads_per_block);
    if ((S * U) % T != 0)
        return trf("constraint.matmul.register_1d.u_slice_b_has", S * U, T);
    // The S·U multiply-adds of a slice are unrolled (c_reg[u] needs a constant index). At U = 256
    // the accumulators alone overflow the 255 registers; with S = 8 on top, ptxas spends 4-10 s
    // on the spills (bench/compile_sweep; 1.5 s at S = 4).
    if (S * U > kMaxSliceProducts)
        return trf("constraint.matmul.register_1d.slice_products", S, U, S * U, kMaxSliceProducts);
    if (c.smem_bytes() > t.smem_per_block)
        return trf("constraint.matmul.register_1d.b_slice_needs_bytes", c.smem_bytes(), t.smem_per_block);
    if (ceil_div(p.dim[0], T) > t.max_grid_dim[1])
        return trf("constraint.matmul.register_1d.m_needs_block_rows",
            p.dim[0], ceil_div(p.dim[0], T), t.max_grid_dim[1]);
    return {};
}

// Counts in 4-byte elements; totals exact for any M, N, K (out-of-range elements are not
// loaded; the B slice is always stored whole, zero-padded; every thread always does S·U reads).
CostModel Register1d::cost_model(const Problem& p) const {
    const Register1d& c = *this;
    using matmul::add_extra;
    using matmul::add_formula;
    const double M = double(p.dim[0]), N = double(p.dim[1]), K = double(p.dim[2]);
    const double T = c.threads, U = c.outputs, S = c.slice, L = c.b_loads_per_thread();
    const double gx = double(ceil_div(p.dim[1], c.outputs)), gy = double(ceil_div(p.dim[0], c.threads));
    const double steps = double(ceil_div(p.dim[2], c.slice));
    const double blocks = gx * gy;

    CostModel m;
    // An interior thread: all K of its row of A, S·U/T elements of B per slice, U outputs.
    // With T = S·U and S dividing K this is seed 002's N + N/S + U (there K = N).
    m.per_thread.global_loads = K + L * K / S;
    m.per_thread.global_stores = U;
    m.per_thread.shared_stores = L * steps;
    m.per_thread.shared_loads = S * U * steps;
    m.per_block.global_loads = T * K + K * U;
    m.per_block.global_stores = T * U;
    m.per_block.shared_stores = S * U * steps;
    m.per_block.shared_loads = T * S * U * steps;
    m.total.global_loads = M * K * gx + K * N * gy;
    m.total.global_stores = M * N;
    m.total.shared_stores = blocks * m.per_block.shared_stores;
    m.total.shared_loads = blocks * m.per_block.shared_loads;
    matmul::finish_cost_model(m, p);

    add_formula(m, "threads / block", "T", T);
    add_formula(m, "blocks", "⌈N/U⌉·⌈M/T⌉", blocks);
    add_formula(m, "global loads / thread", "K + (S·U/T)·K/S  (= N + N/S when T = S·U, K = N)", m.per_thread.global_loads);
    add_formula(m, "global stores / thread", "U", U);
    add_formula(m, "global accesses / thread", "K + (S·U/T)·K/S + U", m.per_thread.global_loads + U);
    add_formula(m, "shared accesses / thread", "⌈K/S⌉·(S·U/T + S·U)", m.per_thread.shared_stores + m.per_thread.shared_loads);
    add_formula(m, "global loads, total", "M·K·⌈N/U⌉ + K·N·⌈M/T⌉", m.total.global_loads);
    add_formula(m, "global stores, total", "M·N", m.total.global_stores);
    add_formula(m, "shared stores, total", "blocks·⌈K/S⌉·S·U", m.total.shared_stores);
    add_formula(m, "shared loads, total", "blocks·T·⌈K/S⌉·S·U", m.total.shared_loads);
    add_formula(m, "FLOPs", "2·M·N·K", m.flops);
    add_formula(m, "arithmetic intensity (FLOP/B)", "2·M·N·K / (4·(global loads + stores))", m.intensity);

    // Register arrays, seed 002's way: per slice S writes of a_reg, S·U reads of a_reg and S·U
    // reads and writes of c_reg; plus U zeroing writes and U reads to write C out.
    const double reg_per_thread = 2 * U + steps * (S + 3 * S * U);
    add_extra(m, "register-array accesses / thread", "2·U + ⌈K/S⌉·(S + 3·S·U)", reg_per_thread);
    add_extra(m, "register-array accesses / block", "T · per thread", reg_per_thread * T);
    add_extra(m, "register-array accesses, total", "blocks · T · per thread", reg_per_thread * T * blocks);
    add_extra(m, "registers held in arrays / thread", "S + U", S + U);
    add_extra(m, "B elements each thread stages per slice", "S·U/T", L);
    add_extra(m, "static shared memory (bytes)", "U·S·4", c.smem_bytes());
    // The loads of A are strided across a warp: lane t reads row by·T + t, so the 32 lanes of one
    // load instruction read 32 floats K·4 bytes apart, one 32-byte sector each, where 32
    // consecutive floats (B's staging, C's stores) take 4 sectors.
    const double lanes = std::min(32.0, T);
    add_extra(m, "A: 32-byte sectors per warp load", "one per lane: the lanes sit on different rows, K floats apart", lanes);
    add_extra(m, "sectors per coalesced warp load", "32 consecutive floats = 128 bytes = 4 sectors", 4);
    add_extra(m, "A: useful bytes per sector fetched", "4 of 32: each lane uses one float of its sector per load", 4);
    return m;
}

KernelInstance Register1d::kernel() const {
    return {"matmul/register_1d.cuh", fmt::format("register_1d_matmul<{}, {}, {}>", threads, outputs, slice)};
}

// A block covers T rows × U columns of C, a thread U outputs of its row; per k-step of S the
// block stages the S×U slice of B in shared memory, while each thread reads its S values of A
// from global memory into registers.
TileGeometry Register1d::tiles(const Problem& p) const {
    TileGeometry t;
    t.extent = {p.dim[1], p.dim[0], 1};
    t.block_tile = {outputs, threads, 1};
    t.thread_tile = {outputs, 1, 1};
    t.reduction = p.dim[2];
    t.k_step = slice;
    t.b_in_shared = true;
    return t;
}

}  // namespace

TILELAB_VARIANT(make_register_1d_matmul, Register1d,
                {.id = "matmul.register_1d", .family = "matmul", .params = Register1d::params})

}  // namespace tilelab
