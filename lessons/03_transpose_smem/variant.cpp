// The shared-memory transpose as data: parameters, constraints, launch shape, cost model and the
// shared-memory access sites of kernels/transpose/smem.cuh. A block moves one
// TILE×TILE tile through shared memory: rows in, columns out. The lesson is about the banks the
// column walk hits, and how PAD, an XOR swizzle and the access width change them.
#include <fmt/format.h>
#include <algorithm>
#include <cstdint>
#include "tilelab/i18n.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"

namespace tilelab {
namespace {

constexpr int kRowsOfThreads = 8;   // threadIdx.y extent (TransposeTile::kRows in the kernel)

// kernels/transpose/smem.cuh at one set of parameter values.
struct SmemTranspose {
    int tile = 32;     // <- TILE: edge of the square shared tile
    int pad = 0;       // <- PAD: floats added to each shared row
    int swizzle = 0;   // <- SWIZZLE: XOR the column chunk with the row
    int vec = 1;       // <- VEC: floats per access (1, 2, 4)

    static inline const std::vector<ParamSpec> params = {
        {.name = "TILE", .kind = ParamKind::Pow2, .min = 8, .max = 64, .def = 32},
        {.name = "PAD", .kind = ParamKind::Int, .min = 0, .max = 8, .def = 0},
        {.name = "SWIZZLE", .kind = ParamKind::Bool, .min = 0, .max = 1, .def = 0},
        {.name = "VEC", .kind = ParamKind::Pow2, .min = 1, .max = 4, .def = 1},
    };
    static SmemTranspose from(const ParamReader& p) {
        return {.tile = p["TILE"], .pad = p["PAD"], .swizzle = p["SWIZZLE"], .vec = p["VEC"]};
    }
    std::string invalid_reason(const Problem& problem, const Target& target) const;
    KernelInstance kernel() const;
    // One block per TILE×TILE tile of the W×H input, TILE/VEC × 8 threads.
    LaunchShape launch(const Problem& p) const {
        return {.grid = {unsigned(ceil_div(p.dim[0], tile)), unsigned(ceil_div(p.dim[1], tile)), 1},
                .block = {unsigned(cols()), unsigned(kRowsOfThreads), 1}};
    }
    TileGeometry tiles(const Problem& problem) const;
    CostModel cost_model(const Problem& problem) const;
    std::vector<SharedAccessSite> shared_sites(const Problem& problem) const;
    int cols() const { return tile / vec; }                        // threads along x
    int threads() const { return cols() * kRowsOfThreads; }
    int pitch() const { return tile + pad; }                       // floats per shared row
    int smem_bytes() const { return tile * pitch() * int(sizeof(float)); }
    bool vector_row_store() const { return pad % vec == 0; }       // every row starts aligned
    // Word of logical element (row, col) of the tile: as transpose_tile_word in the kernel.
    int64_t word(int row, int col) const {
        const int chunks = tile / vec;
        const int chunk = swizzle ? (col / vec) ^ ((row / vec) % chunks) : col / vec;
        return int64_t(row) * pitch() + chunk * vec + col % vec;
    }
};

std::string SmemTranspose::invalid_reason(const Problem& problem, const Target& target) const {
    const SmemTranspose& s = *this;
    if (s.vec != 1 && s.vec != 2 && s.vec != 4)
        return trf("constraint.transpose.smem.vec_width", s.vec);
    if (s.tile % s.vec != 0)
        return trf("constraint.transpose.smem.row_splits", s.tile, s.vec);
    if (s.threads() > target.max_threads_per_block)
        return trf("constraint.transpose.smem.threads", s.cols(), kRowsOfThreads, target.max_threads_per_block);
    if (s.smem_bytes() > target.smem_per_block)
        return trf("constraint.transpose.smem.shared_bytes", s.tile, s.pitch(), s.smem_bytes(), target.name,
                   target.smem_per_block);
    const int64_t W = problem.dim[0], H = problem.dim[1];
    if (s.vec > 1 && (W % s.vec != 0 || H % s.vec != 0))
        return trf("constraint.transpose.smem.aligned_rows", 4 * s.vec, W, H, 4 * s.vec, s.vec);
    if (ceil_div(H, s.tile) > target.max_grid_dim[1])
        return trf("constraint.transpose.smem.grid_rows", H, ceil_div(H, s.tile), target.max_grid_dim[1]);
    return "";
}

KernelInstance SmemTranspose::kernel() const {
    const SmemTranspose& s = *this;
    return {"transpose/smem.cuh",
            fmt::format("smem_transpose<{}, {}, {}, {}>", s.tile, s.pad, s.swizzle ? 1 : 0, s.vec)};
}

TileGeometry SmemTranspose::tiles(const Problem& problem) const {
    const SmemTranspose& s = *this;
    TileGeometry t;
    t.extent = {problem.dim[0], problem.dim[1], 1};
    t.block_tile = {s.tile, s.tile, 1};
    t.thread_tile = {s.vec, s.tile / kRowsOfThreads, 1};
    return t;
}

// Counts in 4-byte elements. Every element is loaded and stored once; every block stores and
// loads its whole tile in shared memory (zeros past the edge), so shared totals count whole tiles.
CostModel SmemTranspose::cost_model(const Problem& problem) const {
    const SmemTranspose& s = *this;
    const double W = double(problem.dim[0]), H = double(problem.dim[1]), T = s.tile;
    const double blocks = double(ceil_div(problem.dim[0], s.tile)) * double(ceil_div(problem.dim[1], s.tile));
    const double per_thread = T * T / s.threads();
    CostModel m;
    m.per_thread = {per_thread, per_thread, per_thread, per_thread};
    m.per_block = {T * T, T * T, T * T, T * T};
    m.total = {W * H, W * H, blocks * T * T, blocks * T * T};
    m.flops = 0;
    m.set_element_types({});   // FP32 throughout
    m.intensity = 0;
    m.compulsory_bytes = m.load_bytes(W * H) + m.store_bytes(W * H);
    m.formulas = {
        {"threads / block", "(TILE/VEC)·8", double(s.threads())},
        {"blocks", "⌈W/TILE⌉·⌈H/TILE⌉", blocks},
        {"global loads / thread", "TILE²/threads = TILE·VEC/8", per_thread},
        {"global loads (total)", "W·H", m.total.global_loads},
        {"global stores (total)", "W·H", m.total.global_stores},
        {"shared stores (total)", "blocks·TILE²", m.total.shared_stores},
        {"shared loads (total)", "blocks·TILE²", m.total.shared_loads},
        {"global bytes", "4·(loads + stores) = 8·W·H", m.global_bytes},
    };
    m.extras = {
        {"shared memory / block (bytes)", "TILE·(TILE+PAD)·4", double(s.smem_bytes())},
        {"wasted shared bytes (padding)", "TILE·PAD·4", double(s.tile * s.pad * 4)},
        {"row store width (bytes)", "4·VEC if PAD is a multiple of VEC, else 8 where the pitch is even, else 4",
         double(4 * (s.vector_row_store() ? s.vec : std::min(s.vec, pow2_alignment(s.pitch()))))},
    };
    return m;
}

// Thread t is (tx, ty) = (t mod TILE/VEC, t / (TILE/VEC)); per j < TILE/8 it handles row
// r = ty + 8j: stores VEC floats at tile row r, column VEC·tx, then reads VEC floats down
// column r, rows VEC·tx .. VEC·tx+VEC−1.
std::vector<SharedAccessSite> SmemTranspose::shared_sites(const Problem& problem) const {
    const SmemTranspose& s = *this;
    const double repeats = double(ceil_div(problem.dim[0], s.tile)) * double(ceil_div(problem.dim[1], s.tile));
    const std::string layout = s.swizzle ? "word(row, col) = row·(TILE+PAD) + ((col/VEC) ⊕ ((row/VEC) mod TILE/VEC))·VEC + col mod VEC"
                                         : "word(row, col) = row·(TILE+PAD) + col";
    SharedSiteBuilder store("tile[r][VEC·tx] = in (rows)", layout + ",  r = ty + 8j", true);
    SharedSiteBuilder load("tile[VEC·tx+i][r] (columns)", layout + ",  row = VEC·tx + i, col = r = ty + 8j", false);
    const int cols = s.cols();
    for (int j = 0; j < s.tile / kRowsOfThreads; ++j) {
        const auto r_of = [=](int t) { return t / cols + kRowsOfThreads * j; };
        const auto row_start = [=](int t) { return s.word(r_of(t), (t % cols) * s.vec); };
        // A VEC-wide store where the rows stay aligned; else VEC floats the compiler pairs where
        // the pitch keeps them 8-byte aligned.
        store.run(row_start, 0, s.vec, s.vector_row_store() ? s.vec : std::min(s.vec, pow2_alignment(s.pitch())));
        for (int i = 0; i < s.vec; ++i)
            load.run([=](int t) { return s.word((t % cols) * s.vec + i, r_of(t)); }, 0, 1, 1);
    }
    std::vector<SharedAccessSite> out;
    store.add_to(out, s.threads(), repeats);
    load.add_to(out, s.threads(), repeats);
    return out;
}

}  // namespace

TILELAB_VARIANT(make_smem_transpose, SmemTranspose,
                {.id = "transpose.smem", .family = "transpose", .params = SmemTranspose::params})

}  // namespace tilelab
