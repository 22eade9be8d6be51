// Shared-memory banks: which bank each lane of a warp hits, and how many wavefronts the hardware
// needs to serve one warp instruction. A variant declares its shared-memory access sites as data
// (SharedAccessSite: an address formula per lane); one generic piece here computes per-warp banks,
// wavefronts and broadcasts, and the totals per kernel. No CUDA here: the GUI, CLI and tests read it.
//
// The rule implemented (NVIDIA GPUs since Maxwell; shared memory has 32 banks of 4 bytes, and the
// data path serves 128 bytes per cycle, one "wavefront"):
//  - bank = (byte address / 4) mod 32.
//  - A 4-byte access is served for the whole warp at once; an 8-byte access in 2 phases (lanes
//    0–15, 16–31), a 16-byte access in 4 phases (lanes 0–7, 8–15, 16–23, 24–31): each phase moves
//    at most 128 bytes. Conflicts happen only between lanes of the same phase. (NVIDIA, GTC 2019
//    S9593 "cuTENSOR", shared-memory slide: 128-bit accesses in quarter-warp phases; the Nsight
//    Compute forum thread "bank_conflicts metric vs wavefronts for shared memory LDS.128" (2024):
//    an LDS.128 with distinct banks per quarter warp takes 4 wavefronts and counts 0 conflicts.)
//  - Within a phase, lanes that touch the same 4-byte word share it (a broadcast for loads; for
//    stores one of them writes). Lanes that touch different words of the same bank are served in
//    different wavefronts: the phase needs as many wavefronts as the busiest bank has distinct words.
//  - Instruction wavefronts = the sum over its phases; the conflict-free minimum is the number of
//    phases with an active lane; bank conflicts = wavefronts − minimum, the quantity Nsight Compute
//    reports as l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st} when nothing else
//    collides in the pipe (lessons/03_shared_memory_banks/lesson.md says when it does).
// Not modelled: CC 7.x's packing of uniform-address loads (forum thread "Unexpected shared memory
// bank conflict", 2019), which can halve the wavefronts of a wide broadcast.
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
    int phase = 0;          // which phase serves it (0 for 4-byte accesses)
    int wavefront = 0;      // its place in its bank's queue: 0 = first wavefront of the phase
    bool conflict = false;  // another lane of its phase needs a different word of one of its banks
    bool broadcast = false; // another lane of its phase reads the same word(s) (served together)
};

// One warp instruction: every lane, and what the hardware needs for them.
struct WarpBanks {
    std::array<LaneBank, kWarpLanes> lanes{};
    int width_bytes = 4;
    int wavefronts = 0;       // sum over phases of the busiest bank's distinct words
    int min_wavefronts = 0;   // phases with at least one active lane
    int broadcasts = 0;       // lanes served by another lane's fetch of the same word
    int conflicts() const { return wavefronts - min_wavefronts; }
};

// `bytes[lane]` = the lane's byte address (-1 inactive); width 4, 8 or 16.
WarpBanks warp_banks(const std::array<int64_t, kWarpLanes>& bytes, int width_bytes);

// A shared-memory access site of a kernel: one load or store in the source, as the compiler emits
// it, executed by every warp of a block `instances` times per block step (unrolled loop indices),
// and every block step `repeats` times over the whole launch (blocks × loop trips).
struct SharedAccessSite {
    std::string name;        // "tile store (rows)"
    std::string formula;     // "word = ty·(T+PAD) + tx", as the picture shows it
    bool store = false;
    int width_bytes = 4;     // 4 float, 8 float2, 16 float4
    std::string caveat;      // where the model is known not to be exact, one sentence ("" = exact)
    int threads = 0;         // threads per block (warps = ⌈threads/32⌉; the last may be partial)
    int instances = 1;       // how many times each warp issues it per block step
    double repeats = 0;      // block steps in the launch: blocks × trips of the enclosing loop
    // Byte address accessed by `thread` (linear index in the block, x fastest) at `instance`,
    // relative to the start of the array; -1 if the thread does not take part.
    std::function<int64_t(int instance, int thread)> byte_address;

    int warps() const { return (threads + kWarpLanes - 1) / kWarpLanes; }
    WarpBanks warp(int instance, int warp_index) const;
};

// One site's totals over the whole launch.
struct BankSiteTotals {
    std::string name, formula;
    bool store = false;
    int width_bytes = 4;
    double instructions = 0;     // warp instructions
    double wavefronts = 0;
    double min_wavefronts = 0;
    double broadcasts = 0;
    int worst_ways = 0;          // most wavefronts one phase needed (1 = conflict-free)
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

// Builds the sites of one source access whose consecutive floats per thread the compiler may merge
// into float2/float4 (LLVM's load/store vectorizer: it merges where it can prove the alignment).
// A run is split from its start into the widest piece (4, 2 or 1 floats) that its address is known
// to be aligned to: the thread-dependent part is a multiple of `known` floats, the constant part is
// exact. One site per width; every piece is one warp instruction per block step.
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
