// Which tiles, and which K slices of them, one worker of a persistent launch takes (lesson 22).
//
// A worker is a block (or a cluster of CLUSTER blocks taking the same slices of tiles one above
// the other). With U tiles and G workers, tile by tile ("data-parallel") is ⌈U/G⌉ rounds, the
// last with only U mod G tiles: at 4096³ and 128×256 tiles, 512 tiles on 132 SMs, the fourth
// round leaves 16 SMs idle; 72 tiles leave 60 of them idle for the whole run. Stream-K shares the
// work of the last R rounds (R = 1 or 2, counting the short one) out by K slices instead: the
// first ⌈U/G⌉ − R rounds go tile by tile, the tiles left ((R − 1)·G + U mod G of them; all U where
// U < G) are one run of slice-steps cut into G shares of equal length (±1), one per worker (one
// step each for the first workers where there are fewer steps than workers: no share is empty).
// A tile the cuts fall inside has parts on consecutive workers: its head (slices from 0) ends one
// worker's share, its tail (slices to the end) starts a later worker's, and between them, where a
// share is shorter than a tile, middles (a whole share each). The tail stores its partial sums
// into C and raises the tile's flag to 1; a middle waits until the flag counts the parts after it,
// adds C into its sums, stores them back and counts itself; the head waits for all of them, adds,
// and stores the tile. Every wait is on a later worker's part that is the first of its share or
// its only one, so no wait closes a cycle.
// Where the tiles fill whole rounds (U mod G = 0) every tile is whole.
//
// Host code includes this file with __device__ and __forceinline__ defined away (the lesson's
// model test walks the same schedule).
#pragma once

// Slices [k_begin, k_end) of tile `tile`.
struct TileWork {
    int tile, k_begin, k_end;
};

struct StreamKSchedule {
    int tile, workers, worker, whole_end;   // whole tiles: tile, tile + workers, ... below whole_end
    int next, end;                          // then slice-steps [next, end) of the tiles from whole_end on,
    int steps, slices;                      // `steps` of them in all (below 2·1,024·1,024 for K ≤ 65,536),
    int sharers;                            // shared by the first min(workers, steps) workers: none empty

    // rounds_shared: R, the rounds shared out by K (0: every tile whole).
    __device__ __forceinline__ StreamKSchedule(int units, int workers_, int worker_, int slices_per_tile, int rounds_shared)
        : tile(worker_), workers(workers_), worker(worker_), whole_end(units), next(0), end(0), steps(0),
          slices(slices_per_tile), sharers(1) {
        const int rounds = units / workers, left = units % workers;
        if (rounds_shared > 0 && left > 0) {
            whole_end = rounds + 1 > rounds_shared ? (rounds + 1 - rounds_shared) * workers : 0;
            steps = (units - whole_end) * slices;
            sharers = steps < workers ? steps : workers;
            next = start_of(worker);
            end = start_of(worker + 1);
        }
    }
    // The first slice-step of worker w's share (steps for the workers past the sharers: nothing).
    __device__ __forceinline__ int start_of(int w) const { return w >= sharers ? steps : int((long long)steps * w / sharers); }
    // The worker whose share holds slice-step e.
    __device__ __forceinline__ int owner_of(int e) const {
        int w = int((long long)e * sharers / steps);
        while (w + 1 < sharers && start_of(w + 1) <= e) ++w;
        while (w > 0 && start_of(w) > e) --w;
        return w;
    }
    // The next piece of work; false when the worker has none left.
    __device__ __forceinline__ bool take(TileWork& w) {
        if (tile < whole_end) {
            w = {tile, 0, slices};
            tile += workers;
            return true;
        }
        if (next >= end) return false;
        const int t = next / slices, k = next % slices;
        const int k_end = end - next < slices - k ? k + (end - next) : slices;
        w = {whole_end + t, k, k_end};
        next += k_end - k;
        return true;
    }
    // A cut tile's flag: its index among the tiles shared by K (fewer than R·workers).
    __device__ __forceinline__ int flag_of(int t) const { return t - whole_end; }
    // Parts of w's tile after w (on the workers after this one): 0 for a tail or a whole tile.
    __device__ __forceinline__ int parts_after(const TileWork& w) const {
        if (w.k_end == slices) return 0;
        return owner_of((w.tile - whole_end + 1) * slices - 1) - worker;
    }
};

// A piece of a cut tile (not the whole tile).
__device__ __forceinline__ bool is_cut(const TileWork& w, int slices) { return w.k_begin > 0 || w.k_end < slices; }
