// The compile service: kernel sources are embedded at build time and compiled by NVRTC on demand.
// Needs no GPU. Thread-safe. Caches cubins in memory and on disk.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tilelab {

// What ptxas reported (-Xptxas=-v) for the kernel.
struct PtxasInfo {
    int registers = 0;
    int spill_stores = 0;   // bytes
    int spill_loads = 0;    // bytes
    int stack_bytes = 0;    // stack frame
    int smem_bytes = 0;     // static shared memory
    int cmem_bytes = 0;     // constant bank 0 (params)
    bool parsed = false;
    bool spills() const { return spill_stores > 0 || spill_loads > 0; }
    int spill_bytes() const { return spill_stores + spill_loads; }
};

// Parses ptxas's verbose report. Only the lines for `mangled_name` are used when it is not empty.
PtxasInfo parse_ptxas_report(const std::string& log, const std::string& mangled_name = "");

struct CompileRequest {
    std::string source_file;              // embedded path, e.g. "matmul/smem_tiled.cuh"
    std::string name_expression;          // e.g. "smem_tiled_matmul<32, 1>"
    int arch = 0;                         // 90 for sm_90
    int max_registers = 0;                // -maxrregcount (0 = none)
    std::vector<std::string> defines{};   // "TILELAB_COUNT=1"
    // A user's kernel (an exercise): when not empty, this text is compiled instead of
    // source_file, under the name source_name (the name compile errors give with their lines).
    // The embedded sources stay available to it as headers. Never cached: every edit differs.
    std::string source_text{};
    std::string source_name{};
    // PTX for the virtual architecture compute_<arch> instead of a cubin (the CPU run's input,
    // engine/src/cpu/): no ptxas, so no register report; the PTX text is in CompileResult::cubin.
    bool ptx = false;
    bool arch_specific = false;           // sm_XXa / compute_XXa (KernelInstance::arch_specific)
};

struct CompileResult {
    bool ok = false;
    std::string error;           // one line, when !ok
    std::string log;             // NVRTC + ptxas log
    std::string lowered_name;    // mangled kernel name for cudaLibraryGetKernel
    std::vector<char> cubin;     // the image: a cubin, or PTX text for a CompileRequest::ptx
    PtxasInfo ptxas;
    std::string options;         // the options passed to NVRTC, space separated
    double compile_ms = 0;       // wall time of this call
    bool cache_hit = false;      // from memory or disk, or shared with a compile already running
    // "": compiled by this call; "memory", "disk": found there; "in-flight": the same compile was
    // already running (e.g. compiled ahead) and this call waited for it (compile_ms: the wait).
    std::string cache_level;
    bool compiled_ahead = false; // the build was made by a compile-ahead call (CompileOrigin::Ahead)
    // No compiler could be reached (a client-only build without a GPU worker, or a lost link):
    // `error` says so; not a fault of the kernel. The engine then gives the models only.
    bool compiler_unavailable = false;
};

// Who asks: a user's request, or compile-ahead guessing the next one (Engine::compile_ahead).
// Only bookkeeping: both compile the same way; an interactive call never waits for an unrelated
// compile-ahead one, and waits for (rather than repeats) one of the same key.
enum class CompileOrigin { Interactive, Ahead };

// What the service has done since it was made, per call.
struct CompileStats {
    uint64_t nvrtc = 0;        // compiled with NVRTC
    uint64_t disk = 0;         // loaded from the disk cache
    uint64_t memory = 0;       // found in the memory cache
    uint64_t in_flight = 0;    // waited for the same key being compiled by another call
    uint64_t waiting_now = 0;  // calls waiting for another's compile at this moment
};

// Kernel sources compiled into the binary (path relative to kernels/ -> text).
const std::string* embedded_source(const std::string& path);
std::vector<std::string> embedded_source_paths();

class CompileService {
public:
    // cache_dir: where cubins are kept between runs ("" = memory only).
    explicit CompileService(std::string cache_dir);
    ~CompileService();
    CompileService(const CompileService&) = delete;
    CompileService& operator=(const CompileService&) = delete;

    std::shared_ptr<const CompileResult> compile(const CompileRequest& req,
                                                 CompileOrigin origin = CompileOrigin::Interactive);
    // The build is in the memory cache now: compile() would return it at once. Cheap (hashes the key).
    bool in_memory(const CompileRequest& req) const;
    // In the memory cache, or being compiled by some call right now.
    bool in_memory_or_in_flight(const CompileRequest& req) const;
    CompileStats stats() const;
    void clear_memory_cache();

    // Tests only: compile with `backend` instead of NVRTC, and neither read nor write the disk
    // cache (e.g. a compile that blocks until the test lets it go, or counts its calls).
    using Backend = std::function<std::shared_ptr<CompileResult>(const CompileRequest&)>;
    void set_backend_for_testing(Backend backend);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Default on-disk cache: $XDG_CACHE_HOME/tilelab or ~/.cache/tilelab.
std::string default_cache_dir();

}  // namespace tilelab
