// PC sampling in the GPU worker (pc_sampling.h).
#include "gpu_worker/pc_sampling.h"
#include <cupti_pcsampling.h>
#include <cupti_result.h>
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>
#include "device/cuda_check.h"
#include "gpu_worker/cupti_library.h"
#include "gpu_worker/line_table.h"
#include "tilelab/util.h"
#include "gpu_worker/hardware_counters.h"

namespace tilelab {
namespace {

#define TL_PCSAMP_FUNCTIONS(X)                                                                                  \
    X(cuptiGetResultString) X(cuptiPCSamplingGetNumStallReasons) X(cuptiPCSamplingGetStallReasons)             \
    X(cuptiPCSamplingSetConfigurationAttribute) X(cuptiPCSamplingEnable) X(cuptiPCSamplingDisable)             \
    X(cuptiPCSamplingStart) X(cuptiPCSamplingStop) X(cuptiPCSamplingGetData) X(cuptiGetSassToSourceCorrelation)

struct Api {
#define TL_PCSAMP_POINTER(name) decltype(&::name) name = nullptr;
    TL_PCSAMP_FUNCTIONS(TL_PCSAMP_POINTER)
#undef TL_PCSAMP_POINTER
};

struct Failure {
    int code;
    std::string detail;
};

// PC records fetched per cuptiPCSamplingGetData call (a kernel has some thousand instructions).
constexpr size_t kPcsPerFetch = 4096;
// Samples aimed at: enough for a line with 1 % of them to be within a few tenths of a point.
constexpr double kTargetSamples = 4e5;
// Periods (log2 cycles) chosen automatically: 2^9 and finer overflowed an H200's buffer.
constexpr int kMinAutoPeriod = 10, kMaxAutoPeriod = 22;

template <class T>
T params(size_t size) {
    T p{};
    p.size = size;
    return p;
}

std::string status_for(int code) {
    const std::string hs = hardware_status_for_cupti(code);
    if (hs == hardware_status::insufficient_privileges) return stall_status::insufficient_privileges;
    if (hs == hardware_status::unsupported) return stall_status::unsupported;
    return stall_status::error;
}

// The period (log2 cycles) for launches of `sampled_ms` in all on this device.
int auto_period(double sampled_ms) {
    int sms = 0, khz = 0, device = 0;
    (void)cudaGetDevice(&device);
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || sms <= 0) sms = 100;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device) != cudaSuccess || khz <= 0) khz = 1500000;
    const double cycles = sampled_ms * 1e-3 * double(khz) * 1e3 * double(sms);
    const int p = int(std::floor(std::log2(std::max(1.0, cycles / kTargetSamples))));
    return std::clamp(p, kMinAutoPeriod, kMaxAutoPeriod);
}

// TILELAB_PCSAMP_TRACE=1: where a collect's time went, on stderr.
void trace(const char* what, std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to) {
    if (std::getenv("TILELAB_PCSAMP_TRACE"))
        std::fprintf(stderr, "pcsamp-trace: %s %.1f ms\n", what, std::chrono::duration<double, std::milli>(to - from).count());
}

// The device buffer the samples are written to: CUPTI's default is 512 MB; a run aims at some
// hundred thousand samples. Every cuptiPCSamplingStart costs about 105 ms plus 0.5 ms a MB of it
// (H200, driver 580: 112 ms at 8 and 16 MB, 138 at 64, 250 at 256), and none of 494,570 samples
// was dropped at 8 MB (docs/benchmarks.md, 2026-12-05): 16 MB, a margin of two, since the period
// check became the default (each of its periods a start). TILELAB_PC_SAMPLING_BUFFER_MB=N
// overrides (to measure).
size_t hardware_buffer_bytes() {
    const char* v = std::getenv("TILELAB_PC_SAMPLING_BUFFER_MB");
    const long mb = v && *v ? std::strtol(v, nullptr, 10) : 16;
    return size_t(std::clamp(mb, 8L, 4096L)) << 20;
}

int forced_period() {
    const char* v = std::getenv("TILELAB_PC_SAMPLING_PERIOD");
    if (!v || !*v) return 0;
    const int p = std::atoi(v);
    return p >= 5 && p <= 31 ? p : 0;
}

const char* env_or_empty(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

}  // namespace

