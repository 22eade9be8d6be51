#!/usr/bin/env python3
"""What L1 is asked for: the 32-byte sectors each warp-wide global load touches (issue #14, 5b).

`l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum` counts 32 bytes for every sector a warp's load
instruction touches, once per instruction however many of its lanes share the sector. It equals
4 × the modelled loads only when every warp load covers whole sectors with 4-byte elements of its
own, and only in the L1's way of serving them: an 8- or 16-byte load is served 128 bytes of
lanes at a time (16 or 8 lanes), and its sectors count per such group. This walks every variant's
global loads warp by warp, in the order, grouping and predication of the kernel sources, and
counts the sectors. Why the variants differ from 4 × the model:

  matmul.naive        A[row][k] is one sector for all the lanes of a row (a broadcast: 32 bytes
      for 32 modelled loads); B[k][col]'s lanes start wherever k·N falls. With SWAP every lane of
      an A or B load has a sector of its own.
  matmul.smem_tiled   a warp covers 32/TILE rows of a tile (TILE < 32) or a row piece of TILE
      floats, and A's and B's rows start wherever row·K and k·N fall; only with TILE and n
      multiples of 8 does every piece fill whole sectors.
  matmul.register_1d  a warp's 32 lanes are 32 rows of A: each A load touches 32 sectors for 32
      floats (8 × the model's bytes); B's staged rows start wherever k·N + col0 falls.
  matmul.register_2d, register_pressure, warp_tiled: the tiles' rows are BK or BN floats wide and
      start wherever the matrix row does; 4-byte loads of a float4 slot (n not a multiple of 4)
      each touch their own sectors; cp.async copies count like loads.
  transpose.smem      rows of TILE floats, several per warp when TILE·4 < 128 bytes.
  stencil.basic       the ±x neighbours are one float off the sector grid (5 sectors for a warp's
      32 cells instead of 4); warps of BX < 32 cover several short rows; boundary cells load
      only themselves.
  stencil.smem_tiled, coarsened, register_tiled: tiles T (or TX) cells wide, so a warp covers
      several short row pieces that start wherever y·n + z·n² falls.

The walks need numpy (Debian: python3-numpy). On the 55 random configurations of
docs/benchmarks.md (H100) they equal the counter to its 6 printed digits in 53; in two warp_tiled
configurations with 16-byte copies at the grid's edges the H100 counted 0.02 % and 0.16 % more.

Usage: l1_sectors.py VARIANT SIZE NAME=VALUE ...    (prints the bytes)
       l1_sectors.py --check FILE                  (the rows of a check_counters.py table for these
                                                    variants: walk against the hardware, exit 1 on a
                                                    difference beyond the table's 6 digits)
"""
import re
import sys

import numpy as np

SECTOR = 32


def distinct(keys):
    return int(np.unique(keys).size)


