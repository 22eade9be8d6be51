// Where a convolution's filter lives, as data: parameters, constraints, launch shape and cost model
// of kernels/convolution/filter_memory.cuh. BX×BY blocks, one output a thread, the input through a
// shared tile with its halo; the filter — a bank of FILTERS filters of (2·RADIUS+1)² taps, output
// (x, y) using filter y mod F (INDEX uniform) or x mod F (per lane) — compiled in, in __constant__,
// in global memory or in shared memory.
#include <fmt/format.h>
#include <algorithm>
#include <bit>
#include <functional>
#include <map>
#include "tilelab/banks.h"
#include "tilelab/i18n.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"

namespace tilelab {
namespace {

enum Where { kImmediate = 0, kConstant = 1, kGlobal = 2, kShared = 3 };

struct FilterMemory {
    int where = kConstant;   // <- FILTER_IN
    int per_lane = 0;        // <- INDEX: 0 uniform (f = y mod F), 1 per lane (f = x mod F)
    int filters = 32;        // <- FILTERS
    int r = 2;               // <- RADIUS
    int bx = 32, by = 8;     // <- BX, BY

    static inline const std::vector<ParamSpec> params = {
        {.name = "FILTER_IN", .kind = ParamKind::Int, .min = 0, .max = 3, .def = kConstant,
         .choices = {"immediate", "constant", "global", "shared"}},
        {.name = "INDEX", .kind = ParamKind::Int, .min = 0, .max = 1, .def = 0, .choices = {"uniform", "per_lane"}},
        {.name = "FILTERS", .kind = ParamKind::Pow2, .min = 1, .max = 32, .def = 32},
        {.name = "RADIUS", .kind = ParamKind::Int, .min = 1, .max = 4, .def = 2},
        {.name = "BX", .kind = ParamKind::Pow2, .min = 8, .max = 128, .def = 32},
        {.name = "BY", .kind = ParamKind::Pow2, .min = 1, .max = 32, .def = 8},
    };
    static FilterMemory from(const ParamReader& p) {
        return {.where = p["FILTER_IN"], .per_lane = p["INDEX"], .filters = p["FILTERS"], .r = p["RADIUS"],
                .bx = p["BX"], .by = p["BY"]};
    }

    int taps() const { return (2 * r + 1) * (2 * r + 1); }
    int tile_cells() const { return (bx + 2 * r) * (by + 2 * r); }
    std::string invalid_reason(const Problem&, const Target&) const {
        if (where == kImmediate && filters > 1)
            return trf("constraint.convolution.filter_memory.immediate_is_one_filter", filters);
        return "";
    }
    KernelInstance kernel() const {
        return {"convolution/filter_memory.cuh", fmt::format("filter_memory_convolution<{}, {}, {}, {}, {}, {}>", where, r,
                                                             filters, per_lane ? "true" : "false", bx, by)};
    }
    LaunchShape launch(const Problem& p) const {
        return {.grid = {unsigned(ceil_div(p.dim[0], bx)), unsigned(ceil_div(p.dim[1], by)), 1},
                .block = {unsigned(bx), unsigned(by), 1}};
    }
    FamilyOptions family_options() const { return {{"radius", r}, {"filters", filters}, {"per_lane", per_lane}}; }
    int smem_bytes() const { return 4 * (tile_cells() + (where == kShared ? filters * taps() : 0)); }

    TileGeometry tiles(const Problem& p) const {
        TileGeometry t;
        t.extent = {p.dim[0], p.dim[1], 1};
        t.block_tile = {bx, by, 1};
        t.halo = r;
        t.halo_load = HaloLoad::ExtraThreads;
        return t;
    }

