// Where a kernel's warps wait: PC samples of one configuration, read by the GPU worker through
// CUPTI's PC Sampling API (engine/src/gpu_worker/pc_sampling.h) on launches of their own after
// the timed repetitions, never inside them. Every sample is one warp, caught at one instruction,
// in one state (issuing, or stalled for a reason); the device names some twenty states, grouped
// here into the ten a learner needs. Samples are kept per SASS offset and per source line.
// No CUDA types here: the GUI, the CLI and the CPU tests read this.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tilelab {

// The groups, in the order panels and tables list them.
enum class StallGroup {
    issuing,          // "selected": the warp issued an instruction this cycle
    global_memory,    // long scoreboard: waiting on a global or local (spill) load
    shared_memory,    // short scoreboard: waiting on shared memory or another MIO result
    barrier,          // __syncthreads(): waiting for the rest of the block
    math_pipe,        // math pipe throttle: the FMA/tensor pipe is busy
    memory_throttle,  // MIO, LG or TEX throttle: the load/store queues are full
    not_selected,     // ready, but another warp was picked
    branch,           // branch resolving, no instruction (instruction cache)
    wait,             // a fixed-latency dependency
    other,            // membar, sleeping, dispatch, drain, misc
};
inline constexpr int kStallGroups = 10;

// "issuing", "global_memory", ... (the JSON keys and string keys "stall.<key>.*").
const char* stall_group_key(StallGroup g);
// The group's name in the current language (strings: stall.<key>.name): "Global memory".
std::string stall_group_name(StallGroup g);
// The group of a device's stall-reason name (CUPTI's "smsp__pcsamp_warps_issue_stalled_barrier",
// or the bare "barrier"); names CUPTI adds later fall into `other`.
StallGroup stall_group_of(std::string_view cupti_name);
// CUPTI also names every reason a second time with "_not_issued" (the samples whose warp did not
// issue): counting those as well would count a sample twice. True for those names.
bool is_not_issued_duplicate(std::string_view cupti_name);

struct StallCounts {
    std::array<uint64_t, kStallGroups> n{};
    uint64_t total() const;
    uint64_t& operator[](StallGroup g) { return n[size_t(g)]; }
    uint64_t operator[](StallGroup g) const { return n[size_t(g)]; }
    StallGroup top() const;   // the largest group (issuing when empty)
    StallCounts& operator+=(const StallCounts& o);
    bool operator==(const StallCounts&) const = default;
};

// One source line of the kernel with the samples of every instruction it compiled to, and of
// every instruction of a call inlined on it at the call's first address (StallPc::calls): the
// shares of several lines can add up to more than the whole, as in Nsight Compute's source view.
struct StallLine {
    std::string file;   // as the compiler named it: the kernel's .cuh path ("matmul/tiled.cuh")
    int line = 0;       // 1-based
    StallCounts counts;
    bool operator==(const StallLine&) const = default;
};

// One SASS instruction that was sampled.
struct StallPc {
    uint64_t offset = 0;   // bytes from the function's start
    int line = -1;         // index into StallSamples::lines, -1 without line information
    StallCounts counts;
    std::string sass;      // the instruction ("LDS R8, [R3+0x80]"), "" where no disassembler ran
    // The lines of the inlined calls the instruction's code begins at (indices into lines,
    // outermost first; `line` is the innermost, the instruction's own): its samples count there too.
    std::vector<int> calls;
    bool operator==(const StallPc&) const = default;
};

namespace stall_status {
inline constexpr const char* ok = "ok";
inline constexpr const char* skipped = "skipped";          // not asked for (quick run, no --stalls)
inline constexpr const char* no_gpu = "no_gpu";            // model mode
inline constexpr const char* overflow = "overflow";        // the hardware buffer overflowed: samples dropped
inline constexpr const char* unsupported = "unsupported";  // GPU, driver or libcupti cannot sample
inline constexpr const char* insufficient_privileges = "insufficient_privileges";
inline constexpr const char* error = "error";              // anything else, with CUPTI's message
inline constexpr const char* off = "off";                  // not asked for any more: sampling lost the GPU's context this session
}  // namespace stall_status

struct StallSamples {
    std::string status = stall_status::skipped;
    // One sentence when status is not ok (what happened, what to do), or when the shares
    // depended on the sampling period (stall_period_note).
    std::string reason;
    // A sample every 2^period_log2 cycles on each SM. With the period check (plan_stall_sampling,
    // below) half the launches are sampled at 2^P and half
    // at 2^(P+1), and a third share at 2^(P+2) where those two disagree (choose_stall_periods):
    // the samples shown are those of the periods from period_log2 to last_period_log2,
    // left_out_period_log2 excepted.
    int period_log2 = 0;
    int last_period_log2 = 0;      // 0: one period
    int left_out_period_log2 = 0;  // 0: none left out
    double period_spread = 0;      // points: the largest difference between the periods' shares (stall_period_spread)
    int launches = 0;              // sampled launches of the kernel
    uint64_t total = 0;            // samples of this kernel (every state)
    uint64_t dropped = 0;          // samples the hardware dropped
    double collect_ms = 0;         // wall time of the sampled launches and the decoding
    StallCounts counts;            // the whole kernel
    std::vector<StallLine> lines;  // most samples first
    std::vector<StallPc> pcs;      // by offset

    // Usable samples (ok, or an overflow that still left samples to show).
    bool has_samples() const { return total > 0 && !lines.empty(); }
    bool operator==(const StallSamples&) const = default;
};

