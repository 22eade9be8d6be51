// Several GPUs at once (tilelab/gpu_pool.h): one engine per GPU, one thread per engine, one queue.
#include "tilelab/gpu_pool.h"
#include <fmt/format.h>
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include "tilelab/i18n.h"

namespace tilelab {

std::string parse_gpu_set(const std::string& text, GpuSet& set) {
    set = {};
    if (text == "all") {
        set.all = true;
        return "";
    }
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, comma - start);
        const bool digits = !item.empty() && item.size() <= 4 && std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (!digits)
            return say("--gpus wants \"all\" or GPU numbers separated by commas (0,1), not \"{}\"",
                       "--gpus 需要 \"all\" 或以逗号分隔的 GPU 编号（0,1），而不是 \"{}\"", text);
        set.devices.push_back(std::stoi(item));   // twice: two workers taking turns on one GPU
        start = comma + 1;
    }
    return "";
}

namespace {

// An engine with a worker of its own on `place` (its device set); it finds its GPU as it starts.
// Null, with `error`, when it could not start at all.
std::unique_ptr<Engine> open_engine(const EngineConfig& base, const GpuLocation& place, std::string& error) {
    EngineConfig cfg = base;
    cfg.own_worker = true;
    cfg.gpu = place;
    try {
        return std::make_unique<Engine>(cfg);
    } catch (const std::exception& e) {
        error = e.what();
        return nullptr;
    }
}

}  // namespace

GpuPool::~GpuPool() = default;

bool GpuPool::open(const std::vector<GpuLocation>& places, const GpuSet& set, const EngineConfig& base, std::string& failure) {
    engines_.clear();
    gpus_.clear();
    const std::vector<GpuLocation> where = places.empty() ? std::vector<GpuLocation>{GpuLocation{}} : places;
    // Which GPUs: with `all`, each place's first worker says how many its host has.
    std::vector<GpuLocation> wanted;
    std::vector<std::unique_ptr<Engine>> first(where.size());
    std::vector<std::string> errors(where.size());
    for (size_t p = 0; p < where.size(); ++p) {
        GpuLocation place = where[p];
        if (!set.all) {
            if (set.devices.empty()) wanted.push_back(place);
            for (int device : set.devices) {
                place.device = device;
                wanted.push_back(place);
            }
            continue;
        }
        place.device = 0;
        wanted.push_back(place);
        first[p] = open_engine(base, place, errors[p]);
        const int count = first[p] ? first[p]->device().device_count : 0;
        for (int device = 1; device < count; ++device) {
            place.device = device;
            wanted.push_back(place);
        }
    }
    // The engines, each starting its worker, all at once: a worker takes a moment to create its context.
    std::vector<std::unique_ptr<Engine>> engines(wanted.size());
    std::vector<std::string> why(wanted.size());
    std::vector<std::thread> starting;
    for (size_t i = 0, p = 0; i < wanted.size(); ++i) {
        if (set.all && wanted[i].device == 0 && p < first.size()) {
            why[i] = errors[p];
            engines[i] = std::move(first[p++]);
            continue;
        }
        starting.emplace_back([&, i] { engines[i] = open_engine(base, wanted[i], why[i]); });
    }
    for (std::thread& t : starting) t.join();
    for (size_t i = 0; i < wanted.size(); ++i) {
        DeviceStatus d;
        if (engines[i]) d = engines[i]->device();
        else d.reason = why[i];
        if (!d.gpu) {
            const GpuLocation& place = wanted[i];
            failure = say("GPU {} {}cannot be used: {}", "GPU {} {}无法使用：{}", std::max(place.device, 0),
                          place.remote() ? "(" + place.describe() + ") " : std::string(), d.reason);
            engines_.clear();
            gpus_.clear();
            return false;
        }
        PoolGpu gpu;
        gpu.model = d.name;
        // Remote: with the worker's host name, as its greeting gave it.
        gpu.label = d.host.empty() ? fmt::format("{} #{}", d.name, d.device_index)
                                   : say("{} #{} on {}", "{} #{}（{}）", d.name, d.device_index, d.host);
        gpus_.push_back(gpu);
        engines_.push_back(std::move(engines[i]));
    }
    return true;
}

bool GpuPool::mixed_models() const {
    return std::any_of(gpus_.begin(), gpus_.end(), [&](const PoolGpu& g) { return g.model != gpus_.front().model; });
}

