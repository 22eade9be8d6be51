// Shared-memory banks: which bank each lane of a warp hits, and how many wavefronts the hardware
// needs to serve one warp instruction. A variant declares its shared-memory access sites as data
// (SharedAccessSite: an address formula per lane); one generic piece here computes per-warp banks,
// wavefronts and broadcasts, and the totals per kernel. No CUDA here: the GUI, CLI and tests read it.
//
// The rule implemented (shared memory has 32 banks of 4 bytes; one "wavefront" moves at most 128
// bytes). It was measured, not taken from a manual: scripts/bank_probe/ runs one warp instruction
// per launch with a chosen address per lane and reads Nsight Compute's wavefront and conflict
// counters; on an H100 (2026-11-23) the rule below reproduces all 48 load and 48 store patterns
// (tests/cpu/test_banks.cpp replays them; docs/benchmarks.md has the table) and the hardware's
// totals of the 2D kernel at PAD=2, whose float2 fragment reads split into half-warps.
//  - bank = (byte address / 4) mod 32. A 2-byte access (16-bit elements copied one at a time) is
//    served like a 4-byte one in its word: two lanes in one word share it (not yet measured by
//    scripts/bank_probe/; lessons that use it say so in the site's caveat).
//  - Lanes are served in units: stores 128 bytes of lanes at a time (4-byte: the warp; 8-byte:
//    half-warps 0–15, 16–31; 16-byte: quarter-warps of 8 lanes), loads the whole warp for 4-byte
//    accesses, half-warps for 16-byte ones, and for 8-byte ones the whole warp when it fits one
//    wavefront (the minimum below is 1 and no bank holds two different words), else half-warps
//    (so 16 lanes reading float2 at a 16-byte stride, the other 16 the same: 2 wavefronts per
//    half, 4 in all, not 2; its conflicts are still counted against the whole warp's minimum).
//    Nothing is shared between units.
//  - A unit's conflict-free minimum: 1 wavefront for a store; for a load, the bytes it fetches
//    over 128, where within each quad of lanes (4l..4l+3) lanes l and l^1 with equal addresses
//    fetch once and the two pairs fetch once if they are equal lane by lane (a uniform float4
//    load takes 2 wavefronts, one per half-warp; 16 lanes reading 8 float4 pairwise take 1).
//  - A unit's wavefronts: the larger of that minimum and the busiest bank's number of distinct
//    words (lanes touching the same word share it: a broadcast).
//  - Instruction wavefronts = the sum over its units; bank conflicts = wavefronts − the minimum,
//    which is what l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st} reports for one warp
//    alone. In a full kernel the hardware counts more: accesses that collide with the L1's other
//    traffic in the same data banks are replayed and counted as extra wavefronts and conflicts
//    (0 with one block per SM, up to ~12 % with several; lessons/03_transpose_smem/lesson.md).
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tilelab {

inline constexpr int kWarpLanes = 32;
inline constexpr int kSharedBanks = 32;

// One lane's part in one warp instruction.
struct LaneBank {
    int64_t byte = -1;      // byte address in shared memory; -1: the lane does not take part
    int bank = -1;          // bank of its first word
    int phase = 0;          // which unit of lanes serves it (lanes_served_together)
    int wavefront = 0;      // its place in its bank's queue: 0 = first wavefront of its unit
    bool conflict = false;  // one of its banks holds more distinct words of its unit than the minimum
    bool broadcast = false; // another lane of its unit touches the same word(s) (served together)
};

// One warp instruction: every lane, and what the hardware needs for them.
struct WarpBanks {
    std::array<LaneBank, kWarpLanes> lanes{};
    int width_bytes = 4;
    bool store = false;
    int wavefronts = 0;       // sum over units of max(minimum, the busiest bank's distinct words)
    int min_wavefronts = 0;   // the conflict-free minimum, summed over units
    int worst_ways = 0;       // the worst unit's wavefronts over its minimum, rounded up (1 = none)
    int broadcasts = 0;       // lanes served by another lane's fetch of the same word
    int conflicts() const { return wavefronts - min_wavefronts; }
};

// How many consecutive lanes the hardware serves together for this instruction (see the rule above).
int lanes_served_together(const std::array<int64_t, kWarpLanes>& bytes, int width_bytes, bool store);

// `bytes[lane]` = the lane's byte address (-1 inactive); width 2, 4, 8 or 16.
WarpBanks warp_banks(const std::array<int64_t, kWarpLanes>& bytes, int width_bytes, bool store);

// A shared-memory access site of a kernel: one load or store in the source, as the compiler emits
// it, executed by every warp of a block `instances` times per block step (unrolled loop indices),
// and every block step `repeats` times over the whole launch (blocks × loop trips).
struct SharedAccessSite {
    std::string name;        // "tile store (rows)"
    std::string formula;     // "word = ty·(T+PAD) + tx", as the picture shows it
    bool store = false;
    int width_bytes = 4;     // 2 half/bf16, 4 float, 8 float2, 16 float4
    std::string caveat;      // where the model is known not to be exact, one sentence ("" = exact)
    int threads = 0;         // threads per block (warps = ⌈threads/32⌉; the last may be partial)
    int instances = 1;       // how many times each warp issues it per block step
    double repeats = 0;      // block steps in the launch: blocks × trips of the enclosing loop
    // Byte address accessed by `thread` (linear index in the block, x fastest) at `instance`,
    // relative to the start of the array; -1 if the thread does not take part.
    std::function<int64_t(int instance, int thread)> byte_address;
    // Where blocks differ (edge blocks of a grid the tiles do not divide, a last block with fewer
    // loop trips), how many block steps each instance stands for: instance i counts
    // repeats · instance_weights[i] times. Empty: every instance counts `repeats` times.
    std::vector<double> instance_weights;

    int warps() const { return (threads + kWarpLanes - 1) / kWarpLanes; }
    WarpBanks warp(int instance, int warp_index) const;
};

// Blocks along one axis of a grid that issue the same shared accesses: a representative block and
// how many there are (a site's instance_weights sum over such classes).
struct AxisClass {
    int block;
    double count;
};

// The blocks along an axis of G: the last may be cut by the grid's end; the first may hold its
// start (it differs when `first_differs`); every block between them is whole and the same.
inline std::vector<AxisClass> axis_classes(int64_t blocks, bool first_differs) {
    std::vector<AxisClass> c;
    if (blocks < 1) return c;
    if (first_differs && blocks > 1) c.push_back({0, 1});
    const int64_t middle = first_differs ? blocks - 2 : blocks - 1;
    if (middle > 0) c.push_back({first_differs ? 1 : 0, double(middle)});
    c.push_back({int(blocks - 1), 1});
    return c;
}

// One site's totals over the whole launch.
struct BankSiteTotals {
    std::string name, formula;
    bool store = false;
    int width_bytes = 4;
    double instructions = 0;     // warp instructions
    double wavefronts = 0;
    double min_wavefronts = 0;
    double broadcasts = 0;
    int worst_ways = 0;          // the worst unit's ways (WarpBanks::worst_ways; 1 = conflict-free)
    std::string caveat;          // as SharedAccessSite::caveat
    double conflicts() const { return wavefronts - min_wavefronts; }
    bool operator==(const BankSiteTotals&) const = default;
};

// Every site's totals, and the kernel's.
struct BankModel {
    bool modelled = false;   // the variant declares its shared access sites (false: not covered yet)
    std::vector<BankSiteTotals> sites;
    double load_instructions = 0, store_instructions = 0;
    double load_wavefronts = 0, store_wavefronts = 0;
    double load_conflicts = 0, store_conflicts = 0;
    double wavefronts() const { return load_wavefronts + store_wavefronts; }
    double conflicts() const { return load_conflicts + store_conflicts; }
    bool operator==(const BankModel&) const = default;
};

BankModel bank_model(const std::vector<SharedAccessSite>& sites);

// A run of `length` consecutive floats at word thread_part + constant, split as the compiler
// vectorizes it (LLVM's load/store vectorizer merges where it can prove the alignment): from its
// start, the widest piece (4, 2 or 1 floats) its address is known to be aligned to — the
// thread-dependent part a multiple of `known` floats, the constant part exact.
struct AlignedPiece {
    int offset;   // floats from the run's start
    int floats;   // 4, 2 or 1: one warp instruction
};
std::vector<AlignedPiece> aligned_pieces(int64_t constant, int length, int known);

// Builds the sites of one source access whose consecutive floats per thread the compiler may merge
// into float2/float4, each run split by aligned_pieces. One site per width; every piece is one warp
// instruction per block step.
class SharedSiteBuilder {
public:
    SharedSiteBuilder(std::string name, std::string formula, bool store)
        : name_(std::move(name)), formula_(std::move(formula)), store_(store) {}
    // `length` floats at word(thread) = thread_part(thread) + constant.
    void run(std::function<int64_t(int thread)> thread_part, int64_t constant, int length, int known);
    void set_caveat(std::string c) { caveat_ = std::move(c); }
    // Appends one site per width used ("name (float4)" ...).
    void add_to(std::vector<SharedAccessSite>& out, int threads, double repeats) const;

private:
    struct Piece {
        std::function<int64_t(int)> thread_part;
        int64_t offset;
    };
    std::string name_, formula_, caveat_;
    bool store_;
    std::array<std::vector<Piece>, 3> pieces_;   // floats 1, 2, 4
};

// 4, 2 or 1: the largest of them that divides `words`.
inline int pow2_alignment(int64_t words) { return words % 4 == 0 ? 4 : words % 2 == 0 ? 2 : 1; }

}  // namespace tilelab
