// The counter pass (hardware_counters.h): CUPTI's range profiler with a kernel-level (auto) range
// and user replay, one range for one launch; libcupti opened with dlopen.
#include "gpu_worker/hardware_counters.h"
#include <algorithm>
#include <string_view>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nvtx3/nvToolsExt.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "device/cuda_check.h"
#include "gpu_worker/cupti_library.h"
#include "tilelab/util.h"

namespace tilelab {
namespace {

// More passes than this means something is wrong (the metrics here need a handful).
constexpr int kMaxPasses = 64;
// Room for the kernels of an L2 emptying in the pass (L2Emptying::Place).
constexpr size_t kEmptyingRanges = 8;

// Every CUPTI entry point used, looked up with dlsym; the headers give only the types.
#define TL_CUPTI_FUNCTIONS(X)                                                                             \
    X(cuptiGetResultString) X(cuptiProfilerInitialize) X(cuptiProfilerDeInitialize)                        \
    X(cuptiDeviceGetChipName) X(cuptiProfilerGetCounterAvailability) X(cuptiProfilerDeviceSupported)       \
    X(cuptiProfilerHostInitialize) X(cuptiProfilerHostDeinitialize) X(cuptiProfilerHostConfigAddMetrics)   \
    X(cuptiProfilerHostGetConfigImageSize) X(cuptiProfilerHostGetConfigImage)                              \
    X(cuptiProfilerHostGetNumOfPasses) X(cuptiProfilerHostEvaluateToGpuValues) X(cuptiRangeProfilerEnable) \
    X(cuptiRangeProfilerDisable) X(cuptiRangeProfilerGetCounterDataSize)                                   \
    X(cuptiRangeProfilerCounterDataImageInitialize) X(cuptiRangeProfilerSetConfig)                         \
    X(cuptiRangeProfilerStart) X(cuptiRangeProfilerStop) X(cuptiRangeProfilerDecodeData)                   \
    X(cuptiRangeProfilerGetCounterDataInfo) X(cuptiRangeProfilerPushRange) X(cuptiRangeProfilerPopRange)

struct Cupti {
#define TL_CUPTI_POINTER(name) decltype(&::name) name = nullptr;
    TL_CUPTI_FUNCTIONS(TL_CUPTI_POINTER)
#undef TL_CUPTI_POINTER
};

// A CUPTI call that failed: the code decides the status, the text goes into the reason.
struct CuptiFailure {
    int code;
    std::string detail;
};

// The kernel launch of a pass, inside the NVTX range "tilelab-hardware-pass" (NVTX calls do
// nothing unless a tool such as ncu is attached), so that ncu can pick out exactly this launch.
void launch_in_pass_range(const std::function<void()>& launch) {
    nvtxRangePushA("tilelab-hardware-pass");
    struct Pop {
        ~Pop() { nvtxRangePop(); }
    } pop;
    launch();
}

// Params structs start with structSize; everything else starts zeroed.
template <class T>
T params(size_t struct_size) {
    T p{};
    p.structSize = struct_size;
    return p;
}

}  // namespace

std::string hardware_status_for_cupti(int code) {
    namespace hs = hardware_status;
    switch (code) {
        case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES: return hs::insufficient_privileges;
        case CUPTI_ERROR_HARDWARE_BUSY:
        case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED: return hs::profiler_busy;
        case CUPTI_ERROR_NOT_SUPPORTED: case CUPTI_ERROR_NOT_COMPATIBLE: case CUPTI_ERROR_INVALID_DEVICE:
        case CUPTI_ERROR_INVALID_CHIP_NAME: case CUPTI_ERROR_INVALID_METRIC_NAME:
        case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED: case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
        case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED: case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
        case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED: case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED: return hs::unsupported;
        default: return hs::error;
    }
}

// Metrics collected together: one host object, one configuration, its passes. The counts
// (".sum") but L2's are one group, L2 emptied in its passes; the ratios per active cycle (achieved
// occupancy, tensor pipe busy), the active cycles themselves and L2's counts another, L2 emptied
// before them (L2Emptying), collected in a pass of their own (one pass on GH100).
// Beside the counts, CUPTI may schedule a ratio's numerator and its active cycles in different
// passes, and for a grid of fewer blocks than SMs, whose active cycles vary from launch to
// launch, the pass read achieved occupancy above the theoretical: 46.8-48.4% against 45.3% (ncu:
// 45.29%) for a register-tiled stencil of 110 blocks (H200, 2026-12-04).
struct MetricGroup {
    CUpti_Profiler_Host_Object* host = nullptr;
    std::vector<const char*> names;
    std::vector<uint8_t> config;
    size_t scheduled_passes = 0;
    bool empty_in_pass = false;   // L2 emptied after the profiler's start (L2Emptying::Place)
};

struct HardwareCounterSession::State {
    Cupti api;
    bool initialized = false;
    std::string sticky_status, sticky_reason;   // a setup that cannot profile: not retried
    CUcontext context = nullptr;
    std::string chip_name;
    std::vector<uint8_t> availability;
    std::vector<const char*> names;          // every metric, over the groups
    std::vector<std::string> chosen_names;   // TILELAB_HW_METRICS's, which `names` points into
    std::vector<MetricGroup> groups;
    int simulated_error = 0;
    const bool trace = std::getenv("TILELAB_HW_TRACE") != nullptr;   // where the pass's time goes, on stderr
    // A diagnostic (issue 33, a run of many launches): TILELAB_HW_RANGE=user profiles a launch of
    // several kernels as one user range around them all instead of a range per kernel.
    const bool user_range = env_equals("TILELAB_HW_RANGE", "user");