std::string GpuPool::describe() const {
    std::string labels;
    for (const PoolGpu& g : gpus_) labels += (labels.empty() ? "" : ", ") + g.label;
    return say("{} GPUs: {}", "{} 块 GPU：{}", gpus_.size(), labels);
}

std::vector<PoolResult> GpuPool::run_all(const std::vector<RunRequest>& requests, const RunOptions& opt,
                                         const CancelFlag* cancel, const std::function<void(const PoolProgress&)>& progress) {
    std::vector<PoolResult> results(requests.size());
    std::vector<bool> finished(requests.size(), false);
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<size_t> queue;
    for (size_t i = 0; i < requests.size(); ++i) queue.push_back(i);
    size_t in_hand = 0, live = engines_.size();
    PoolProgress state;
    state.total = requests.size();
    state.per_gpu.assign(engines_.size(), 0);
    std::string last_loss;
    auto report = [&](const std::string& event) {   // under `mutex`
        state.event = event;
        if (progress) progress(state);
        state.event.clear();
    };

    auto serve = [&](size_t g) {
        Engine& engine = *engines_[g];
        for (;;) {
            size_t i;
            {
                std::unique_lock lock(mutex);
                // An empty queue with requests in hand elsewhere: one may come back if its GPU dies.
                changed.wait(lock, [&] { return !queue.empty() || in_hand == 0 || (cancel && cancel->load()); });
                if (queue.empty() || (cancel && cancel->load())) return;
                i = queue.front();
                queue.pop_front();
                ++in_hand;
            }
            const uint64_t deaths = engine.worker_deaths();
            RunResult r = engine.run(requests[i], opt, cancel);
            std::unique_lock lock(mutex);
            --in_hand;
            if (engine.worker_deaths() != deaths && !(cancel && cancel->load())) {
                // Not the request's fault: another GPU measures it, and this one leaves the pool.
                queue.push_front(i);
                --live;
                last_loss = r.error;
                report(say("{} stopped ({}); its point goes to another GPU", "{} 已停止（{}）；它的点交给另一块 GPU",
                           gpus_[g].label, r.error));
                changed.notify_all();
                return;
            }
            results[i] = {std::move(r), int(g)};
            finished[i] = true;
            ++state.done;
            ++state.per_gpu[g];
            state.result = &results[i];
            state.index = i;
            report("");
            state.result = nullptr;
            changed.notify_all();
        }
    };
    std::vector<std::thread> threads;
    for (size_t g = 0; g < engines_.size(); ++g) threads.emplace_back(serve, g);
    for (std::thread& t : threads) t.join();

    // What no GPU measured: cancelled before its turn, or left when every worker was lost.
    for (size_t i = 0; i < requests.size(); ++i) {
        if (finished[i]) continue;
        RunResult& r = results[i].result;
        r.request = requests[i];
        r.ok = false;
        r.stage = "run";
        r.error = (cancel && cancel->load()) || live > 0
                      ? say("cancelled before it ran", "在运行之前被取消")
                      : say("no GPU of the pool was left to measure it: {}", "池中已没有 GPU 可以测量它：{}", last_loss);
    }
    return results;
}

std::vector<double> pct_of_best_per_model(const std::vector<PoolResult>& results, const std::vector<PoolGpu>& gpus) {
    auto comparable = [&](const PoolResult& p) {
        const RunResult& r = p.result;
        return p.gpu >= 0 && size_t(p.gpu) < gpus.size() && r.ok && r.measured && r.timing.median_ms > 0 &&
               !(r.validation.checked && !r.validation.passed);
    };
    std::map<std::string, double> best;   // per model: the smallest median time
    for (const PoolResult& p : results) {
        if (!comparable(p)) continue;
        const std::string& model = gpus[size_t(p.gpu)].model;
        auto it = best.find(model);
        if (it == best.end() || p.result.timing.median_ms < it->second) best[model] = p.result.timing.median_ms;
    }
    std::vector<double> pct(results.size(), -1);
    for (size_t i = 0; i < results.size(); ++i)
        if (comparable(results[i]))
            pct[i] = 100.0 * best.at(gpus[size_t(results[i].gpu)].model) / results[i].result.timing.median_ms;
    return pct;
}

}  // namespace tilelab
