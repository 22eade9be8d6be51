// Measuring one configuration on the GPU, in the order the design asks for: refuse what cannot
// fit, set up inputs, poison the output, launch once and validate, and only then warm up and
// time; then count accesses with the instrumented build, sample where its warps wait (launches of
// their own), read the hardware counters of the same launch (replayed, after the timed
// repetitions) and time the reference.
#include "gpu_worker/runner_gpu.h"
#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <thread>
#include "model/family_shape.h"
#include "gpu_worker/hardware_counters.h"
#include "gpu_worker/pc_sampling.h"
#include "device/probe.h"
#include "gpu_worker/support_kernels.h"
#include "tilelab/i18n.h"
#include "tilelab/util.h"

namespace tilelab {
namespace {

// Loaded libraries kept before the cache starts over (a sweep loads one per configuration).
constexpr size_t kMaxLoadedLibraries = 256;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// A refusal or failure that is not a CUDA error, with the stage it belongs to.
struct StageError : std::runtime_error {
    StageError(std::string stage_, const std::string& message) : std::runtime_error(message), stage(std::move(stage_)) {}
    std::string stage;
};

// Errors after which the context is unusable until the device is reset.
bool is_sticky(cudaError_t e) {
    switch (e) {
        case cudaErrorIllegalAddress: case cudaErrorLaunchFailure: case cudaErrorHardwareStackError:
        case cudaErrorIllegalInstruction: case cudaErrorMisalignedAddress: case cudaErrorInvalidAddressSpace:
        case cudaErrorInvalidPc: case cudaErrorAssert: case cudaErrorLaunchTimeout: case cudaErrorECCUncorrectable:
        case cudaErrorContextIsDestroyed: return true;
        default: return false;
    }
}

// Identifies a loaded library by what was loaded: the cubin's bytes and the kernel's name.
std::string library_key(const CompileResult& c) {
    const size_t cubin_hash = std::hash<std::string_view>{}(std::string_view(c.cubin.data(), c.cubin.size()));
    return fmt::format("{:016x}|{}|{}", cubin_hash, c.cubin.size(), c.lowered_name);
}

dim3 to_dim3(const std::array<unsigned, 3>& a) { return dim3(a[0], a[1], a[2]); }

// A persistent launch in clusters (LaunchShape::resident_per_sm, cluster): its grid cut to the
// clusters this GPU holds at once. A cluster's blocks must fit in one GPC together, so fewer may
// fit than one block an SM suggests (H200, clusters of 4 at one block an SM: 30, not 33); the rest
// would wait for a whole second round. Other launches keep their grid.
dim3 resident_grid(const void* entry, const LaunchShape& launch) {
    dim3 grid = to_dim3(launch.grid);
    if (launch.resident_per_sm <= 0 || launch.cluster <= 1) return grid;
    cudaLaunchAttribute attribute;
    const cudaLaunchConfig_t config = cluster_launch(grid, to_dim3(launch.block), launch.dynamic_smem, launch.cluster, attribute);
    int clusters = 0;
    TL_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, entry, &config));
    if (clusters > 0) grid.x = std::min(grid.x, unsigned(clusters) * launch.cluster);
    return grid;
}

// Milliseconds since `start`; restarts it, so consecutive stages can be timed one after another.
double lap_ms(std::chrono::steady_clock::time_point& start) {
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - start).count();
    start = now;
    return ms;
}

}  // namespace

GpuRunner::GpuRunner(size_t l2_bytes) : l2_bytes_(l2_bytes) {}
GpuRunner::~GpuRunner() = default;

void GpuRunner::check_memory(const std::string& family_name, const Precision& precision, const FamilyOptions& options,
                             const Problem& p) {
    const std::unique_ptr<FamilyShape> sizer = make_family_shape(family_name);
    if (!sizer) return;   // family_for() says the family is unknown
    const size_t needed = sizer->device_bytes(p, precision, options);
    size_t free_bytes = 0, total_bytes = 0;
    device_memory(free_bytes, total_bytes);
    if (needed <= free_bytes) return;
    // Other families' buffers are only a cache: give their memory back and look again.
    families_.clear();
    device_memory(free_bytes, total_bytes);
    if (needed <= free_bytes) return;
    const auto names = sizer->dim_names();
    throw StageError("input", fmt::format("{}={}, {}={}, {}={} needs {:.1f} GiB of device memory, {:.1f} GiB free.",
                                          names[0], p.dim[0], names[1], p.dim[1], names[2], p.dim[2],
                                          needed / kGiB, free_bytes / kGiB));
}