struct PcSamplingSession::State {
    Api api;
    bool enabled = false;
    std::string sticky_status, sticky_reason;   // a set-up that cannot sample: not retried
    CUcontext context = nullptr;
    std::vector<uint32_t> reasons;              // the reason indices collected
    std::map<uint32_t, StallGroup> group_of;    // by reason index
    int period = 0;                             // configured period (log2 cycles)
    // The buffer cuptiPCSamplingGetData fills, and the one given at configuration.
    std::vector<CUpti_PCSamplingPCData> records;
    std::vector<CUpti_PCSamplingStallReason> reason_slots;
    CUpti_PCSamplingData fetch{};
    std::vector<CUpti_PCSamplingPCData> config_records;
    std::vector<CUpti_PCSamplingStallReason> config_slots;
    CUpti_PCSamplingData config_buffer{};
    std::set<char*> names;                      // function names CUPTI handed over

    void check(CUptiResult r, const char* call) {
        if (r == CUPTI_SUCCESS) return;
        const char* text = nullptr;
        if (!api.cuptiGetResultString || api.cuptiGetResultString(r, &text) != CUPTI_SUCCESS) text = nullptr;
        throw Failure{int(r), fmt::format("{}: {}", call, text ? text : fmt::format("CUPTI error {}", int(r)))};
    }

    static void size_buffer(CUpti_PCSamplingData& d, std::vector<CUpti_PCSamplingPCData>& recs,
                            std::vector<CUpti_PCSamplingStallReason>& slots, size_t n_reasons) {
        recs.assign(kPcsPerFetch, CUpti_PCSamplingPCData{});
        slots.assign(kPcsPerFetch * n_reasons, CUpti_PCSamplingStallReason{});
        for (size_t i = 0; i < recs.size(); ++i) {
            recs[i].size = sizeof(CUpti_PCSamplingPCData);
            recs[i].stallReasonCount = n_reasons;
            recs[i].stallReason = slots.data() + i * n_reasons;
        }
        d = CUpti_PCSamplingData{};
        d.size = sizeof(CUpti_PCSamplingData);
        d.collectNumPcs = kPcsPerFetch;
        d.pPcData = recs.data();
    }

    CUptiResult stop() {
        auto off = params<CUpti_PCSamplingStopParams>(CUpti_PCSamplingStopParamsSize);
        off.ctx = context;
        return api.cuptiPCSamplingStop(&off);
    }

    void set_attributes(std::vector<CUpti_PCSamplingConfigurationInfo>& infos) {
        auto p = params<CUpti_PCSamplingConfigurationInfoParams>(CUpti_PCSamplingConfigurationInfoParamsSize);
        p.ctx = context;
        p.numAttributes = infos.size();
        p.pPCSamplingConfigurationInfo = infos.data();
        check(api.cuptiPCSamplingSetConfigurationAttribute(&p), "cuptiPCSamplingSetConfigurationAttribute");
    }

    void set_period(int p) {
        CUpti_PCSamplingConfigurationInfo info{};
        info.attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
        info.attributeData.samplingPeriodData.samplingPeriod = uint32_t(p);
        std::vector<CUpti_PCSamplingConfigurationInfo> infos{info};
        set_attributes(infos);
        period = p;
    }

