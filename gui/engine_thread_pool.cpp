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

void EngineThread::serve_sweep_on_pool(const SweepJob& job) {
    set_activity(EngineActivity::Sweeping);
    GpuLocation where;
    {
        std::lock_guard l(out_.mutex);
        where = out_.where;
        if (job.generation == out_.sweep_generation) out_.sweep_gpus.assign(out_.sweep_results.size(), "");
    }
    const std::string key = job.gpu_set + "\n" + where.host + "\n" + where.command;
    std::string failure;
    if (!pool_ || pool_key_ != key) {
        pool_.reset();
        GpuSet set;
        (void)parse_gpu_set(job.gpu_set, set);   // checked by set_gpu_set
        auto pool = std::make_unique<GpuPool>();
        try {
            if (pool->open(where.remote() ? std::vector<GpuLocation>{where} : std::vector<GpuLocation>{}, set, pool_base_, failure)) {
                pool_ = std::move(pool);
                pool_key_ = key;
            }
        } catch (const std::exception& e) {
            failure = e.what();
        }
    }
    if (!pool_) {
        std::lock_guard l(out_.mutex);
        if (job.generation != out_.sweep_generation) return;
        for (size_t i = 0; i < job.reqs.size(); ++i)
            out_.sweep_results[job.first + i] = detail::failed_result(job.reqs[i], failure.c_str());
        out_.sweep_done = out_.sweep_results.size();
        out_.sweep_note = failure;
        return;
    }
    const std::vector<PoolGpu> labels = pool_->gpus();
    {
        std::lock_guard l(out_.mutex);
        if (job.generation == out_.sweep_generation && pool_->mixed_models()) out_.sweep_note = tr("sweep.mixed_models");
    }
    pool_->run_all(job.reqs, job.opt, &jobs_.cancel_sweep_flag, [&](const PoolProgress& p) {
        if (!jobs_.sweep_current(job.generation)) return;
        std::lock_guard l(out_.mutex);
        if (job.generation != out_.sweep_generation) return;
        if (!p.event.empty()) out_.sweep_note = p.event;
        std::string counts;
        for (size_t g = 0; g < p.per_gpu.size(); ++g)
            counts += fmt::format("{}{}: {}", counts.empty() ? "" : ", ", labels[g].label, p.per_gpu[g]);
        out_.sweep_per_gpu = counts;
        if (!p.result) return;
        out_.sweep_results[job.first + p.index] = std::make_shared<RunResult>(p.result->result);
        out_.sweep_gpus[job.first + p.index] = labels[size_t(p.result->gpu)].label;
        ++out_.sweep_done;
    });
}

}  // namespace tilelab::gui