Family& GpuRunner::family_for(const std::string& name, const Precision& precision, const FamilyOptions& options,
                              const Problem& p, uint64_t seed) {
    const std::string key = name + " " + precision.describe() + " " + format_options(options);
    FamilySlot& slot = families_[key];
    if (slot.family && slot.problem == p && slot.seed == seed) return *slot.family;
    slot.family.reset();   // free the old problem's buffers before sizing the new one
    check_memory(name, precision, options, p);
    std::unique_ptr<Family> family = make_family(name);
    if (!family) throw StageError("input", fmt::format("The {} family is not implemented yet.", name));
    family->setup(p, precision, options, seed);
    FamilySlot& fresh = families_[key];   // check_memory may have cleared the map
    fresh = {std::move(family), p, seed};
    return *fresh.family;
}

const LoadedLibrary& GpuRunner::library_for(const CompileResult& c) {
    const std::string key = library_key(c);
    if (auto it = libraries_.find(key); it != libraries_.end()) return *it->second;
    auto lib = std::make_unique<LoadedLibrary>(c.cubin.data(), c.lowered_name.c_str());
    return *libraries_.emplace(key, std::move(lib)).first->second;
}

void GpuRunner::prepare_hardware_counters() {
    try {
        if (!hardware_) hardware_ = std::make_unique<HardwareCounterSession>();
        hardware_->prepare();
        flusher();   // the counter pass empties L2 with it
        (void)support_kernels();
    } catch (const std::exception& e) {   // the first run that reads counters meets it again and says so
        std::fprintf(stderr, "tilelab-gpu-worker: hardware counters not prepared: %s\n", e.what());
    }
}

void GpuRunner::prepare_stall_samples() {
    if (!sampling_) sampling_ = std::make_unique<PcSamplingSession>();
    sampling_->prepare();
}

void GpuRunner::release_profilers() {
    if (sampling_) sampling_->release();
}

L2Flusher& GpuRunner::flusher() {
    if (!flusher_) flusher_ = std::make_unique<L2Flusher>(l2_bytes_);
    return *flusher_;
}

bool GpuRunner::note_error(cudaError_t code) {
    (void)cudaGetLastError();   // clears an ordinary (non-sticky) error
    // No cudaDeviceReset(): on this driver the process cannot create a context afterwards anyway.
    if (is_sticky(code) || cudaDeviceSynchronize() != cudaSuccess) context_lost_ = true;
    return context_lost_;
}

// Which launch of a job's passes is the first of its own kernel (the one `kernel` names); 0 for a job of one.
int GpuRunner::own_launch(const worker::MeasureJob& job) {
    int launch = 0;
    for (const worker::JobPass& pass : job.passes) {
        if (pass.kernel->lowered_name == job.kernel->lowered_name && pass.kernel->cubin == job.kernel->cubin) return launch;
        launch += pass.repeat;
    }
    return 0;
}

// Probe hook for issue 30's L2 bytes (a kernel whose loads hit L1 counted fewer L2 requests in the
// pass than under ncu on the same launch): TILELAB_CARVEOUT=P (0-100, % of the SM's unified
// memory for shared) sets the lesson kernel's preferred shared-memory carveout for every launch,
// where otherwise the driver chooses, and may keep what the launch before it left.
static void carveout_probe(const void* entry) {
    const char* v = std::getenv("TILELAB_CARVEOUT");
    if (!v || !*v) return;
    const cudaError_t e = cudaFuncSetAttribute(entry, cudaFuncAttributePreferredSharedMemoryCarveout, std::atoi(v));
    if (std::getenv("TILELAB_HW_TRACE")) std::fprintf(stderr, "hw-limit: carveout %s: %s\n", v, cudaGetErrorString(e));
}

GpuRunner::Loaded GpuRunner::load(Family& family, const CompileResult& kernel, const LaunchShape& launch, int repeat) {
    const LoadedLibrary& lib = library_for(kernel);
    family.on_library_loaded(lib.library());
    if (launch.dynamic_smem > 0)
        TL_CUDA_CHECK(cudaFuncSetAttribute(lib.entry(), cudaFuncAttributeMaxDynamicSharedMemorySize, int(launch.dynamic_smem)));
    carveout_probe(lib.entry());
    Loaded loaded{lib.entry(), resident_grid(lib.entry(), launch), to_dim3(launch.block), launch.dynamic_smem, repeat, nullptr,
                  launch.cluster};
    // Tensor maps hold the family's addresses as they stand now (set up before any load).
    if (!launch.tensor_maps.empty())
        loaded.maps = std::make_shared<const std::vector<EncodedTensorMap>>(encode_tensor_maps(launch.tensor_maps, family.kernel_args(nullptr)));
    return loaded;
}

