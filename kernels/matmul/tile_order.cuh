// The order blocks take their tiles in (lessons 13 and 22): tile `id` of tiles_m × tiles_n.
//   grouped_tile: GROUP tile rows at a time, column by column inside a group, so the tiles running
//     together share their rows of A and columns of B in L2. GROUP = 1 is row by row, the launch order.
//   hilbert_tile: along a Hilbert curve generalised to any rectangle: consecutive tiles are
//     neighbours (one step across or down; at an odd split, rarely, one diagonal step) and any run
//     of them stays in a near-square patch, whatever its length — no group height to choose.
// Host code may include this file with __device__ and __forceinline__ defined away (the lesson's
// model test walks the kernel's own order).
#pragma once

template <int GROUP>
__device__ __forceinline__ void grouped_tile(int id, int tiles_m, int tiles_n, int& tm, int& tn) {
    const int per_group = GROUP * tiles_n, first = id / per_group * GROUP;
    const int rows = min(tiles_m - first, GROUP);
    tm = first + id % per_group % rows;
    tn = id % per_group / rows;
}

// The curve over a rectangle from corner (x, y): `a` its long side (w tiles along the unit step
// (dax, day)), `b` its other side (h tiles along (dbx, dby)). Each pass splits the rectangle in two
// along a (when it is much longer) or in three (b halved: the first part walked with the axes
// swapped, the middle straight, the last back towards the start's side) and follows the part
// holding `id`; a strip one tile wide is walked straight.
__device__ __forceinline__ void hilbert_tile(int id, int tiles_m, int tiles_n, int& tm, int& tn) {
    const bool wide = tiles_n >= tiles_m;
    int x = 0, y = 0;
    int w = wide ? tiles_n : tiles_m, dax = wide ? 1 : 0, day = wide ? 0 : 1;
    int h = wide ? tiles_m : tiles_n, dbx = wide ? 0 : 1, dby = wide ? 1 : 0;
    for (;;) {
        if (h == 1) {
            x += id * dax, y += id * day;
            break;
        }
        if (w == 1) {
            x += id * dbx, y += id * dby;
            break;
        }
        if (2 * w > 3 * h) {   // two parts along a, the first of an even length where it can be
            int w2 = w / 2;
            if ((w2 & 1) && w > 2) ++w2;
            if (id >= w2 * h) id -= w2 * h, x += w2 * dax, y += w2 * day, w -= w2;
            else w = w2;
            continue;
        }
        int h2 = h / 2;
        const int wa = w / 2;
        if ((h2 & 1) && h > 2) ++h2;
        if (id < h2 * wa) {   // first: h2 along b, then wa along a (the axes swapped)
            const int ex = dax, ey = day;
            dax = dbx, day = dby, dbx = ex, dby = ey;
            w = h2, h = wa;
            continue;
        }
        id -= h2 * wa;
        if (id < w * (h - h2)) {   // middle: the whole of a, the rest of b
            x += h2 * dbx, y += h2 * dby, h -= h2;
            continue;
        }
        id -= w * (h - h2);
        // last: from the far end of a, h2 − 1 along b, walked back along −b, then −a
        x += (w - 1) * dax + (h2 - 1) * dbx, y += (w - 1) * day + (h2 - 1) * dby;
        const int ex = dax, ey = day;
        dax = -dbx, day = -dby, dbx = -ex, dby = -ey;
        const int wl = w - wa;
        w = h2, h = wl;
    }
    tm = y, tn = x;
}

// The same with ORDER and GROUP (1, 2, 4, 8 or 16) known only at run time: the host's walks of
// the kernel's order (lesson 22's model and its test).
__device__ __forceinline__ void tile_at(int order, int group, int id, int tiles_m, int tiles_n, int& tm, int& tn) {
    if (order == 1) return hilbert_tile(id, tiles_m, tiles_n, tm, tn);
    switch (group) {
        case 1: return grouped_tile<1>(id, tiles_m, tiles_n, tm, tn);
        case 2: return grouped_tile<2>(id, tiles_m, tiles_n, tm, tn);
        case 4: return grouped_tile<4>(id, tiles_m, tiles_n, tm, tn);
        case 8: return grouped_tile<8>(id, tiles_m, tiles_n, tm, tn);
        default: return grouped_tile<16>(id, tiles_m, tiles_n, tm, tn);
    }
}

// The kernel's order: ORDER 0 grouped (GROUP rows), 1 the Hilbert curve.
template <int ORDER, int GROUP>
__device__ __forceinline__ void ordered_tile(int id, int tiles_m, int tiles_n, int& tm, int& tn) {
    if constexpr (ORDER == 1) hilbert_tile(id, tiles_m, tiles_n, tm, tn);
    else grouped_tile<GROUP>(id, tiles_m, tiles_n, tm, tn);
}
