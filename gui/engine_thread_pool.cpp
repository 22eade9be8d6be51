// The engine thread's sweeps over several GPUs (engine_thread.h): when the GPU set names more than
// one GPU, the whole sweep goes to a pool (tilelab/gpu_pool.h) of workers of its own, one per GPU,
// each taking the next point. The pool is opened on the first such sweep and kept while the GPU
// set and the GPU's place stay the same. Results come in as they are measured, each with its GPU.
#include <fmt/format.h>
#include <utility>
#include "engine_thread.h"
#include "engine_thread_detail.h"
#include "tilelab/i18n.h"

namespace tilelab::gui {

std::string EngineThread::set_gpu_set(const std::string& gpus) {
    GpuSet set;
    if (!gpus.empty())
        if (std::string problem = parse_gpu_set(gpus, set); !problem.empty()) return problem;
    std::lock_guard l(mutex_);
    gpu_set_ = gpus;
    return "";
}

std::string EngineThread::gpu_set() const {
    std::lock_guard l(mutex_);
    return gpu_set_;
}

std::vector<std::string> EngineThread::sweep_gpus() const {
    std::lock_guard l(mutex_);
    return sweep_gpus_;
}

bool EngineThread::sweep_wants_pool() const {
    GpuSet set;
    return !gpu_set_.empty() && parse_gpu_set(gpu_set_, set).empty() && set.many() && engine_ && engine_->device().gpu;
}

void EngineThread::serve_sweep_on_pool(std::unique_lock<std::mutex>& lock) {
    const size_t first = sweep_next_;
    sweep_next_ = sweep_reqs_.size();   // the pool takes every point still to run
    const std::vector<RunRequest> reqs(sweep_reqs_.begin() + long(first), sweep_reqs_.end());
    const RunOptions opt = sweep_opt_;
    const uint64_t generation = sweep_generation_;
    const std::string gpus = gpu_set_;
    const GpuLocation where = where_;
    EngineConfig base = pool_base_;
    sweep_gpus_.assign(sweep_reqs_.size(), "");
    cancel_sweep_ = false;
    activity_ = EngineActivity::Sweeping;
    lock.unlock();

    const std::string key = gpus + "\n" + where.host + "\n" + where.command;
    std::string failure;
    if (!pool_ || pool_key_ != key) {
        pool_.reset();
        GpuSet set;
        (void)parse_gpu_set(gpus, set);   // checked by set_gpu_set
        auto pool = std::make_unique<GpuPool>();
        try {
            if (pool->open(where.remote() ? std::vector<GpuLocation>{where} : std::vector<GpuLocation>{}, set, base, failure)) {
                pool_ = std::move(pool);
                pool_key_ = key;
            }
        } catch (const std::exception& e) {
            failure = e.what();
        }
    }
    if (!pool_) {
        lock.lock();
        if (generation != sweep_generation_) return;
        for (size_t i = first; i < sweep_reqs_.size(); ++i)
            sweep_results_[i] = detail::failed_result(sweep_reqs_[i], failure.c_str());
        sweep_done_ = sweep_reqs_.size();
        sweep_note_ = failure;
        return;
    }
    const std::vector<PoolGpu> labels = pool_->gpus();
    {
        std::lock_guard l(mutex_);
        if (generation == sweep_generation_ && pool_->mixed_models()) sweep_note_ = tr("sweep.mixed_models");
    }
    pool_->run_all(reqs, opt, &cancel_sweep_, [&](const PoolProgress& p) {
        std::lock_guard l(mutex_);
        if (generation != sweep_generation_ || cancel_sweep_) return;
        if (!p.event.empty()) sweep_note_ = p.event;
        std::string counts;
        for (size_t g = 0; g < p.per_gpu.size(); ++g)
            counts += fmt::format("{}{}: {}", counts.empty() ? "" : ", ", labels[g].label, p.per_gpu[g]);
        sweep_per_gpu_ = counts;
        if (!p.result) return;
        sweep_results_[first + p.index] = std::make_shared<RunResult>(p.result->result);
        sweep_gpus_[first + p.index] = labels[size_t(p.result->gpu)].label;
        ++sweep_done_;
    });
    lock.lock();
}

}  // namespace tilelab::gui