size_t GpuRunner::launch_count(const std::vector<Loaded>& kernels) {
    size_t n = 0;
    for (const Loaded& k : kernels) n += size_t(k.repeat);
    return n;
}

void GpuRunner::launch_pass(Family& family, const std::vector<Loaded>& kernels, size_t pass, std::vector<void*>& args,
                            size_t count) {
    size_t index = 0;
    for (size_t i = 0; i < pass; ++i) index += size_t(kernels[i].repeat);
    for (int n = 0; n < kernels[pass].repeat; ++n) {
        family.before_launch(index++, count);
        kernels[pass].launch(args);
    }
}

// Each pass of a launch of several timed alone (all its repeats), after the timed launches (its
// inputs are the last launch's, the same every time): medians in order.
std::vector<double> GpuRunner::time_each(Family& family, const std::vector<Loaded>& kernels, std::vector<void*>& args,
                                         const TimingPlan& plan) {
    std::vector<double> out;
    const size_t count = launch_count(kernels);
    for (size_t pass = 0; pass < kernels.size(); ++pass) {
        Timing t;
        const auto one = [&] { launch_pass(family, kernels, pass, args, count); };
        if (!time_launches(one, plan, t)) return {};
        out.push_back(t.median_ms);
    }
    return out;
}

// The launches of one pass's counting build (TILELAB_COUNT=1), numbered within the whole run as
// the timed ones are: the global and shared loads and stores their threads added up.
AccessCounts GpuRunner::count_accesses(Family& family, const std::vector<Loaded>& counting, size_t pass, size_t count) {
    DeviceBuffer counters(4 * sizeof(unsigned long long));
    TL_CUDA_CHECK(cudaMemset(counters.get(), 0, counters.bytes()));
    std::vector<void*> args = family.kernel_args(counters.get<unsigned long long>());
    launch_pass(family, counting, pass, args, count);
    TL_CUDA_CHECK(cudaDeviceSynchronize());
    unsigned long long host[4] = {};
    TL_CUDA_CHECK(cudaMemcpy(host, counters.get(), sizeof host, cudaMemcpyDeviceToHost));
    return AccessCounts{double(host[0]), double(host[1]), double(host[2]), double(host[3])};
}

// What the job's counting builds access: its kernel's, or all its passes' added up (the engine
// sends all or none of them); nothing where it sent none.
std::optional<AccessCounts> GpuRunner::count_job(Family& family, const worker::MeasureJob& job) {
    std::vector<Loaded> counting;
    if (job.passes.empty()) {
        if (!job.counting) return std::nullopt;
        counting.push_back(load(family, *job.counting, job.launch));
    } else {
        if (!job.passes.front().counting) return std::nullopt;
        for (const worker::JobPass& pass : job.passes) {
            if (!pass.counting) throw StageError("run", "a pass of the job has no counting build");
            counting.push_back(load(family, *pass.counting, pass.launch, pass.repeat));
        }
    }
    AccessCounts sum;
    const size_t count = launch_count(counting);
    for (size_t pass = 0; pass < counting.size(); ++pass) {
        const AccessCounts c = count_accesses(family, counting, pass, count);
        sum.global_loads += c.global_loads, sum.global_stores += c.global_stores;
        sum.shared_loads += c.shared_loads, sum.shared_stores += c.shared_stores;
    }
    return sum;
}

