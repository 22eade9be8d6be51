// What the Tiles panel draws, declared by each variant beside its launch (Variant::tiles): how a
// block cuts the output into tiles, what one thread computes, and what is staged where. The
// panel draws from this alone, so a new variant is drawn without touching the GUI.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>
#include "tilelab/util.h"

namespace tilelab {

// Who loads the halo, the input cells around a block's outputs that it reads but does not compute.
enum class HaloLoad {
    Global,        // no staging: each thread reads its neighbours from global memory
    ExtraThreads,  // halo inside the tile: the tile's edge threads load it and compute nothing
    OnTop,         // halo around the tile: loaded on top of the tile, one cell per thread
};

// One key tile of a streamed row's running softmax, in natural units (attention's Tiles picture):
// the tile's largest score, the running maximum m after it, the rescale α = e^(m_before − m)
// applied to the state, and the running sum l after it.
struct StreamStep {
    double tile_max = 0, m = 0, alpha = 0, l = 0;
};

struct TileGeometry {
    // Along the output's axes: x = columns of C, or the stencil's x (contiguous); y = rows of C, or
    // the stencil's y; z = the stencil's z (1 for a matrix). Counts are output elements.
    std::array<int64_t, 3> extent{1, 1, 1};       // what the blocks cover: C is N×M; a stencil its interior or whole grid
    std::array<int64_t, 3> block_tile{1, 1, 1};   // outputs of one block
    std::array<int64_t, 3> thread_tile{1, 1, 1};  // outputs of one thread (a whole thread of a whole tile)
    std::array<int, 3> grid_axis{0, 1, 2};        // which launch grid axis walks each output axis

    // A reduction walked in k-steps (matmul's K); 0 = none.
    int64_t reduction = 0;
    int64_t k_step = 1;                 // BK: the k values of the operand tiles one step loads
    bool a_in_shared = false;           // a step's tile of A (BM×BK) is staged in shared memory
    bool b_in_shared = false;           // a step's tile of B (BK×BN) is staged in shared memory
    // Warp tiling: one warp's outputs (columns, rows; 0 = no warp tiles) and the steps it walks
    // them in (along columns, rows). A thread's thread_tile is then warp_steps[0]×warp_steps[1]
    // micro-tiles, one per step, warp_tile/warp_steps apart (lane 0's first at the warp's corner).
    std::array<int64_t, 2> warp_tile{0, 0};
    std::array<int64_t, 2> warp_steps{1, 1};
    // Tensor cores: one MMA instruction's fragment of C and its depth (columns n, rows m, k; 0 =
    // none). The warp's tile is cut into fragments of n×m, each the sum of m×k by k×n products.
    std::array<int64_t, 3> mma{0, 0, 0};
    // The fragments' lanes are stated (mma.sync: tilelab/mma_layout.h, drawn lane by lane for the
    // operands' element size); false where they are opaque (WMMA).
    bool mma_lanes_known = false;
    // wgmma: A and B are read from shared memory through descriptors, never held by lanes; only
    // the accumulators are (each warp of the warpgroup 16 rows, every 8 columns as mma.sync's C),
    // so the picture draws C alone.
    bool mma_operands_in_shared = false;

    // A neighbourhood (stencil): how far the inputs reach beyond a block's outputs; 0 = none.
    int64_t halo = 0;
    HaloLoad halo_load = HaloLoad::Global;
    bool walks_z = false;               // a block walks its block_tile[2] output planes along z
    // Time steps one launch advances (a stencil that fuses them, lesson 20); 0 = one sweep. The
    // region a block reads is `halo` cells wider than its tile on every side, and level l of it
    // is right only l cells in: the ring is computed and thrown away.
    int time_steps = 0;
    int shared_planes = 0;              // x–y input planes shared memory holds at once
    std::array<int64_t, 2> shared_plane{0, 0};   // cells of one of them, x × y

    // A streamed operand (attention): every block walks the rows of a second operand,
    // stream_extent of them (the keys of K and V), stream_tile at a time through shared memory;
    // the product of a block's rows with them (the N×N scores) only ever exists a tile at a time,
    // in registers. 0 = none. stream_causal: a block stops at the tile holding its last row's
    // key, and a key past a row is masked. The names label the picture (Q, K and V, O, S).
    int64_t stream_extent = 0, stream_tile = 0;
    bool stream_causal = false;
    std::string rows_name, stream_name, output_name, product_name;
    // Optional: the running state of one row (of head 0) through the tiles its block walks, from
    // the seeded inputs the run uses (seed), computed on the host; empty: no numbers.
    std::function<std::vector<StreamStep>(int64_t row, uint64_t seed)> stream_trace;

    // A tile schedule (lesson 22): the grid is gridDim.x blocks along x only, each walking the
    // tiles as one index (blockIdx.x, + gridDim.x, …) in its own order, so it never exceeds the
    // tiles; false = a block per tile, grid_axis mapping the axes.
    bool tiles_walked = false;
    // Stream-K (lesson 22): the walking blocks also share tiles by K slices, so there may be more
    // blocks than tiles (all the resident ones).
    bool shared_by_k = false;
    // Threads of a block that hold no outputs (a producer warpgroup that only loads); the rest
    // hold the block tile, thread_tile each.
    int64_t loading_threads = 0;
    // Groups the output-holding threads split into, each holding a whole tile of its own and the
    // groups taking the block's tiles in turns (lesson 22's ping-pong consumers); 1 = all of them
    // hold one tile together.
    int64_t tiles_in_turns = 1;
    // A ring of shared-memory stages (lesson 22): slice j of the reduction in stage j mod
    // ring_stages, filled by a producer ring_stages − 1 slices ahead of the consumers, who hand a
    // stage back one slice late; 0 = none. The Tiles panel draws which stage each role is on.
    int ring_stages = 0;

    // Blocks along output axis `a`: ⌈extent / block tile⌉.
    int64_t blocks(int a) const { return ceil_div(extent[size_t(a)], block_tile[size_t(a)]); }
    int64_t k_steps() const { return reduction > 0 ? ceil_div(reduction, k_step) : 0; }
    // Tiles of the streamed operand row block `b` (along axis 1) walks: all of them, or with the
    // causal mask up to the one holding key min(extent, (b + 1)·block rows) − 1.
    int64_t stream_steps(int64_t b) const {
        if (stream_tile <= 0) return 0;
        const int64_t keys = stream_causal ? std::min(stream_extent, (b + 1) * block_tile[1]) : stream_extent;
        return ceil_div(keys, stream_tile);
    }
    int64_t block_outputs() const { return block_tile[0] * block_tile[1] * block_tile[2]; }
};

}  // namespace tilelab
