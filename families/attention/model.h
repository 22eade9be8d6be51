// What the attention lessons' variants share (lessons/15_*, lessons/16_*): a block owns BR query
// rows of one head and the grid walks row blocks along x and heads along y, so the Tiles panel's
// geometry, the grid's limit and the K/V traffic figures are the same for every such kernel.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>
#include "tilelab/i18n.h"
#include "tilelab/target.h"
#include "tilelab/tiles.h"
#include "tilelab/util.h"
#include "tilelab/variant.h"

namespace tilelab::attention {

// "" or why ⌈N/BR⌉ row blocks do not fit in gridDim.x.
inline std::string grid_reason(const Problem& p, int br, const Target& t) {
    if (ceil_div(p.dim[0], br) > t.max_grid_dim[0])
        return trf("family.attention.grid", p.dim[0], ceil_div(p.dim[0], br), t.max_grid_dim[0]);
    return "";
}

// O's columns (d) along x, its rows (N) along y, heads along z; the grid walks rows along x and
// heads along y. No reduction is declared: the Tiles panel would draw it as a matmul's A and B
// tiles, mislabelling Q, K and V (it says it has no picture for these variants instead).
inline TileGeometry row_block_tiles(const Problem& p, int br, std::array<int64_t, 3> thread_tile) {
    TileGeometry g;
    g.extent = {p.dim[1], p.dim[0], p.dim[2]};
    g.block_tile = {p.dim[1], br, 1};
    g.thread_tile = thread_tile;
    g.grid_axis = {2, 0, 1};
    return g;
}

// Every block reads its head's whole K and V once: BH·N·d·(1 + 2·⌈N/BR⌉) loads with Q's.
inline double global_loads(const Problem& p, int br) {
    return double(p.dim[2]) * double(p.dim[0]) * double(p.dim[1]) * (1 + 2 * double(ceil_div(p.dim[0], br)));
}

// The extras both lessons show: K/V reads per element, key tiles, the N×N matrix never written.
inline std::vector<Formula> shared_extras(const Problem& p, int br, int bc) {
    return {
        {"K and V reads per element", "⌈N/BR⌉", double(ceil_div(p.dim[0], br))},
        {"key tiles", "⌈N/BC⌉", double(ceil_div(p.dim[0], bc))},
        {"score matrix bytes never written (FP32)", "4·BH·N²", double(p.dim[2]) * double(p.dim[0]) * double(p.dim[0]) * 4.0},
    };
}

}  // namespace tilelab::attention