// PC samples of launches of a fresh load of the kernel (pc_sampling.h says why fresh).
StallSamples GpuRunner::sample_stalls(Family& family, const worker::MeasureJob& job, std::vector<void*>& args,
                                      double launch_ms) {
    if (!sampling_) sampling_ = std::make_unique<PcSamplingSession>();
    const unsigned dyn_smem = job.launch.dynamic_smem;
    std::unique_ptr<LoadedLibrary> fresh;   // loaded at the first round, kept until the samples are read
    std::optional<Loaded> sampled;
    const auto sampled_launches = [&](int n, const StallSamplingPlan& plan) {
        if (!fresh) {
            fresh = std::make_unique<LoadedLibrary>(job.kernel->cubin.data(), job.kernel->lowered_name.c_str());
            family.on_library_loaded(fresh->library());
            if (dyn_smem > 0)
                TL_CUDA_CHECK(cudaFuncSetAttribute(fresh->entry(), cudaFuncAttributeMaxDynamicSharedMemorySize, int(dyn_smem)));
            carveout_probe(fresh->entry());
            sampled = Loaded{fresh->entry(), resident_grid(fresh->entry(), job.launch), to_dim3(job.launch.block), dyn_smem, 1,
                             std::make_shared<const std::vector<EncodedTensorMap>>(encode_tensor_maps(job.launch.tensor_maps, args)),
                             job.launch.cluster};
        }
        // Back to back, as the launches are timed; to compare with ncu, which profiles each launch
        // alone, the plan's diagnostics may wait for each and leave the GPU idle after it.
        for (int i = 0; i < n; ++i) {
            sampled->launch(args);
            if (plan.apart) TL_CUDA_CHECK(cudaDeviceSynchronize());
            if (plan.gap_ms > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(plan.gap_ms));
        }
        TL_CUDA_CHECK(cudaDeviceSynchronize());
    };
    // The instructions' text: nvdisasm runs beside the sampled launches and the counter pass,
    // read at the end of the run (add_sass_text).
    sass_.start(job.kernel->cubin, job.kernel->lowered_name);
    // Sampling stays enabled for the next sampled run; a counter pass disables it (read_counters).
    return sampling_->collect(*job.kernel, launch_ms, sampled_launches);
}

// The hardware counters of `launch`, replayed once per pass the metrics need. Before each pass's
// launch L2 is emptied, as ncu's cache control does by default (flush and invalidate), so DRAM
// bytes are those of a cold launch: a read of a buffer twice its size writes every dirty line
// back, then discarding that buffer's lines leaves L2 with nothing valid. For the DRAM and L1
// counts this happens after the profiler's start (L2Emptying), which leaves dirty lines of its
// own: a read-only kernel's DRAM writes are then 0.01-0.3 MB, not the 1.4-3.2 MB of those lines
// it pushed out (H100, 2026-12-06; ncu counts 1.2-2.6 MB of its own there, docs/benchmarks.md).
// For L2's counts and the ratios it happens before the start, as in ncu.
HardwareCounters GpuRunner::read_counters(const std::function<void()>& launch, int kernels, int own) {
    if (!hardware_) hardware_ = std::make_unique<HardwareCounterSession>();
    // The range profiler cannot start while sampling is enabled (CUPTI_ERROR_INVALID_PARAMETER
    // from cuptiProfilerGetCounterAvailability, H200, 2026-11-29) — enabled by this run or by any
    // sampled run before it. The next sampled run enables it anew (89-134 ms there, 64 MB buffer).
    if (sampling_) sampling_->release();
    // (Measured on an H100, 2026-11-23: a memset instead of the read leaves dirty lines and
    // inflates DRAM writes up to 18× against ncu; the read matches DRAM reads within 0.4 %.)
    // Diagnostics: TILELAB_HW_FLUSH=read keeps the read alone (no discard), =before empties L2
    // before the profiler's start for every metric, =inpass after it for every metric.
    const bool discard = !env_equals("TILELAB_HW_FLUSH", "read");
    // TILELAB_HW_EMPTY_CARVEOUT=P: the emptying's kernels prefer P % of the SM's unified memory as
    // shared. A probe of whether the configuration they leave the SM in gives the counted launch
    // more L1 hits than ncu's (register_2d 369³): it does not (12.8-14.7 % under at 0, 100 and
    // unset); emptying before the profiler's start does (0.5-1.7 %; H100, 2026-12-07, docs/benchmarks.md).
    if (const char* p = std::getenv("TILELAB_HW_EMPTY_CARVEOUT"); p && *p) support_kernels().prefer_carveout(std::atoi(p));
    L2Emptying empty;
    empty.place = env_equals("TILELAB_HW_FLUSH", "before")   ? L2Emptying::Place::kAllBefore
                  : env_equals("TILELAB_HW_FLUSH", "inpass") ? L2Emptying::Place::kAllInPass
                                                             : L2Emptying::Place::kSplit;
    empty.run = [&] {
        const L2Flusher& f = flusher();
        (void)support_kernels().compare(f.data(), f.data(), f.bytes() / sizeof(float), 0.0);
        const bool discarded = discard && support_kernels().discard_l2(f.data(), f.bytes());
        TL_CUDA_CHECK(cudaDeviceSynchronize());
        return discarded ? 2 : 1;   // the compare's kernel, the discard's
    };
    return hardware_->collect(empty, launch, kernels, own);
}