    // Filters a warp reads at once: the different values of (per lane ? x : y) mod F over its
    // active lanes (a shift of x or y permutes the residues, so only which lanes are active counts).
    int filters_in_warp(int lanes_x, int lanes_y, int first) const;
    double constant_requests(const Problem& p) const;
    CostModel cost_model(const Problem& p) const;
    std::vector<SharedAccessSite> shared_sites(const Problem& p) const;
};

int FilterMemory::filters_in_warp(int cols, int rows, int first) const {
    uint64_t seen = 0;
    for (int lane = 0; lane < 32; ++lane) {
        const int t = first + lane, tx = t % bx, ty = t / bx;
        if (ty >= by || tx >= cols || ty >= rows) continue;
        seen |= uint64_t(1) << ((per_lane ? tx : ty) % filters);
    }
    return std::popcount(seen);
}

// LDC requests to the constant cache for the filter, over the launch: a tap's read is one request
// per different filter among the warp's active lanes. Blocks differ only in how many columns and
// rows are inside the image: full, or the last column (row) of blocks' remainder.
double FilterMemory::constant_requests(const Problem& p) const {
    if (where != kConstant || filters == 1) return 0;   // F = 1: compile-time addresses, ULDC (no LDC)
    const int64_t w = p.dim[0], h = p.dim[1];
    const int64_t full_x = w / bx, full_y = h / by;
    const int rest_x = int(w % bx), rest_y = int(h % by);
    const auto block = [&](int cols, int rows) {
        double requests = 0;
        for (int first = 0; first < bx * by; first += 32) requests += filters_in_warp(cols, rows, first);
        return requests;
    };
    double per_tap = double(full_x) * double(full_y) * block(bx, by);
    if (rest_x) per_tap += double(full_y) * block(rest_x, by);
    if (rest_y) per_tap += double(full_x) * block(bx, rest_y);
    if (rest_x && rest_y) per_tap += block(rest_x, rest_y);
    return per_tap * taps();
}

// Exact counts: the tile's in-image cells are loaded (the rest are zeros), every tile cell is
// stored to shared memory, every output reads its T taps from the tile (and, from global or shared
// memory, its T weights), the shared placement copies the bank once a block.
CostModel FilterMemory::cost_model(const Problem& p) const {
    const int64_t w = p.dim[0], h = p.dim[1];
    const int64_t blocks_x = ceil_div(w, bx), blocks_y = ceil_div(h, by), blocks = blocks_x * blocks_y;
    const auto covered = [&](int64_t n, int64_t blocks_n, int b) {   // Σ over blocks of the tile's cells inside [0, n)
        double s = 0;
        for (int64_t i = 0; i < blocks_n; ++i) s += double(std::min(n, i * b + b + r) - std::max<int64_t>(0, i * b - r));
        return s;
    };
    const double outputs = double(w) * double(h), t = taps(), threads = double(bx) * by, bank = double(filters) * t;
    const double tile_loads = covered(w, blocks_x, bx) * covered(h, blocks_y, by);
    const bool global = where == kGlobal, shared = where == kShared;

    CostModel m;
    m.flops = 2 * t * outputs;
    m.per_block = {tile_cells() + (global ? t * threads : 0) + (shared ? bank : 0), threads,
                   t * threads * (shared ? 2 : 1), tile_cells() + (shared ? bank : 0)};
    m.per_thread = {m.per_block.global_loads / threads, 1, m.per_block.shared_loads / threads,
                    m.per_block.shared_stores / threads};
    m.total = {tile_loads + (global ? t * outputs : 0) + (shared ? bank * blocks : 0), outputs,
               t * outputs * (shared ? 2 : 1), double(tile_cells()) * blocks + (shared ? bank * blocks : 0)};
    m.set_element_types({});   // FP32 throughout
    m.compulsory_bytes = 4 * (2 * outputs + (global || shared ? bank : 0));
    m.intensity = m.flops / m.global_bytes;
    m.constant_requests = constant_requests(p);

    const double in_warp = filters_in_warp(bx, by, 0);
    m.formulas = {
        {"taps", "(2·RADIUS + 1)²", t},
        {"FLOPs", "2·taps·W·H", m.flops},
        {"tile cells / block", "(BX + 2·RADIUS)·(BY + 2·RADIUS)", double(tile_cells())},
        {"global loads (image)", "the tiles' cells inside the image", tile_loads},
        {"global loads (filter)", global ? "taps·W·H" : shared ? "FILTERS·taps·blocks" : "0", m.total.global_loads - tile_loads},
        {"shared loads (total)", shared ? "2·taps·W·H (tile and filter)" : "taps·W·H", m.total.shared_loads},
        {"shared stores (total)", shared ? "(tile cells + FILTERS·taps)·blocks" : "tile cells·blocks", m.total.shared_stores},
        {"global stores (total)", "W·H", m.total.global_stores},
        {"constant-cache requests (filter)", where == kConstant && filters > 1 ? "taps · Σ over warps of their different filters"
                                                                               : "0 (no run-time addressed constant reads)",
         m.constant_requests},
    };
    m.extras = {
        {"filters a warp reads at once", per_lane ? "different x mod FILTERS among its lanes" : "different y mod FILTERS among its lanes",
         in_warp},
        {"constant requests / filter read (full warp)",
         where != kConstant ? "— (not in constant memory)" : filters == 1 ? "0: compile-time addresses (ULDC, once a warp)"
                                                                          : "filters a warp reads at once",
         where == kConstant && filters > 1 ? in_warp : 0},
        {"halo overhead (tile cells / outputs)", "(BX + 2·RADIUS)·(BY + 2·RADIUS) / (BX·BY)", tile_cells() / threads},
        {"filter bytes", "4·FILTERS·taps", 4 * bank},
    };
    return m;
}

// The copy loops `for (i = t; i < n; i += BX·BY)` have a run-time trip count per thread; the
// compiler unrolls them by 4, the remainder first: a warp issues max(trips mod 4) single stores and
// then 4 per round for max(trips / 4) rounds over its lanes (on the H200 at 333×77, BX=16 BY=4
// RADIUS=3: 23 stores a block where one per iteration would be 20).
constexpr int kCopyUnroll = 4;

// The shared-memory sites, as the kernel issues them. The tap reads' addresses are not known to be
// aligned (tx is in them): single floats. With one filter in shared memory the filter's addresses
// are compile-time constants, which the compiler merges into 16-byte loads where aligned. Every
// block fills the whole tile (zeros outside the image) and copies the whole bank; the tap loop runs
// only in threads whose output is inside the image, so its sites sum over the block classes along x
// and y (whole, and the last one, cut). A warp of a block narrower than 32 spans 32/BX rows of the
// tile, BX + 2R words apart: rows whose banks overlap make the tap reads conflict.
// tests/cpu/test_convolution_banks.cpp walks every block of the launch.
std::vector<SharedAccessSite> FilterMemory::shared_sites(const Problem& p) const {
    const int threads = bx * by, tw = bx + 2 * r, cells = tile_cells(), d = 2 * r + 1, t = taps(), f = filters;
    const int64_t w = p.dim[0], h = p.dim[1];
    const std::vector<AxisClass> cx = axis_classes(ceil_div(w, bx), false), cy = axis_classes(ceil_div(h, by), false);
    const double blocks = double(ceil_div(w, bx)) * double(ceil_div(h, by));
    const auto site = [&](std::string name, std::string formula, bool store, int floats = 1) {
        SharedAccessSite s;
        s.name = std::move(name), s.formula = std::move(formula), s.store = store, s.threads = threads, s.repeats = 1;
        s.width_bytes = 4 * floats;
        return s;
    };
    // A copy of n words to base + i, i = t + j·BX·BY. Instances: the remainder's stores (as many as
    // any thread has trips mod 4), then 4 a round; a thread takes part in those its trips reach.
    const auto copy = [&](std::string name, std::string formula, int n, int base) {
        SharedAccessSite s = site(std::move(name), std::move(formula), true);
        const auto trips = [=](int thread) { return thread < n ? (n - 1 - thread) / threads + 1 : 0; };
        int first = 0;   // the remainder's instances
        for (int thread = 0; thread < threads; ++thread) first = std::max(first, trips(thread) % kCopyUnroll);
        s.instances = first + trips(0) / kCopyUnroll * kCopyUnroll;
        s.instance_weights.assign(size_t(s.instances), blocks);
        s.byte_address = [=](int j, int thread) -> int64_t {
            const int m = trips(thread), left = m % kCopyUnroll;
            const int iteration = j < first ? (j < left ? j : -1) : (j - first < m - left ? left + j - first : -1);
            return iteration < 0 ? -1 : 4 * int64_t(base + thread + iteration * threads);
        };
        return s;
    };
    // The tap loop: instance = class · pieces + piece; the class's output (x, y) for each thread.
    const auto taps_site = [&](std::string name, std::string formula, const std::vector<int>& pieces, int floats,
                               std::function<int64_t(int, int, int, int)> word) {
        SharedAccessSite s = site(std::move(name), std::move(formula), false, floats);
        for (const AxisClass& y : cy)
            for (const AxisClass& x : cx) s.instance_weights.insert(s.instance_weights.end(), pieces.size(), x.count * y.count);
        s.instances = int(s.instance_weights.size());
        const int nx = int(cx.size()), np = int(pieces.size());
        s.byte_address = [=, this](int i, int thread) -> int64_t {
            const int k = pieces[size_t(i % np)], c = i / np, tx = thread % bx, ty = thread / bx;
            const int64_t x = int64_t(cx[size_t(c % nx)].block) * bx + tx, y = int64_t(cy[size_t(c / nx)].block) * by + ty;
            if (x >= w || y >= h) return -1;
            return 4 * word(tx, ty, k, int((per_lane ? x : y) % f));
        };
        return s;
    };
    std::vector<int> every_tap(static_cast<size_t>(t));
    for (int k = 0; k < t; ++k) every_tap[size_t(k)] = k;
    std::vector<SharedAccessSite> out;
    out.push_back(copy("tile[i] = in[…]", "word = i = t + j·BX·BY < (BX+2R)·(BY+2R)", cells, 0));
    if (where == kShared)
        out.push_back(copy("shared_bank[i] = bank[i]", "word = tile cells + i,  i = t + j·BX·BY < FILTERS·taps", f * t, cells));
    out.push_back(taps_site("tile[(ty + k/D)·TW + tx + k%D]", "word = (ty + k/D)·(BX+2R) + tx + k%D,  k = 0..taps−1", every_tap, 1,
                            [=](int tx, int ty, int k, int) { return int64_t(ty + k / d) * tw + tx + k % d; }));
    if (where == kShared && f > 1) {
        out.push_back(taps_site("shared_bank[k·F + f]", "word = tile cells + k·FILTERS + f,  f = (INDEX ? x : y) mod FILTERS",
                                every_tap, 1, [=](int, int, int k, int fi) { return int64_t(cells) + int64_t(k) * f + fi; }));
    } else if (where == kShared) {   // one filter: the same words for every thread, merged where aligned
        std::map<int, std::vector<int>> by_width;
        for (const AlignedPiece& piece : aligned_pieces(cells, t, 4)) by_width[piece.floats].push_back(piece.offset);
        for (const auto& [floats, starts] : by_width)
            out.push_back(taps_site(floats == 1 ? "shared_bank[k]" : fmt::format("shared_bank[k] (float{})", floats),
                                    "word = tile cells + k: the same for every thread", starts, floats,
                                    [=](int, int, int k, int) { return int64_t(cells) + k; }));
    }
    return out;
}

}  // namespace

TILELAB_VARIANT(make_filter_memory, FilterMemory,
                {.id = "convolution.filter_memory", .family = "convolution", .params = FilterMemory::params})

}  // namespace tilelab
