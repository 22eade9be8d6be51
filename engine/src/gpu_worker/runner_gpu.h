// The GPU side of Engine::run(), living in the GPU worker process (gpu_worker.cpp): buffers,
// loading, launching, validating, timing and counting one analysed configuration; the ceilings;
// the testing hooks' device work. Holds every piece of device state kept between runs. After a
// fault the context is lost for good (this driver cannot recreate it in the same process), so
// the runner only notes it; the worker then replies and exits, and the engine starts a new one.
// Not thread-safe: the worker serves one request at a time.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include "gpu_worker/device_buffer.h"
#include "gpu_worker/family.h"
#include "gpu_worker/timing.h"
#include "gpu_worker/sass_listing.h"
#include "gpu_worker/tensor_maps.h"
#include "tilelab/compile.h"
#include "tilelab/device.h"
#include "protocol/worker_protocol.h"

namespace tilelab {

class HardwareCounterSession;
class PcSamplingSession;

// A launch of `grid` blocks in clusters of `cluster` along x (LaunchShape::cluster), on the
// default stream: the configuration cudaLaunchKernelExC and cudaOccupancyMaxActiveClusters take.
// It points at `attribute`, which holds the cluster's dimension and must outlive it.
inline cudaLaunchConfig_t cluster_launch(dim3 grid, dim3 block, unsigned dyn_smem, unsigned cluster, cudaLaunchAttribute& attribute) {
    attribute = cudaLaunchAttribute{};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = cluster, attribute.val.clusterDim.y = 1, attribute.val.clusterDim.z = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = grid, config.blockDim = block, config.dynamicSmemBytes = dyn_smem, config.stream = nullptr;
    config.attrs = &attribute, config.numAttrs = 1;
    return config;
}

class GpuRunner {
public:
    explicit GpuRunner(size_t l2_bytes);
    ~GpuRunner();
    GpuRunner(const GpuRunner&) = delete;
    GpuRunner& operator=(const GpuRunner&) = delete;

    // Validates, times and counts one analysed configuration: ok = true, or false with the stage
    // and a one-line error. Times and counts only: the host derives the rates. Never throws.
    Measurement measure(const worker::MeasureJob& job, const RunOptions& opt, const CancelFlag* cancel);

    // CUPTI's one-time set-up (libcupti, the chip's counters, the metrics' schedule) ahead of the
    // first run that reads counters. A failure is kept for that run to report. Never throws.
    void prepare_hardware_counters();
    // PC sampling enabled on the context ahead of the first run that samples (pc_sampling.h).
    void prepare_stall_samples();

    // Device copy bandwidth and cuBLAS SGEMM at 4096³. Never throws (measured = false on error).
    Ceilings measure_ceilings();

    // True once a sticky error (an illegal address, a trap ...) has lost the CUDA context: every
    // later call in this process fails, so the worker must exit.
    bool context_lost() const { return context_lost_; }
    // Disables PC sampling where this worker enabled it, before it leaves without destructors.
    void release_profilers();

    // Testing hooks (engine_testing.h), done here because only the worker touches the device.
    // cudaOccupancyMaxActiveBlocksPerMultiprocessor for a cubin loaded as measure() loads it; -1
    // and `error` on failure.
    int runtime_blocks_per_sm(const CompileResult& compiled, const LaunchShape& launch, std::string& error);
    // Holds device memory until about `leave_free_bytes` remain; returns a handle for release().
    int occupy_memory(size_t leave_free_bytes, std::string& error);
    void release_memory(int handle);
    // engine_testing::support_sample(): the support kernels at a small size, results copied back.
    worker::json support_sample(const worker::json& request);

private:
    struct FamilySlot {
        std::unique_ptr<Family> family;
        Problem problem;
        uint64_t seed = 0;
    };

    // A kernel loaded for launching: its entry, shape and dynamic shared memory (attribute set).
    struct Loaded {
        const void* entry = nullptr;
        dim3 grid, block;
        unsigned dyn_smem = 0;
        int repeat = 1;          // launches in a row (KernelPass::repeat)
        std::shared_ptr<const std::vector<EncodedTensorMap>> maps;   // after the arguments (LaunchShape::tensor_maps)
        unsigned cluster = 1;    // blocks a cluster along x (LaunchShape::cluster)
        // One launch with these arguments on the default stream.
        void launch(std::vector<void*>& args) const {
            std::vector<void*> all = maps && !maps->empty() ? with_tensor_maps(args, *maps) : std::vector<void*>{};
            void** params = maps && !maps->empty() ? all.data() : args.data();
            if (cluster <= 1) {
                TL_CUDA_CHECK(cudaLaunchKernel(entry, grid, block, params, dyn_smem, nullptr));
                return;
            }
            cudaLaunchAttribute attribute;
            const cudaLaunchConfig_t config = cluster_launch(grid, block, dyn_smem, cluster, attribute);
            TL_CUDA_CHECK(cudaLaunchKernelExC(&config, entry, params));
        }
    };
    Loaded load(Family& family, const CompileResult& kernel, const LaunchShape& launch, int repeat = 1);
    // Runs kernels[pass]'s launches, numbered from the first of its pass within the `count` of
    // the whole run, the family told of each (Family::before_launch).
    static void launch_pass(Family& family, const std::vector<Loaded>& kernels, size_t pass, std::vector<void*>& args, size_t count);
    static size_t launch_count(const std::vector<Loaded>& kernels);
    std::vector<double> time_each(Family& family, const std::vector<Loaded>& kernels, std::vector<void*>& args, const TimingPlan& plan);
    Family& family_for(const std::string& name, const Precision& precision, const FamilyOptions& options, const Problem& p,
                       uint64_t seed);
    void check_memory(const std::string& family_name, const Precision& precision, const FamilyOptions& options, const Problem& p);
    const LoadedLibrary& library_for(const CompileResult& c);
    AccessCounts count_accesses(Family& family, const std::vector<Loaded>& counting, size_t pass, size_t count);
    std::optional<AccessCounts> count_job(Family& family, const worker::MeasureJob& job);
    void add_sass_text(StallSamples& s, const worker::MeasureJob& job);
    HardwareCounters read_counters(const std::function<void()>& launch, int kernels, int own);
    static int own_launch(const worker::MeasureJob& job);
    StallSamples sample_stalls(Family& family, const worker::MeasureJob& job, std::vector<void*>& args,
                               double launch_ms);
    void profile_stages(Family& family, const worker::MeasureJob& job, std::vector<void*>& args,
                        const std::function<void()>& launch, int launches, const RunOptions& opt, Measurement& r,
                        std::chrono::steady_clock::time_point& lap);
    L2Flusher& flusher();
    // After a CUDA error: notes whether it lost the context. Returns context_lost().
    bool note_error(cudaError_t code);

    size_t l2_bytes_;
    bool context_lost_ = false;
    std::map<std::string, FamilySlot> families_;                       // by family name, precision and options
    std::map<std::string, std::unique_ptr<LoadedLibrary>> libraries_;  // by cubin hash and kernel name
    std::unique_ptr<L2Flusher> flusher_;
    std::unique_ptr<HardwareCounterSession> hardware_;                 // CUPTI, set up on first use
    SassListings sass_;                                                // the sampled instructions' text (nvdisasm)
    std::unique_ptr<PcSamplingSession> sampling_;                      // CUPTI PC sampling, enabled on first use
    std::map<std::string, std::pair<std::string, double>> reference_ms_;  // key -> (name, ms)
    std::map<int, std::vector<DeviceBuffer>> held_memory_;                // occupy_memory()
    int next_handle_ = 1;
};

}  // namespace tilelab
