#include "tilelab/quantities.h"
#include <algorithm>
#include <limits>
#include "tilelab/compile.h"

namespace tilelab {
namespace {

// A row's getter: a value of the static analysis (every result has one).
#define TILELAB_Q(expr) [](const RunResult& r, double& out) { out = double(expr); return out >= 0; }
// A value of the compiled kernel's ptxas report: none when nothing was compiled.
#define TILELAB_PTXAS(field) \
    [](const RunResult& r, double& out) { return r.compiled && (out = double(r.compiled->ptxas.field)) >= 0; }

// A resource the block does not use sets no limit: no answer.
bool limit(int blocks, double& out) {
    if (blocks == std::numeric_limits<int>::max()) return false;
    out = blocks;
    return out >= 0;
}

// The worst phase of any shared load (store) site: 1 = conflict-free, 32 = every lane alone;
// none without such a site.
bool worst_ways(const RunResult& r, bool store, double& out) {
    out = 0;
    for (const BankSiteTotals& site : r.model.banks.sites)
        if (site.store == store) out = std::max(out, double(site.worst_ways));
    return out > 0;
}

// Measured where the warps wait: the share of the samples in group G (tilelab/stalls.h).
template <StallGroup G>
bool stall_share_of(const RunResult& r, double& out) {
    if (!r.stalls.has_samples()) return false;
    out = stall_share(r.stalls.counts[G], r.stalls.total);
    return true;
}

// Measured: a time of a run whose output was right (the worker never times an unchecked one).
bool measured(const RunResult& r) { return r.measured && r.validation.passed; }

const std::vector<Quantity> kQuantities = {
    {"registers", "", false, TILELAB_PTXAS(registers)},
    {"spill stores (bytes)", "bytes", false, TILELAB_PTXAS(spill_stores)},
    {"spill loads (bytes)", "bytes", false, TILELAB_PTXAS(spill_loads)},
    {"blocks per SM", "", false, TILELAB_Q(r.occupancy.blocks_per_sm)},
    {"occupancy %", "%", false, TILELAB_Q(100.0 * r.occupancy.occupancy)},
    {"active warps / SM", "", false, TILELAB_Q(r.occupancy.active_warps)},
    {"threads / block", "", false, TILELAB_Q(r.launch.threads_per_block())},
    {"shared bytes / block", "bytes", false, TILELAB_Q(r.smem_bytes())},
    {"blocks per SM by registers", "", false,
     [](const RunResult& r, double& out) { return limit(r.occupancy.limit_registers, out); }},
    {"blocks per SM by shared memory", "", false,
     [](const RunResult& r, double& out) { return limit(r.occupancy.limit_smem, out); }},
    {"blocks per SM by warps", "", false,
     [](const RunResult& r, double& out) { return limit(r.occupancy.limit_warps, out); }},
    {"global loads per thread", "", false, TILELAB_Q(r.model.per_thread.global_loads)},
    {"shared loads per thread", "", false, TILELAB_Q(r.model.per_thread.shared_loads)},
    {"arithmetic intensity", "FLOP/B", false, TILELAB_Q(r.model.intensity)},
    {"global bytes (total)", "bytes", false, TILELAB_Q(r.model.global_bytes)},
    {"shared wavefronts", "", false, TILELAB_Q(r.model.banks.wavefronts())},
    {"bank conflicts", "", false, TILELAB_Q(r.model.banks.conflicts())},
    {"load ways", "", false, [](const RunResult& r, double& out) { return worst_ways(r, false, out); }},
    {"store ways", "", false, [](const RunResult& r, double& out) { return worst_ways(r, true, out); }},
    {"time", "ms", true, [](const RunResult& r, double& out) { return measured(r) && (out = r.timing.median_ms) >= 0; }},
    {"GFLOP/s", "GFLOP/s", true, [](const RunResult& r, double& out) { return measured(r) && (out = r.gflops) >= 0; }},
    {"spill bytes", "bytes", false, TILELAB_PTXAS(spill_stores)},
    {"registers / SM", "", false, TILELAB_Q(r.target.regs_per_sm)},
    {"register file KB / SM", "KB", false, TILELAB_Q(r.target.regs_per_sm * 4.0 / 1024.0)},
    {"global loads, total", "", false, TILELAB_Q(r.model.total.global_loads)},
    {"stall share: issuing", "%", true, stall_share_of<StallGroup::issuing>},
    {"stall share: global_memory", "%", true, stall_share_of<StallGroup::global_memory>},
    {"stall share: shared_memory", "%", true, stall_share_of<StallGroup::shared_memory>},
    {"stall share: barrier", "%", true, stall_share_of<StallGroup::barrier>},
    {"stall share: math_pipe", "%", true, stall_share_of<StallGroup::math_pipe>},
    {"stall share: memory_throttle", "%", true, stall_share_of<StallGroup::memory_throttle>},
    {"stall share: not_selected", "%", true, stall_share_of<StallGroup::not_selected>},
    {"stall share: branch", "%", true, stall_share_of<StallGroup::branch>},
    {"stall share: wait", "%", true, stall_share_of<StallGroup::wait>},
    {"stall share: other", "%", true, stall_share_of<StallGroup::other>},
};

#undef TILELAB_Q
#undef TILELAB_PTXAS

}  // namespace

const std::vector<Quantity>& quantities() { return kQuantities; }

const Quantity* find_quantity(const std::string& name) {
    const auto it = std::find_if(kQuantities.begin(), kQuantities.end(), [&](const Quantity& q) { return name == q.name; });
    return it == kQuantities.end() ? nullptr : &*it;
}

std::vector<std::string> quantity_names() {
    std::vector<std::string> out;
    for (const Quantity& q : kQuantities) out.emplace_back(q.name);
    return out;
}

bool quantity_value(const RunResult& r, const std::string& name, double& out) {
    if (const Quantity* q = find_quantity(name)) return q->value(r, out);
    for (const auto* list : {&r.model.formulas, &r.model.extras})
        for (const Formula& f : *list)
            if (f.quantity == name) {
                out = f.value;
                return true;
            }
    return false;
}

bool quantity_needs_gpu(const std::string& name) {
    const Quantity* q = find_quantity(name);
    return q && q->needs_gpu;
}

}  // namespace tilelab