// 4. PC samples of launches of their own (never the timed ones), before the counter pass, which
// disables sampling again (read_counters). 5. The hardware counters of the kernel just timed.
// Neither fails the run: a failure is its status and sentence. A CUDA error that loses the context
// (note_error) skips what is left; the reply then says context_lost, the worker starts afresh and
// the engine asks for that stage no more this session (host/optional_stages.h).
void GpuRunner::profile_stages(Family& family, const worker::MeasureJob& job, std::vector<void*>& args,
                               const std::function<void()>& launch, int launches, const RunOptions& opt, Measurement& r,
                               std::chrono::steady_clock::time_point& lap) {
    // Runs `body` as stage `name`; an exception becomes `fail`'s sentence (a CUDA error noted
    // first: it may have lost the context). TILELAB_SIMULATE_LOST_CONTEXT_IN=name throws a sticky one.
    const auto attempt = [&](const char* name, auto&& body, auto&& fail) {
        try {
            if (env_equals("TILELAB_SIMULATE_LOST_CONTEXT_IN", name))
                throw CudaError("simulated (TILELAB_SIMULATE_LOST_CONTEXT_IN)", cudaErrorLaunchFailure);
            body();
        } catch (const std::exception& e) {
            const auto* cuda = dynamic_cast<const CudaError*>(&e);
            fail(cuda && note_error(cuda->code()) ? say("the GPU's context was lost: {}", "GPU 上下文丢失：{}", e.what())
                                                  : std::string(e.what()));
        }
    };
    const auto failed = [](auto& out, const char* status, std::string reason) {   // StallSamples, HardwareCounters
        out = {};
        out.status = status;
        out.reason = std::move(reason);
    };
    if (opt.stall_samples) {
        attempt("stalls", [&] { r.stalls = sample_stalls(family, job, args, r.timing.median_ms); },
                [&](const std::string& why) { failed(r.stalls, stall_status::error, stall_reason(stall_status::error, why)); });
        r.stages.stalls_ms = lap_ms(lap);
    }
    if (opt.hardware_counters && !context_lost_) {
        attempt("counters", [&] { r.hardware = read_counters(launch, launches, own_launch(job)); },
                [&](const std::string& why) { failed(r.hardware, hardware_status::error, hardware_reason(hardware_status::error, why)); });
        r.stages.hardware_ms = lap_ms(lap);
    }
    if (opt.stall_samples && !context_lost_) {
        add_sass_text(r.stalls, job);
        r.stages.stalls_ms += lap_ms(lap);
    }
}

// The sampled instructions' text, where the toolkit's disassembler is at hand (offsets alone
// otherwise; TILELAB_PCSAMP_TRACE=1 says why and how long the wait for it was).
void GpuRunner::add_sass_text(StallSamples& s, const worker::MeasureJob& job) {
    if (s.pcs.empty()) return;
    const auto from = std::chrono::steady_clock::now();
    std::string why;
    const auto& sass = sass_.of(job.kernel->cubin, job.kernel->lowered_name, why);
    for (StallPc& pc : s.pcs)
        if (const auto it = sass.find(pc.offset); it != sass.end()) pc.sass = it->second;
    if (std::getenv("TILELAB_PCSAMP_TRACE"))
        std::fprintf(stderr, "pcsamp-trace: SASS text waited %.1f ms%s%s\n",
                     ms_since(from),
                     why.empty() ? "" : ": ", why.c_str());
}