// One sampled instruction as the worker reads it: its samples and its source lines (file, line),
// the calls it was inlined through first and its own line last; empty without line information.
struct SampledPc {
    uint64_t offset = 0;
    StallCounts counts;
    std::vector<std::pair<std::string, int>> lines;
};
// Fills s.counts, s.total, s.pcs (by offset) and s.lines (most samples first) from `sampled`:
// each instruction's samples count once on each of its lines.
void charge_stall_lines(const std::vector<SampledPc>& sampled, StallSamples& s);

// A StallLine's file is `kernel_file` (the variant's "matmul/tiled.cuh", or a user's file name):
// one ends with the other at a folder boundary (NVRTC names an included header by its last part).
bool stall_file_matches(const std::string& file, const std::string& kernel_file);
// The line of `kernel_file` with most samples (the worker keeps `lines` most samples first); null
// when that file has none.
const StallLine* stall_hottest_line(const StallSamples& s, const std::string& kernel_file);
// A lesson's measured stall claim (<!-- measured: ... | TILE=32: 48% memory_throttle -->): a
// percentage and a group key. False for anything else (a time such as "0.420 ms").
bool parse_stall_claim(const std::string& text, double& percent, StallGroup& group);

// How far apart two sets of samples of one kernel are, in percentage points: the largest
// difference between their shares of a reason group or of a line that either ranks in its five
// most sampled (a line the other lacks has a share of 0 there).
double stall_period_spread(const StallSamples& a, const StallSamples& b);
// Two sets of samples of one kernel taken at different periods agree: no share differs by more
// than kStallPeriodPoints, nor by more than four standard errors of the difference (binomial, from
// the two sample counts, so that a kernel with few samples is not called period-dependent for its
// noise). 3 points: about twice the largest change of a top line between repeated runs at one
// period on an H200 (1.3 points, matmul.tma_wgmma, check_stalls.py, 2026-12-04), and below the 5
// points the check against Nsight Compute allows.
inline constexpr double kStallPeriodPoints = 3.0;
bool stall_periods_agree(const StallSamples& a, const StallSamples& b);
// Which sampling rounds to show, given rounds at periods 2^P, 2^(P+1) and, once those two
// disagree, 2^(P+2): both of the first two where they agree; else the two of three that agree,
// the third left out (a period that kept step with the kernel's loop — measured: matmul.smem_tiled
// on an H200 at 2^11, not at 2^10, 2^12 or 2^13); all of them where no two agree.
struct StallPeriodChoice {
    bool need_third = false;     // two rounds given, and they disagree: sample a third
    std::vector<size_t> shown;   // the rounds whose samples to add up, in period order
    int left_out = -1;           // the round left out (-1: none)
    double spread = 0;           // the largest spread between rounds (shown and left out alike)
};
StallPeriodChoice choose_stall_periods(const std::vector<StallSamples>& rounds);

// How the worker samples a kernel whose launch takes `launch_ms`: as many launches as make
// kStallSampledMs in all (at most kStallMaxLaunches), back to back as they are timed; the period
// check (choose_stall_periods) unless a period is forced, the setting `check` is "0", or one launch
// fills the time (the check halves the launches between two periods). The setting `gap` (ms, ""
// for none) leaves the GPU idle after each launch, each then running alone as Nsight Compute's do:
// a diagnostic, not the default. For matmul.tma_wgmma, whose samples differ most from ncu's, a gap
// of 1-20 ms brought them closer on an H200 (5.6-6.4 points apart, then 2.1-3.6) and further on
// an H100 (6.5 points apart, then 12.5-13.6 with a gap of 0.1 or 1 ms, or a wait for each launch;
// docs/benchmarks.md, 2026-12-04 to 2026-12-06).
inline constexpr double kStallSampledMs = 4.0;
inline constexpr int kStallMaxLaunches = 200;
struct StallSamplingPlan {
    int launches = 1;     // at the first period; without the check, all of them
    bool check = false;   // sample at a second period, and a third where the two disagree
    double gap_ms = 0;    // idle time after each sampled launch (0: back to back)
    bool apart = false;   // each launch waited for before the next (a gap implies it)
};
// `check`, `gap` and `apart`: the diagnostics TILELAB_PC_SAMPLING_CHECK ("0": off),
// TILELAB_PCSAMP_GAP_MS (milliseconds, at most 1000) and TILELAB_PCSAMP_APART ("1"), as set.
StallSamplingPlan plan_stall_sampling(double launch_ms, bool forced_period, std::string_view check, std::string_view gap,
                                      std::string_view apart = "");
// The periods shown: "2^11", "2^11 or 2^12", "2^11 or 2^13".
std::string stall_periods_text(const StallSamples& s);
// The sentence for samples that depended on the sampling period ("" where they did not).
std::string stall_period_note(const StallSamples& s);

// The share of `part` in `total`, in percent (0 when total is 0).
double stall_share(uint64_t part, uint64_t total);
// The sentence for a status that is not ok ("" for ok and skipped); `detail` is appended.
std::string stall_reason(const std::string& status, const std::string& detail = "");
// One sentence for the Results panel and the CLI: "62% of samples: Global memory, most on line 23".
// The line is named by its number when it is in `kernel_file` (the file the reader sees), else as
// "file:line" (an inlined helper from a header, e.g. WMMA's).
std::string stall_summary(const StallSamples& s, const std::string& kernel_file);

// The instructions of `function` (its mangled name) in nvdisasm's listing of a cubin, by offset
// from the function's start: "/*0080*/  @P0 LDG.E R2, desc[UR4][R2.64] ;" gives 0x80 ->
// "@P0 LDG.E R2, desc[UR4][R2.64]". Empty when the listing has no such function.
std::map<uint64_t, std::string> parse_sass_listing(const std::string& listing, const std::string& function);

}  // namespace tilelab
