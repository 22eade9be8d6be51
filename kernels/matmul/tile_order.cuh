// The order blocks take their tiles in (lessons 13 and 22): tile `id` of tiles_m × tiles_n,
// GROUP tile rows at a time, column by column inside a group, so the tiles running together share
// their rows of A and columns of B in L2. GROUP = 1 is row by row, the launch order.
#pragma once

template <int GROUP>
__device__ __forceinline__ void grouped_tile(int id, int tiles_m, int tiles_n, int& tm, int& tn) {
    const int per_group = GROUP * tiles_n, first = id / per_group * GROUP;
    const int rows = min(tiles_m - first, GROUP);
    tm = first + id % per_group % rows;
    tn = id % per_group / rows;
}