def staged_tile_loads(rows, cols, tile_rows, tile_cols, threads, width, steps_along_cols, split=False):
    """Distinct (instruction, warp, sector) of loading a rows × cols row-major matrix tile by tile:
    tiles of tile_rows × tile_cols, each loaded by `threads` threads as element e = tid + r·threads
    of the tile in row-major order, `width` floats (1 or 4) per load. steps_along_cols: the k-steps
    walk the columns (A's tiles) rather than the rows (B's). split: each float of a slot is a load
    instruction of its own (4-byte loads of a float4 slot, where rows may not be 16-byte aligned).
    Returns the count for one block row (A) or column (B) of the grid; the caller multiplies by the
    blocks that repeat it."""
    gr, gc = -(-rows // tile_rows), -(-cols // tile_cols)
    rr, cc = np.meshgrid(np.arange(gr * tile_rows), np.arange(0, gc * tile_cols, 1 if split else width), indexing="ij")
    rr, cc = rr.ravel(), cc.ravel()
    tr, tc = rr // tile_rows, cc // tile_cols
    e = (rr % tile_rows) * (tile_cols // width) + (cc % tile_cols) // width
    # A 16-byte load is served a quarter-warp (8 lanes, 128 bytes) at a time: sectors are counted per quarter.
    group = 8 if width == 4 and not split else 32
    r, warp = e // threads, (e % threads) // group
    if split:
        r = r * width + cc % width
    step, other = (tc, tr) if steps_along_cols else (tr, tc)
    loads_per_thread = tile_rows * tile_cols // (1 if split else width) // threads
    key = ((other * max(gr, gc) + step) * loads_per_thread + r) * (-(-threads // group)) + warp
    live = (rr < rows) & (cc < cols)
    sector = (rr * cols + cc) * 4 // SECTOR           # a 16-byte-aligned float4 stays in one sector
    return distinct(key[live] * (rows * cols // 8 + 1) + sector[live])


def naive(n, BX, BY, SWAP):
    """Bytes of the loads of naive_matmul at M = N = K = n: per k, A[row][k] and B[k][col]."""
    M = N = K = n
    gx, gy = -(-n // BX), -(-n // BY)
    tx, ty = np.meshgrid(np.arange(BX), np.arange(BY), indexing="ij")
    tx, ty = tx.ravel(), ty.ravel()
    bx, by = np.meshgrid(np.arange(gx), np.arange(gy), indexing="ij")
    block = (by * gx + bx).ravel()[:, None]
    along_x = (bx.ravel()[:, None] * BX + tx[None, :]).ravel()
    along_y = (by.ravel()[:, None] * BY + ty[None, :]).ravel()
    warp = (block * -(-(BX * BY) // 32) + (tx + BX * ty)[None, :] // 32).ravel()
    col, row = (along_y, along_x) if SWAP else (along_x, along_y)
    live = (row < M) & (col < N)
    warp, row, col = warp[live], row[live], col[live]
    # A k (or k·N) shifts every lane's address alike: a warp's sectors depend only on it mod 8.
    a = [distinct(warp * (1 << 40) + (row * K + r) // 8) for r in range(8)]
    b = [distinct(warp * (1 << 40) + (r + col) // 8) for r in range(8)]
    ks = np.arange(K)
    return SECTOR * int(sum(a[r] * np.count_nonzero(ks % 8 == r) + b[r] * np.count_nonzero(ks * N % 8 == r) for r in range(8)))


def smem_tiled(n, TILE):
    """Bytes of the loads of smem_tiled_matmul at M = N = K = n (kernels/matmul/smem_tiled.cuh):
    TILE×TILE threads stage a TILE×TILE tile of A and one of B per k-step, thread (tx, ty) loading
    element (ty, tx) of each: element e = tid of the tile, one load each."""
    threads, g = TILE * TILE, -(-n // TILE)
    a = staged_tile_loads(n, n, TILE, TILE, threads, 1, True) * g
    b = staged_tile_loads(n, n, TILE, TILE, threads, 1, False) * g
    return SECTOR * (a + b)


def register_1d(n, T, U, S):
    """Bytes of the A and B loads of register_1d_matmul at M = N = K = n."""
    M = N = K = n
    # A: lane = row. Per block column, each (row, k) is one lane of one load instruction; a warp's
    # lanes are distinct rows, so they share a sector only when rows are under 32 bytes apart.
    rows = np.arange(M, dtype=np.int64)
    warp = rows // 32                                   # rows of one warp (T is a multiple of 32)
    a_sectors = 0
    for k in range(K):
        a_sectors += distinct(warp * (1 << 40) + (rows * K + k) * 4 // SECTOR)
    a_sectors *= -(-N // U)
    # B: the S×U slice at (k0, col0), element e = tid + r·T is (s, u) = (e / U, e % U); the same for
    # every block row.
    b_sectors = staged_tile_loads(n, n, S, U, T, 1, False) * -(-M // T)
    return SECTOR * (a_sectors + b_sectors)


def register_2d(n, p):
    """Bytes of the loads of register_2d_matmul (and its bounded form, register_pressure) at
    M = N = K = n: the A and B tiles of every k-step, FLOAT4 or scalar (kernels/matmul/register_2d.cuh)."""
    BM, BN, BK, TM, TN = p["BM"], p["BN"], p["BK"], p["TM"], p["TN"]
    threads, width = (BM // TM) * (BN // TN), 4 if p["FLOAT4"] else 1
    a = staged_tile_loads(n, n, BM, BK, threads, width, True) * -(-n // BN)
    b = staged_tile_loads(n, n, BK, BN, threads, width, False) * -(-n // BM)
    return SECTOR * (a + b)


def warp_tiled(n, p):
    """Bytes of the loads of warp_tiled_matmul at M = N = K = n (kernels/matmul/warp_tiled.cuh).
    A: float4 slots, loaded as one float4 when n is a multiple of 4, else as four 4-byte loads. B:
    float4 or 4-byte slots, by plain loads (STAGES = 1) or cp.async (STAGES ≥ 2), which this
    metric counts too. Exact for n not a multiple of 4; with 16-byte copies at the grid's edges
    the H100 counted 0.02-0.16 % more than this walk (not explained yet)."""
    BM, BN, BK = p["BM"], p["BN"], p["BK"]
    threads, vec = 32 * (BM // p["WM"]) * (BN // p["WN"]), n % 4 == 0
    a = staged_tile_loads(n, n, BM, BK, threads, 4, True, split=not vec) * -(-n // BN)
    b = staged_tile_loads(n, n, BK, BN, threads, 4 if vec else 1, False) * -(-n // BM)
    return SECTOR * (a + b)


def transpose(n, p):
    """Bytes of the loads of smem_transpose on an n × n matrix (kernels/transpose/smem.cuh):
    (TILE/VEC) × 8 threads, thread (tx, ty) loads VEC floats at row ty + 8j, column tx·VEC of its
    tile. An 8- or 16-byte load is served 128 bytes of lanes at a time: sectors count per group."""
    TILE, VEC = p["TILE"], p["VEC"]
    cols = TILE // VEC
    group = 32 // VEC
    g = -(-n // TILE)
    tx, ty = np.meshgrid(np.arange(cols), np.arange(8), indexing="ij")
    tx, ty = tx.ravel(), ty.ravel()
    lane_group = (tx + cols * ty) // group
    total = 0
    for j in range(TILE // 8):
        r = ty + 8 * j
        for by in range(g):
            row = by * TILE + r
            for bx in range(g):
                col = bx * TILE + tx * VEC
                live = (row < n) & (col < n)
                total += distinct(lane_group[live] * (1 << 40) + (row[live] * n + col[live]) * 4 // SECTOR)
    return SECTOR * total


def stencil_threads(n, block, step, blocks):
    """Per z-slab of blocks: the cells (x, y, z) and global warp numbers of the threads inside the
    n³ grid, for blocks of `block` = (BX, BY, BZ) threads placed `step` cells apart."""
    (BX, BY, BZ), (sx, sy, sz), (gx, gy, gz) = block, step, blocks
    tx, ty, tz = np.meshgrid(np.arange(BX), np.arange(BY), np.arange(BZ), indexing="ij")
    tid = (tx + BX * (ty + BY * tz)).ravel()
    tx, ty, tz = tx.ravel(), ty.ravel(), tz.ravel()
    wpb = -(-(BX * BY * BZ) // 32)                      # warps per block
    for bz in range(gz):                                 # one z-slab of blocks at a time (memory)
        by, bx = np.meshgrid(np.arange(gy), np.arange(gx), indexing="ij")
        block_id = (bz * gy * gx + by * gx + bx).ravel()[:, None]
        x = (bx.ravel()[:, None] * sx + tx[None, :]).ravel()
        y = (by.ravel()[:, None] * sy + ty[None, :]).ravel()
        z = np.broadcast_to(bz * sz + tz[None, :], (block_id.size, tid.size)).ravel()
        warp = (block_id * wpb + tid[None, :] // 32).ravel()
        live = (x < n) & (y < n) & (z < n)
        yield x[live], y[live], z[live], warp[live]


def stencil_basic(n, BX, BY, BZ, R):
    """Bytes of the loads of basic_stencil on an n³ grid."""
    offsets = [d * sgn for d in range(1, R + 1) for sgn in (-1, 1)]
    total = 0
    for x, y, z, warp in stencil_threads(n, (BX, BY, BZ), (BX, BY, BZ), (-(-n // BX), -(-n // BY), -(-n // BZ))):
        at = (z * n + y) * n + x
        inner = (x >= R) & (x < n - R) & (y >= R) & (y < n - R) & (z >= R) & (z < n - R)
        # The interior branch: one load instruction per stencil point; the boundary branch: its own.
        loads = [(inner, at)] + [(inner, at + d * stride) for stride in (1, n, n * n) for d in offsets] + [(~inner, at)]
        for lanes, addr in loads:
            total += distinct(warp[lanes] * (1 << 40) + addr[lanes] * 4 // SECTOR)
    return SECTOR * total


def stencil_smem_tiled(n, T, R):
    """Bytes of the loads of smem_tiled_stencil: one load per thread whose cell is in the grid,
    T³ threads per block, blocks T − 2R cells apart (kernels/stencil/smem_tiled.cuh)."""
    g = -(-(n - 2 * R) // (T - 2 * R))
    total = 0
    for x, y, z, warp in stencil_threads(n, (T, T, T), (T - 2 * R,) * 3, (g, g, g)):
        total += distinct(warp * (1 << 40) + ((z * n + y) * n + x) * 4 // SECTOR)
    return SECTOR * total


def plane_walk(n, TX, TY, RY, Z, around, loads):
    """Bytes of the loads of the plane-walking stencils (PlaneTile in kernels/stencil/stencil_common.cuh):
    a TX×TY block, RY rows per thread, Z output planes per block. `loads(z_first, z_end)` gives
    the planes each load instruction reads, as ("row", z) for a row load of every r and ("halo", z).
    A load's lanes are the threads whose cell (or halo cell) is in the grid; its z is the block's,
    so a warp's sectors depend on z only through where the plane starts within a sector."""
    R = TY * RY
    tx, ty = np.meshgrid(np.arange(TX), np.arange(TY), indexing="ij")
    tx, ty = tx.ravel(), ty.ravel()
    warp = (tx + TX * ty) // 32
    gx = -(-n // TX) if around else -(-(n - 2) // (TX - 2))
    gy = -(-n // R) if around else -(-(n - 2) // (R - 2))
    gz = -(-(n - 2) // Z)
    plane = n * n
    per_block = {}                                  # z_first -> [("row"|"halo", z), ...]
    for bz in range(gz):
        z_first = 1 + bz * Z
        per_block[z_first] = loads(z_first, min(z_first + Z, n - 1))
    total = 0

    def sectors(lanes, column):                     # per alignment a of the plane: Σ over warps
        w, c = warp[lanes], column[lanes]
        return [distinct(w * (1 << 40) + (a + c) // 8) for a in range(8)]

    for bx in range(gx):
        x0 = bx * TX if around else bx * (TX - 2)
        x = x0 + tx
        for by in range(gy):
            y0 = by * R if around else by * (R - 2)
            counts = {"row": [0] * 8}
            for r in range(RY):
                y = y0 + ty + r * TY
                c = sectors((x < n) & (y < n), y * n + x)
                counts["row"] = [u + v for u, v in zip(counts["row"], c)]
            if around:
                t = ty * TX + tx
                hx = np.select([t < TX, t < 2 * TX, t < 2 * TX + R, t < 2 * TX + 2 * R],
                               [x0 + t, x0 + t - TX, np.full_like(t, x0 - 1), np.full_like(t, x0 + TX)], -1)
                hy = np.select([t < TX, t < 2 * TX, t < 2 * TX + R, t < 2 * TX + 2 * R],
                               [np.full_like(t, y0 - 1), np.full_like(t, y0 + R), y0 + t - 2 * TX, y0 + t - 2 * TX - R], -1)
                has = (hx >= 0) & (hy >= 0) & (hx < n) & (hy < n)
                counts["halo"] = sectors(has, hy * n + hx)
            for kinds in per_block.values():
                total += sum(counts[kind][(z * plane) % 8] for kind, z in kinds if kind in counts)
    return SECTOR * total


def coarsened_loads(z_first, z_end, around):
    """The planes coarsened_stencil loads (kernels/stencil/coarsened.cuh)."""
    ahead = 1 if around else 2
    out = [("row", z_first - 1 + k) for k in range(3)]
    out += [("row", z_first + 2 + k) for k in range(ahead) if z_first + 2 + k <= z_end]
    out += [("halo", z_first + k) for k in range(2) if z_first + k < z_end]
    out += [("halo", z_first + 2 + k) for k in range(ahead) if z_first + 2 + k < z_end]
    for z in range(z_first, z_end):
        if z + 2 + ahead <= z_end:
            out.append(("row", z + 2 + ahead))
        if z + 2 + ahead < z_end:
            out.append(("halo", z + 2 + ahead))
    return out


def register_tiled_loads(z_first, z_end):
    """The planes register_tiled_stencil loads (kernels/stencil/register_tiled.cuh; a queue of 5)."""
    out = [("row", z_first - 1 + k) for k in range(5) if z_first - 1 + k <= z_end]
    out += [("halo", z_first + k) for k in range(3) if z_first + k < z_end]
    for z in range(z_first, z_end):
        if z + 4 <= z_end:
            out.append(("row", z + 4))
        if z + 3 < z_end:
            out.append(("halo", z + 3))
    return out


WALKS = {
    "matmul.naive": lambda n, p: naive(n, p["BX"], p["BY"], p["SWAP"]),
    "matmul.smem_tiled": lambda n, p: smem_tiled(n, p["TILE"]),
    "matmul.register_2d": register_2d,
    "matmul.register_pressure": register_2d,
    "matmul.warp_tiled": warp_tiled,
    "transpose.smem": transpose,
    "matmul.register_1d": lambda n, p: register_1d(n, p["T"], p["U"], p["S"]),
    "stencil.basic": lambda n, p: stencil_basic(n, p["BX"], p["BY"], p["BZ"], p["RADIUS"]),
    "stencil.smem_tiled": lambda n, p: stencil_smem_tiled(n, p["T"], p["RADIUS"]),
    "stencil.coarsened": lambda n, p: plane_walk(n, p["TX"], p["TY"], p["RY"], p["Z"], p["HALO"],
                                                 lambda a, b: coarsened_loads(a, b, p["HALO"])),
    "stencil.register_tiled": lambda n, p: plane_walk(n, p["TX"], p["TY"], p["RY"], p["Z"], p["HALO"],
                                                      register_tiled_loads),
}


def check(path):
    rows = re.findall(r"^\| (\S+) \| --size (\d+) ([^(|]*?) \(.*?\| l1tex__t_bytes_pipe_lsu_mem_global_op_ld\.sum \| ([\d.e+]+) \|",
                      open(path).read(), re.M)
    failures, seen = 0, 0
    print("| variant | size | configuration | walk (bytes) | hardware (6 digits) | ok |")
    print("| --- | ---: | --- | ---: | ---: | --- |")
    unwalked = set()
    for variant, size, config, measured in rows:
        if variant not in WALKS:
            unwalked.add(variant)
            continue
        seen += 1
        params = {k: int(v) for k, v in (kv.split("=") for kv in config.split())}
        ours = WALKS[variant](int(size), params)
        ok = float(f"{ours:.6g}") == float(measured)
        failures += not ok
        print(f"| {variant} | {size} | {config} | {ours} | {measured} | {'ok' if ok else 'DIFF'} |")
    print(f"\n{seen} configurations, {failures} different")
    for variant in sorted(unwalked | (listed_variants() - set(WALKS))):
        print(f"note: {variant} has no walk here; its rows were not checked")
    return 1 if failures or not seen else 0


def listed_variants():
    """The variants the build lists (`tilelab-cli list --json`; TILELAB_CLI or build/tilelab-cli), or
    none when no CLI is at hand: a lesson added without a walk is then named, not skipped silently."""
    import json
    import os
    import subprocess
    cli = os.environ.get("TILELAB_CLI", os.path.join(os.path.dirname(__file__), "..", "build", "tilelab-cli"))
    try:
        out = subprocess.run([cli, "list", "--json"], capture_output=True, text=True, timeout=60).stdout
        data = json.loads(out)
    except (OSError, ValueError, subprocess.SubprocessError):
        return set()
    return {v["id"] for v in data.get("variants", [])} if isinstance(data, dict) else set()


def main(argv):
    if len(argv) == 2 and argv[0] == "--check":
        return check(argv[1])
    if len(argv) < 2 or argv[0] not in WALKS:
        sys.stderr.write(__doc__)
        return 2
    params = {k: int(v) for k, v in (kv.split("=") for kv in argv[2:])}
    print(WALKS[argv[0]](int(argv[1]), params))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