Measurement GpuRunner::measure(const worker::MeasureJob& job, const RunOptions& opt, const CancelFlag* cancel) {
    std::string stage = "run";
    Measurement r;
    r.ok = true;
    StageTimes& times = r.stages;
    auto lap = std::chrono::steady_clock::now();
    try {
        if (context_lost_) throw StageError("run", "the CUDA context was lost to an earlier fault");
        const Problem& problem = job.problem;
        Family& family = family_for(job.family, job.precision, job.options, problem, opt.seed);
        if (std::getenv("TILELAB_SETUP_TRACE")) std::fprintf(stderr, "setup-trace: family %.1f ms\n", ms_since(lap));
        if (opt.flush_l2) flusher();

        // The cache starts over between runs only, never under a run's loaded kernels (each pass
        // and its counting build).
        if (libraries_.size() + 2 * (job.passes.size() + 1) > kMaxLoadedLibraries) libraries_.clear();
        // The kernels of one launch: the job's kernel, or all its passes in order.
        std::vector<Loaded> kernels;
        if (job.passes.empty()) kernels.push_back(load(family, *job.kernel, job.launch));
        for (const worker::JobPass& pass : job.passes) kernels.push_back(load(family, *pass.kernel, pass.launch, pass.repeat));
        if (job.passes.empty() && kernels[0].grid.x != job.launch.grid[0]) r.launched_blocks = kernels[0].grid.x;

        std::vector<void*> args = family.kernel_args(nullptr);
        const size_t launches = launch_count(kernels);
        auto launch = [&] {
            for (size_t pass = 0; pass < kernels.size(); ++pass) launch_pass(family, kernels, pass, args, launches);
        };

        times.setup_ms = lap_ms(lap);

        // 1. One launch on a poisoned output, then validate: an unchecked result is never timed.
        stage = "launch";
        family.poison_output(nullptr);
        auto first = std::chrono::steady_clock::now();
        launch();
        stage = "run";
        TL_CUDA_CHECK(cudaDeviceSynchronize());
        const double first_ms = lap_ms(first);
        stage = "validate";
        r.validation = family.validate();
        times.validate_ms = lap_ms(lap);
        if (!r.validation.passed)
            throw StageError("validate", say("Output differs from the {} reference: max error {:.3g} ({:.3g} relative to max(1, |expected|), tolerance {:.3g}); first: {}",
                                             "输出与 {} 参考结果不同：最大误差 {:.3g}（相对 max(1, |应为值|) 为 {:.3g}，容差 {:.3g}）；第一个：{}",
                                             r.validation.reference, r.validation.max_abs_error,
                                             r.validation.max_rel_error, r.validation.tolerance,
                                             r.validation.message));

        // 2. Time it.
        stage = "run";
        const LaunchCounts counts = timed_launches(opt, first_ms);
        TimingPlan plan{counts.warmup, counts.repetitions, opt.flush_l2 ? &flusher() : nullptr, cancel};
        if (!time_launches(launch, plan, r.timing)) throw StageError("run", "cancelled");
        times.timing_ms = lap_ms(lap);

        // 3. Count what the kernel really accesses: the same instance built with TILELAB_COUNT=1.
        // (The engine compiled it before sending the job; no counting build means no counting.)
        r.counted = count_job(family, job);
        times.count_ms = lap_ms(lap);
        // Each pass of several alone, in a full run: where the launch's time goes.
        if (kernels.size() > 1 && !opt.quick) r.pass_ms = time_each(family, kernels, args, plan);

        // 4–5. Where its warps wait and the hardware counters (profile_stages): never a failure of
        // the run. Where one lost the context, nothing more runs on the GPU: the run keeps what it has.
        profile_stages(family, job, args, launch, int(launches), opt, r, lap);
        if (context_lost_) return r;

        // 6. The reference at the same size ("% of cuBLAS"), timed the same way, once per problem.
        // A quick run takes it only where it is known: timing it (tens of ms for attention's unfused
        // path) is left to the full run that follows, so that a drag redraws at once.
        if (opt.time_reference) {
            const std::string key = fmt::format("{}|{}|{}|{}|{}", job.family, job.precision.describe(),
                                                format_options(job.options), format_problem(problem), opt.flush_l2);
            auto it = reference_ms_.find(key);
            if (it == reference_ms_.end() && !opt.quick) {
                ScopedReferencePlan scoped(plan);
                std::string name;
                const double ms = family.reference_ms(name);
                it = reference_ms_.emplace(key, std::make_pair(name, ms)).first;
            }
            if (it != reference_ms_.end()) r.reference_name = it->second.first, r.reference_ms = it->second.second;
            times.reference_ms = lap_ms(lap);
        }
    } catch (const StageError& e) {
        r.ok = false;
        r.stage = e.stage;
        r.error = e.what();
    } catch (const CudaError& e) {
        r.ok = false;
        r.stage = stage;
        r.error = e.what();
        note_error(e.code());
    } catch (const std::exception& e) {
        r.ok = false;
        r.stage = stage;
        r.error = e.what();
    }
    return r;
}

}  // namespace tilelab