    void read_reasons() {
        size_t n = 0;
        auto num = params<CUpti_PCSamplingGetNumStallReasonsParams>(CUpti_PCSamplingGetNumStallReasonsParamsSize);
        num.ctx = context;
        num.numStallReasons = &n;
        check(api.cuptiPCSamplingGetNumStallReasons(&num), "cuptiPCSamplingGetNumStallReasons");
        std::vector<uint32_t> index(n);
        std::vector<std::vector<char>> text(n, std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE));
        std::vector<char*> names(n);
        for (size_t i = 0; i < n; ++i) names[i] = text[i].data();
        auto get = params<CUpti_PCSamplingGetStallReasonsParams>(CUpti_PCSamplingGetStallReasonsParamsSize);
        get.ctx = context;
        get.numStallReasons = n;
        get.stallReasonIndex = index.data();
        get.stallReasons = names.data();
        check(api.cuptiPCSamplingGetStallReasons(&get), "cuptiPCSamplingGetStallReasons");
        for (size_t i = 0; i < n; ++i) {
            const std::string name(names[i], strnlen(names[i], CUPTI_STALL_REASON_STRING_SIZE));
            if (is_not_issued_duplicate(name)) continue;
            reasons.push_back(index[i]);
            group_of[index[i]] = stall_group_of(name);
        }
        if (reasons.empty()) throw Failure{CUPTI_ERROR_NOT_SUPPORTED, "the device names no stall reasons"};
    }

    void enable() {
#define TL_PCSAMP_SLOT(name) {#name, &api.name},
        if (const std::string why = bind_cupti({TL_PCSAMP_FUNCTIONS(TL_PCSAMP_SLOT)}); !why.empty())
            throw Failure{CUPTI_ERROR_NOT_SUPPORTED, why};
#undef TL_PCSAMP_SLOT
        context = current_cuda_context();
        if (!context) throw Failure{CUPTI_ERROR_INVALID_CONTEXT, "no current CUDA context"};
        auto on = params<CUpti_PCSamplingEnableParams>(CUpti_PCSamplingEnableParamsSize);
        on.ctx = context;
        check(api.cuptiPCSamplingEnable(&on), "cuptiPCSamplingEnable");
        enabled = true;
        read_reasons();
        size_buffer(fetch, records, reason_slots, reasons.size());
        size_buffer(config_buffer, config_records, config_slots, reasons.size());

        std::vector<CUpti_PCSamplingConfigurationInfo> infos(6);
        infos[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
        infos[0].attributeData.stallReasonData.stallReasonCount = reasons.size();
        infos[0].attributeData.stallReasonData.pStallReasonIndex = reasons.data();
        infos[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
        infos[1].attributeData.collectionModeData.collectionMode = CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
        infos[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL;
        infos[2].attributeData.enableStartStopControlData.enableStartStopControl = 1;
        infos[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT;
        infos[3].attributeData.outputDataFormatData.outputDataFormat = CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
        infos[4].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
        infos[4].attributeData.samplingDataBufferData.samplingDataBuffer = &config_buffer;
        infos[5].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE;
        infos[5].attributeData.hardwareBufferSizeData.hardwareBufferSize = hardware_buffer_bytes();
        set_attributes(infos);
        set_period(kMinAutoPeriod + 2);
    }

    // Drains what CUPTI holds into `by_pc` (offset -> counts) for `function`; the totals too.
    void drain(const std::string& function, std::map<uint64_t, StallCounts>& by_pc, StallSamples& out) {
        for (int round = 0; round < 1 << 16; ++round) {
            size_buffer(fetch, records, reason_slots, reasons.size());
            auto get = params<CUpti_PCSamplingGetDataParams>(CUpti_PCSamplingGetDataParamsSize);
            get.ctx = context;
            get.pcSamplingData = &fetch;
            const CUptiResult r = api.cuptiPCSamplingGetData(&get);
            if (r == CUPTI_ERROR_OUT_OF_MEMORY) fetch.hardwareBufferFull = 1;
            else check(r, "cuptiPCSamplingGetData");
            out.dropped += fetch.droppedSamples;
            if (std::getenv("TILELAB_PCSAMP_TRACE"))
                std::fprintf(stderr, "pcsamp-trace: round %d pcs %zu remaining %zu total %llu dropped %llu non-user %llu full %d first %s\n",
                             round, fetch.totalNumPcs, fetch.remainingNumPcs, (unsigned long long)fetch.totalSamples,
                             (unsigned long long)fetch.droppedSamples, (unsigned long long)fetch.nonUsrKernelsTotalSamples,
                             int(fetch.hardwareBufferFull), fetch.totalNumPcs && records[0].functionName ? records[0].functionName : "-");
            if (fetch.hardwareBufferFull) out.status = stall_status::overflow;
            for (size_t i = 0; i < fetch.totalNumPcs; ++i) {
                CUpti_PCSamplingPCData& pc = records[i];
                const bool ours = pc.functionName && function == pc.functionName;
                if (ours) {
                    StallCounts& c = by_pc[pc.pcOffset];
                    for (size_t k = 0; k < pc.stallReasonCount; ++k) {
                        const auto g = group_of.find(pc.stallReason[k].pcSamplingStallReasonIndex);
                        c[g == group_of.end() ? StallGroup::other : g->second] += pc.stallReason[k].samples;
                    }
                }
                // CUPTI's copy, shared between records (and calls): freed once, when the session ends.
                if (pc.functionName) names.insert(pc.functionName);
            }
            if (fetch.remainingNumPcs == 0 || r == CUPTI_ERROR_OUT_OF_MEMORY) return;
        }
    }

};

namespace {

// The launches sampled at one period, by offset.
struct Round {
    int period = 0, launches = 0;
    std::map<uint64_t, StallCounts> by_pc;
};

// Per-offset counts into per-line counts (charge_stall_lines), through the cubin's line table as
// Nsight Compute's source view reads it (line_table.h: an instruction where inlined calls begin
// counts on each call's line and on its own); CUPTI's correlation, the innermost line alone, where
// the cubin's table cannot be read. Each offset's lines are looked up once.
class LineCharger {
public:
    LineCharger(const Api& api, const CompileResult& kernel)
        : api_(api), kernel_(kernel),
          table_(CubinLineTable::read(std::string_view(kernel.cubin.data(), kernel.cubin.size()), kernel.lowered_name)) {}

    void charge(const std::map<uint64_t, StallCounts>& by_pc, StallSamples& out) {
        std::vector<SampledPc> sampled;
        for (const auto& [offset, counts] : by_pc) {
            auto found = lines_.find(offset);
            if (found == lines_.end()) found = lines_.emplace(offset, lines_of(offset)).first;
            sampled.push_back(SampledPc{offset, counts, found->second});
        }
        charge_stall_lines(sampled, out);
    }

private:
    std::vector<std::pair<std::string, int>> lines_of(uint64_t offset) {
        std::vector<std::pair<std::string, int>> lines;
        if (!table_.empty()) {
            for (SourceLine& l : table_.lines_at(offset)) lines.emplace_back(std::move(l.file), l.line);
            return lines;
        }
        auto q = params<CUpti_GetSassToSourceCorrelationParams>(CUpti_GetSassToSourceCorrelationParamsSize);
        q.cubin = kernel_.cubin.data();
        q.cubinSize = kernel_.cubin.size();
        q.functionName = kernel_.lowered_name.c_str();
        q.pcOffset = offset;
        if (api_.cuptiGetSassToSourceCorrelation(&q) == CUPTI_SUCCESS) {
            lines.emplace_back(q.fileName ? q.fileName : "", int(q.lineNumber));
            std::free(q.fileName);
            std::free(q.dirName);
        }
        return lines;
    }

    const Api& api_;
    const CompileResult& kernel_;
    const CubinLineTable table_;
    std::map<uint64_t, std::vector<std::pair<std::string, int>>> lines_;
};

}  // namespace

PcSamplingSession::PcSamplingSession() : state_(std::make_unique<State>()) {}

PcSamplingSession::~PcSamplingSession() {
    release();
    for (char* name : state_->names) std::free(name);
}

void PcSamplingSession::release() {
    State& s = *state_;
    if (!s.enabled) return;
    auto off = params<CUpti_PCSamplingDisableParams>(CUpti_PCSamplingDisableParamsSize);
    off.ctx = s.context;
    (void)s.api.cuptiPCSamplingDisable(&off);
    for (size_t i = 0; i < s.config_buffer.totalNumPcs && i < s.config_records.size(); ++i)
        if (s.config_records[i].functionName) s.names.insert(s.config_records[i].functionName);
    s.enabled = false;
    s.reasons.clear();
    s.group_of.clear();
    s.period = 0;
}

void PcSamplingSession::prepare() {
    State& s = *state_;
    if (s.enabled || !s.sticky_status.empty()) return;
    try {
        s.enable();
    } catch (const Failure& f) {
        const std::string status = status_for(f.code);
        if (status != stall_status::error || s.enabled) {   // an enabled but unusable session is not retried either
            s.sticky_status = status;
            s.sticky_reason = stall_reason(status, f.detail);
        }
    } catch (const std::exception& e) {
        s.sticky_status = stall_status::error;
        s.sticky_reason = stall_reason(stall_status::error, e.what());
    }
}

StallSamples PcSamplingSession::collect(const CompileResult& kernel, double launch_ms,
                                       const std::function<void(int, const StallSamplingPlan&)>& launches) {
    State& s = *state_;
    StallSamples out;
    const auto start = std::chrono::steady_clock::now();
    prepare();
    if (!s.sticky_status.empty() || !s.enabled) {
        out.status = s.sticky_status.empty() ? stall_status::error : s.sticky_status;
        out.reason = s.sticky_reason.empty() ? stall_reason(stall_status::error, "not enabled") : s.sticky_reason;
        return out;
    }
    out.status = stall_status::ok;
    const int forced = forced_period();
    const StallSamplingPlan plan = plan_stall_sampling(launch_ms, forced != 0, env_or_empty("TILELAB_PC_SAMPLING_CHECK"),
                                                       env_or_empty("TILELAB_PCSAMP_GAP_MS"), env_or_empty("TILELAB_PCSAMP_APART"));
    const int n = plan.launches;
    const int period = forced ? forced : auto_period(n * launch_ms);
    // Stopped on every way out, a launch's CudaError included.
    struct Stop {
        State& s;
        bool armed = false;
        ~Stop() {
            if (armed) (void)s.stop();
        }
    } stop{s};
    try {
        LineCharger charger(s.api, kernel);
        // With the check (plan_stall_sampling), half the launches at 2^period and half at twice the
        // period, compared; a third share at four times where those two disagree.
        const bool check = plan.check;
        std::vector<Round> rounds;
        std::vector<StallSamples> shares;   // each round charged to lines, to compare them (empty without the check)
        const auto sample = [&](int p, int count) {
            Round& r = rounds.emplace_back(Round{p, count, {}});
            const auto t_set = std::chrono::steady_clock::now();
            if (p != s.period) s.set_period(p);
            const auto t_start = std::chrono::steady_clock::now();
            trace("set period", t_set, t_start);
            auto on = params<CUpti_PCSamplingStartParams>(CUpti_PCSamplingStartParamsSize);
            on.ctx = s.context;
            s.check(s.api.cuptiPCSamplingStart(&on), "cuptiPCSamplingStart");
            stop.armed = true;
            const auto t_launch = std::chrono::steady_clock::now();
            trace("start", t_start, t_launch);
            launches(count, plan);
            const auto t_stop = std::chrono::steady_clock::now();
            trace("sampled launches", t_launch, t_stop);
            stop.armed = false;
            s.check(s.stop(), "cuptiPCSamplingStop");
            s.drain(kernel.lowered_name, r.by_pc, out);
            if (check) charger.charge(r.by_pc, shares.emplace_back());
            trace("stop and decode", t_stop, std::chrono::steady_clock::now());
        };
        trace("enable", start, std::chrono::steady_clock::now());
        const int half = std::max(1, (n + 1) / 2), rest = std::max(1, n - half);
        sample(period, check ? half : n);
        if (check) sample(period + 1, rest);
        StallPeriodChoice choice = check ? choose_stall_periods(shares) : StallPeriodChoice{false, {0}, -1, 0};
        if (choice.need_third) {
            sample(period + 2, rest);
            choice = choose_stall_periods(shares);
        }
        std::map<uint64_t, StallCounts> shown;
        for (const size_t i : choice.shown) {
            for (const auto& [offset, counts] : rounds[i].by_pc) shown[offset] += counts;
            out.launches += rounds[i].launches;
        }
        const auto t_lines = std::chrono::steady_clock::now();
        charger.charge(shown, out);
        trace("source lines", t_lines, std::chrono::steady_clock::now());
        const auto period_of = [&](int i) { return i >= 0 ? rounds[size_t(i)].period : 0; };
        out.period_log2 = period_of(int(choice.shown.front()));
        out.left_out_period_log2 = period_of(choice.left_out);
        out.last_period_log2 = rounds.size() > 1 ? std::max(period_of(int(choice.shown.back())), out.left_out_period_log2) : 0;
        out.period_spread = choice.spread;
        const std::string note = stall_period_note(out);
        if (out.status == stall_status::overflow || out.dropped > 0) {
            out.status = stall_status::overflow;
            out.reason = stall_reason(stall_status::overflow, fmt::format("{} samples dropped", out.dropped));
        } else if (out.total == 0) {
            out.status = stall_status::error;
            out.reason = stall_reason(stall_status::error, "no samples of this kernel were returned");
        }
        if (!note.empty() && out.total > 0) out.reason = out.reason.empty() ? note : out.reason + " " + note;
    } catch (const Failure& f) {
        out = StallSamples{};
        out.status = status_for(f.code);
        out.reason = stall_reason(out.status, f.detail);
    }
    out.collect_ms = ms_since(start);
    return out;
}

}  // namespace tilelab