    void check(CUptiResult r, const char* call) {
        if (simulated_error != 0) r = CUptiResult(simulated_error);
        if (r == CUPTI_SUCCESS) return;
        const char* text = nullptr;
        if (!api.cuptiGetResultString || api.cuptiGetResultString(r, &text) != CUPTI_SUCCESS) text = nullptr;
        throw CuptiFailure{int(r), fmt::format("{}: {}", call, text ? text : fmt::format("CUPTI error {}", int(r)))};
    }

    // Loads libcupti, finds the chip and schedules the metrics: once per worker and device.
    void initialize() {
#define TL_CUPTI_SLOT(name) {#name, &api.name},
        if (const std::string why = bind_cupti({TL_CUPTI_FUNCTIONS(TL_CUPTI_SLOT)}); !why.empty())
            throw CuptiFailure{CUPTI_ERROR_NOT_SUPPORTED, why};
#undef TL_CUPTI_SLOT
        auto init = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
        check(api.cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");

        int device = 0;
        TL_CUDA_CHECK(cudaGetDevice(&device));
        context = current_cuda_context();
        if (!context) throw CuptiFailure{CUPTI_ERROR_INVALID_CONTEXT, "no current CUDA context"};

        auto supported = params<CUpti_Profiler_DeviceSupported_Params>(CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
        supported.cuDevice = device;
        supported.api = CUPTI_PROFILER_RANGE_PROFILING;
        check(api.cuptiProfilerDeviceSupported(&supported), "cuptiProfilerDeviceSupported");
        if (supported.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
            const auto why = [&](CUpti_Profiler_Support_Level level, const char* what) {
                return level == CUPTI_PROFILER_CONFIGURATION_SUPPORTED ? std::string() : std::string(what);
            };
            std::string what = why(supported.architecture, "architecture") + why(supported.sli, " SLI") +
                               why(supported.vGpu, " vGPU") + why(supported.confidentialCompute, " confidential computing") +
                               why(supported.cmp, " CMP") + why(supported.wsl, " WSL");
            throw CuptiFailure{CUPTI_ERROR_NOT_SUPPORTED, "cuptiProfilerDeviceSupported: not supported:" + what};
        }

        auto chip = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
        chip.deviceIndex = size_t(device);
        check(api.cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");

        chip_name = chip.pChipName;
        auto avail = params<CUpti_Profiler_GetCounterAvailability_Params>(CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
        avail.ctx = context;
        check(api.cuptiProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability");
        availability.resize(avail.counterAvailabilityImageSize);
        avail.pCounterAvailabilityImage = availability.data();
        check(api.cuptiProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability");

        // TILELAB_HW_METRICS=a,b,... collects those metrics instead of the table's (any names CUPTI
        // knows; the run's JSON shows the table's among them, TILELAB_HW_TRACE=1 prints every value):
        // for questions the table does not answer, such as where extra DRAM reads come from.
        release_groups();   // a set-up that failed half way is tried again from the start
        names.clear();
        chosen_names.clear();
        if (const char* only = std::getenv("TILELAB_HW_METRICS")) {
            for (std::string& n : split(only, ','))
                if (!n.empty()) chosen_names.push_back(std::move(n));
            for (const std::string& n : chosen_names) names.push_back(n.c_str());
        } else {
            for (const HardwareMetric& m : hardware_metrics()) names.push_back(m.name);
        }
        if (names.empty()) throw CuptiFailure{CUPTI_ERROR_INVALID_METRIC_NAME, "TILELAB_HW_METRICS names no metric"};
        std::vector<const char*> in_pass, l2, ratios;
        for (const char* n : names) {
            const std::string_view v(n);
            (!v.ends_with(".sum") ? ratios : v.starts_with("lts__") ? l2 : in_pass).push_back(n);
        }
        if (!in_pass.empty()) add_group(std::move(in_pass)).empty_in_pass = true;
        add_emptied_before(std::move(ratios), std::move(l2));
        initialized = true;
    }

    // The groups whose passes have L2 emptied before the profiler's start: the ratios and L2's
    // own counts, together while that stays one pass (each profiler enable costs a first start of
    // 149-194 ms, H200, 2026-12-04); apart if CUPTI would schedule them over several passes,
    // where a ratio's numerator and its active cycles could come from different launches.
    void add_emptied_before(std::vector<const char*> ratios, std::vector<const char*> l2) {
        if (!ratios.empty() && !l2.empty()) {
            std::vector<const char*> both = ratios;
            both.insert(both.end(), l2.begin(), l2.end());
            if (add_group(std::move(both)).scheduled_passes <= 1) return;
            release_group(groups.back());
            groups.pop_back();
        }
        if (!ratios.empty()) add_group(std::move(ratios));
        if (!l2.empty()) add_group(std::move(l2));
    }

    // A host object configured for `group_names`, and the passes it needs.
    MetricGroup& add_group(std::vector<const char*> group_names) {
        MetricGroup& g = groups.emplace_back();
        g.names = std::move(group_names);
        auto host_init = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
        host_init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        host_init.pChipName = chip_name.c_str();
        host_init.pCounterAvailabilityImage = availability.data();
        check(api.cuptiProfilerHostInitialize(&host_init), "cuptiProfilerHostInitialize");
        g.host = host_init.pHostObject;
        auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
        add.pHostObject = g.host;
        add.ppMetricNames = g.names.data();
        add.numMetrics = g.names.size();
        check(api.cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics");
        auto size = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
        size.pHostObject = g.host;
        check(api.cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize");
        g.config.resize(size.configImageSize);
        auto image = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
        image.pHostObject = g.host;
        image.configImageSize = g.config.size();
        image.pConfigImage = g.config.data();
        check(api.cuptiProfilerHostGetConfigImage(&image), "cuptiProfilerHostGetConfigImage");
        auto passes = params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
        passes.configImageSize = g.config.size();
        passes.pConfigImage = g.config.data();
        check(api.cuptiProfilerHostGetNumOfPasses(&passes), "cuptiProfilerHostGetNumOfPasses");
        g.scheduled_passes = passes.numOfPasses;
        return g;
    }

    // The range profiler on the context found at set-up; disabled by the Profiling object's end.
    struct Profiling {
        State* s;
        CUpti_RangeProfiler_Object* profiler = nullptr;
        explicit Profiling(State* state) : s(state) {
            auto enable = params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
            enable.ctx = s->context;
            const auto t = std::chrono::steady_clock::now();
            s->check(s->api.cuptiRangeProfilerEnable(&enable), "cuptiRangeProfilerEnable");
            profiler = enable.pRangeProfilerObject;
            if (s->trace) std::fprintf(stderr, "hw-trace: enable %.1f ms\n", ms_since(t));
        }
        ~Profiling() {
            auto d = params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
            d.pRangeProfilerObject = profiler;
            const auto t = std::chrono::steady_clock::now();
            (void)s->api.cuptiRangeProfilerDisable(&d);
            if (s->trace) std::fprintf(stderr, "hw-trace: disable %.1f ms\n", ms_since(t));
        }
        Profiling(const Profiling&) = delete;
        Profiling& operator=(const Profiling&) = delete;
    };

    void launch_in_user_range(CUpti_RangeProfiler_Object* profiler, const std::function<void()>& launch) {
        auto push = params<CUpti_RangeProfiler_PushRange_Params>(CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE);
        push.pRangeProfilerObject = profiler;
        push.pRangeName = "launch";
        check(api.cuptiRangeProfilerPushRange(&push), "cuptiRangeProfilerPushRange");
        launch_in_pass_range(launch);
        auto pop = params<CUpti_RangeProfiler_PopRange_Params>(CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE);
        pop.pRangeProfilerObject = profiler;
        check(api.cuptiRangeProfilerPopRange(&pop), "cuptiRangeProfilerPopRange");
    }

    // One configuration's passes .. decode .. evaluate, on an enabled profiler.
    void run_passes(CUpti_RangeProfiler_Object* profiler, MetricGroup& g, HardwareCounters& out, const L2Emptying& empty,
                    const std::function<void()>& launch, int kernels, int own) {
        std::vector<const char*>& names = g.names;
        auto t = std::chrono::steady_clock::now();
        const auto lap = [&](const char* what) {
            if (trace) std::fprintf(stderr, "hw-trace:   %s %.1f ms\n", what, ms_since(t));
            t = std::chrono::steady_clock::now();
        };
        auto data_size = params<CUpti_RangeProfiler_GetCounterDataSize_Params>(CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
        data_size.pRangeProfilerObject = profiler;
        data_size.pMetricNames = names.data();
        data_size.numMetrics = names.size();
        const bool in_pass = empty.in_pass_for(g.empty_in_pass);
        // The ranges read back: a range per kernel, or one user range (own: its range 0).
        const bool one_range = user_range && kernels > 1;
        const int evaluated = one_range ? 1 : kernels;
        if (one_range) own = 0;
        const size_t ranges = size_t(evaluated) + (in_pass && !one_range ? kEmptyingRanges : 0);
        data_size.maxNumOfRanges = ranges;
        data_size.maxNumRangeTreeNodes = ranges;
        check(api.cuptiRangeProfilerGetCounterDataSize(&data_size), "cuptiRangeProfilerGetCounterDataSize");
        std::vector<uint8_t> data(data_size.counterDataSize);
        auto data_init = params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
            CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
        data_init.pRangeProfilerObject = profiler;
        data_init.counterDataSize = data.size();
        data_init.pCounterData = data.data();
        check(api.cuptiRangeProfilerCounterDataImageInitialize(&data_init), "cuptiRangeProfilerCounterDataImageInitialize");

        auto set = params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
        set.pRangeProfilerObject = profiler;
        set.configSize = g.config.size();
        set.pConfig = g.config.data();
        set.counterDataImageSize = data.size();
        set.pCounterDataImage = data.data();
        // A kernel-level range (auto range: the counters run exactly while the one kernel between
        // start and stop runs), as ncu's. A user range around the launch also counted what the
        // stream does between the push and the kernel: on an H100, 1.2-1.5 MB more L2 traffic,
        // 20-26 % of a small stencil's (docs/benchmarks.md, 2026-11-23).
        set.range = one_range ? CUPTI_UserRange : CUPTI_AutoRange;
        set.replayMode = CUPTI_UserReplay;
        set.maxRangesPerPass = ranges;   // a range per kernel of the emptying and the launch
        set.numNestingLevels = 1;
        set.minNestingLevel = 1;
        set.passIndex = 0;
        set.targetNestingLevel = 1;
        check(api.cuptiRangeProfilerSetConfig(&set), "cuptiRangeProfilerSetConfig");
        lap("configure");

        size_t emptying = 0;   // the ranges of the emptying's kernels, first in each pass
        for (bool all_submitted = false; !all_submitted;) {
            if (out.passes >= kMaxPasses)
                throw CuptiFailure{CUPTI_ERROR_UNKNOWN, fmt::format("still not done after {} passes", kMaxPasses)};
            if (!in_pass) empty.run();
            lap("before pass");
            auto start = params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
            start.pRangeProfilerObject = profiler;
            check(api.cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart");
            lap("start");
            if (in_pass) {
                const size_t n = size_t(empty.run());
                if (!one_range) emptying = n;   // a user range holds only what is pushed
                lap("L2 emptied");
            }
            if (one_range) launch_in_user_range(profiler, launch);
            else launch_in_pass_range(launch);
            lap("launch");
            auto stop = params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
            stop.pRangeProfilerObject = profiler;
            check(api.cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop");
            all_submitted = stop.isAllPassSubmitted != 0;
            ++out.passes;
            lap("stop");
        }
        TL_CUDA_CHECK(cudaDeviceSynchronize());
        lap("synchronize");

        auto decode = params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
        decode.pRangeProfilerObject = profiler;
        check(api.cuptiRangeProfilerDecodeData(&decode), "cuptiRangeProfilerDecodeData");
        lap("decode");
        auto info = params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
        info.pCounterDataImage = data.data();
        info.counterDataImageSize = data.size();
        check(api.cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");
        if (info.numTotalRanges != emptying + size_t(evaluated) || decode.numOfRangeDropped != 0)
            throw CuptiFailure{CUPTI_ERROR_UNKNOWN, fmt::format("expected {} profiled range(s), got {} ({} dropped)",
                                                                emptying + size_t(evaluated), info.numTotalRanges,
                                                                decode.numOfRangeDropped)};

        // A launch of several kernels: counts and bytes (".sum") add up over their ranges; the
        // averages and percentages (occupancy, tensor pipe) are those of the lesson's own kernel.
        for (int range = 0; range < evaluated; ++range) {
            std::vector<double> values(names.size());
            auto eval = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
            eval.pHostObject = g.host;
            eval.pCounterDataImage = data.data();
            eval.counterDataImageSize = data.size();
            eval.rangeIndex = emptying + size_t(range);
            eval.ppMetricNames = names.data();
            eval.numMetrics = names.size();
            eval.pMetricValues = values.data();
            check(api.cuptiProfilerHostEvaluateToGpuValues(&eval), "cuptiProfilerHostEvaluateToGpuValues");
            for (size_t i = 0; i < names.size(); ++i) {
                const bool sum = std::string_view(names[i]).ends_with(".sum");
                if (trace) std::fprintf(stderr, "hw-value: %s %.6g\n", names[i], values[i]);
                if (sum) out.metrics[names[i]] += values[i];
                else if (range == own) out.metrics[names[i]] = values[i];
            }
        }
        lap("evaluate");
    }

    void release_group(const MetricGroup& g) {
        if (!g.host) return;
        auto d = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
        d.pHostObject = g.host;
        (void)api.cuptiProfilerHostDeinitialize(&d);
    }

    void release_groups() {
        for (const MetricGroup& g : groups) release_group(g);
        groups.clear();
    }

    ~State() {
        release_groups();
        if (initialized) {
            auto d = params<CUpti_Profiler_DeInitialize_Params>(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
            (void)api.cuptiProfilerDeInitialize(&d);
        }
        // libcupti stays loaded: it registered itself with the driver, which may call it until exit.
    }
};

HardwareCounterSession::HardwareCounterSession() : state_(std::make_unique<State>()) {
    if (const char* v = std::getenv("TILELAB_SIMULATE_CUPTI_ERROR")) state_->simulated_error = std::atoi(v);
}
HardwareCounterSession::~HardwareCounterSession() = default;

namespace {
// A set-up that cannot profile (no privileges, unsupported GPU) is remembered and not retried.
void remember_if_final(const CuptiFailure& f, std::string& sticky_status, std::string& sticky_reason) {
    const std::string status = hardware_status_for_cupti(f.code);
    if (status == hardware_status::insufficient_privileges || status == hardware_status::unsupported) {
        sticky_status = status;
        sticky_reason = hardware_reason(status, f.detail);
    }
}

}  // namespace

// Probe hooks for issue 30's spilled-register DRAM reads (scripts/probe_dram_reads.py):
// TILELAB_HW_STACK_LIMIT=BYTES sets the per-thread stack limit once, before the first pass (the
// driver sizes each thread's local memory by it), and TILELAB_HW_TRACE prints the limits that
// shape where local memory lies, at every pass: whether a launch under ncu sees other ones.
static void local_memory_probe(bool trace) {
    static bool set = false;
    if (const char* v = std::getenv("TILELAB_HW_STACK_LIMIT"); v && !set) {
        set = true;
        const cudaError_t e = cudaDeviceSetLimit(cudaLimitStackSize, size_t(std::strtoull(v, nullptr, 10)));
        if (trace) std::fprintf(stderr, "hw-limit: set stack %s: %s\n", v, cudaGetErrorString(e));
    }
    if (!trace) return;
    size_t stack = 0, heap = 0, persisting = 0;
    cudaDeviceGetLimit(&stack, cudaLimitStackSize);
    cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize);
    cudaDeviceGetLimit(&persisting, cudaLimitPersistingL2CacheSize);
    unsigned flags = 0;
    cudaGetDeviceFlags(&flags);
    std::fprintf(stderr, "hw-limit: stack %zu B, heap %zu B, persisting L2 %zu B, device flags 0x%x\n", stack, heap,
                 persisting, flags);
}

void HardwareCounterSession::prepare() {
    State& s = *state_;
    if (s.initialized || !s.sticky_status.empty()) return;
    const auto start = std::chrono::steady_clock::now();
    try {
        s.initialize();
    } catch (const CuptiFailure& f) {
        remember_if_final(f, s.sticky_status, s.sticky_reason);   // otherwise collect() tries again
    } catch (const std::exception&) {
    }
    if (s.trace)
        std::fprintf(stderr, "hw-trace: prepared at worker start in %.1f ms (%s)\n", ms_since(start),
                     s.initialized ? "ready" : s.sticky_status.empty() ? "failed, retried at the first pass" : s.sticky_status.c_str());
}

HardwareCounters HardwareCounterSession::collect(const L2Emptying& empty, const std::function<void()>& launch, int kernels,
                                                 int own) {
    State& s = *state_;
    HardwareCounters out;
    const auto start = std::chrono::steady_clock::now();
    const auto finish = [&](std::string status, std::string reason) {
        out.status = std::move(status);
        out.reason = std::move(reason);
        if (!out.ok()) out.metrics.clear();
        out.pass_ms = ms_since(start);
        return out;
    };
    local_memory_probe(s.trace);
    if (std::getenv("TILELAB_HW_NCU_LAUNCH")) {
        // The pass's launch, with the pass's L2 emptying before it, but no CUPTI: for
        // `ncu --cache-control none --nvtx --nvtx-include tilelab-hardware-pass/` to profile the
        // very launch the pass profiles, from the same cache state (scripts/check_counters.py).
        empty.run();
        launch_in_pass_range(launch);
        TL_CUDA_CHECK(cudaDeviceSynchronize());
        out.passes = 1;
        return finish(hardware_status::skipped, "");
    }
    if (!s.sticky_status.empty()) return finish(s.sticky_status, s.sticky_reason);
    try {
        if (!s.initialized) {
            try {
                s.initialize();
            } catch (const CuptiFailure& f) {
                remember_if_final(f, s.sticky_status, s.sticky_reason);
                throw;
            }
        }
        const double setup_ms = ms_since(start);
        // A profiler enabled anew for each configuration: the first start after an enable costs
        // 149-194 ms, the later ones about 2 (H200, 2026-12-04), but a second configuration set on
        // the same enabled profiler took a pass too many and evaluated to NaN.
        for (MetricGroup& g : s.groups) {
            State::Profiling on(&s);
            s.run_passes(on.profiler, g, out, empty, launch, std::max(1, kernels), own);
        }
        if (s.trace)
            std::fprintf(stderr, "hw-trace: setup %.1f ms, passes+evaluate %.1f ms, %d passes in %zu groups\n", setup_ms,
                         ms_since(start) - setup_ms, out.passes, s.groups.size());
    } catch (const CuptiFailure& f) {
        const std::string status = hardware_status_for_cupti(f.code);
        return finish(status, hardware_reason(status, f.detail));
    }
    if (out.metrics.size() != s.names.size())
        return finish(hardware_status::error, hardware_reason(hardware_status::error, "some metrics are missing"));
    return finish(hardware_status::ok, "");
}

}  // namespace tilelab
