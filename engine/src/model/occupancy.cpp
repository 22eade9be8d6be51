// Occupancy: cuda_occupancy.h (the toolkit's header-only calculator) gives the answer, or in the
// client-only build our own statement of its rules (occupancy_rules.h); the teaching steps redo
// the arithmetic in words with the same granularities, and tests/cpu/test_occupancy.cpp checks
// over thousands of inputs that all agree.
#include "tilelab/occupancy.h"
#include "tilelab/grid_fill.h"
#include "tilelab/i18n.h"
#include "tilelab/util.h"
#include "model/occupancy_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>

namespace tilelab {
namespace {

std::string format_pct(double x) { return fmt::format("{:.4g}%", x * 100); }

// INT_MAX is the calculator's "this resource sets no limit".
std::string count_or_infinity(int n) { return n == INT_MAX ? std::string("∞") : std::to_string(n); }

// Why the input cannot run at all, or "".
std::string input_error(const Target& t, const OccupancyInput& in) {
    if (in.threads_per_block <= 0)
        return say("A block needs at least one thread, not {}.", "一个线程块至少要有一个线程，而不是 {}。", in.threads_per_block);
    if (in.threads_per_block > t.max_threads_per_block)
        return say("A block of {} threads exceeds the {} threads a block may have on {}.", "{0} 个线程的线程块超过了 {2} 上一个线程块允许的 {1} 个线程。",
                           in.threads_per_block, t.max_threads_per_block, t.arch_name());
    if (in.registers_per_thread < 0)
        return say("{} registers per thread is not a register count.", "每个线程 {} 个寄存器不是有效的寄存器数。", in.registers_per_thread);
    if (in.registers_per_thread > t.max_regs_per_thread)
        return say("{} registers per thread exceeds the {} a thread may use.", "每个线程 {} 个寄存器超过了一个线程可用的 {} 个。",
                           in.registers_per_thread, t.max_regs_per_thread);
    if (in.smem_per_block < 0)
        return say("{} bytes of shared memory is not a size.", "{} 字节共享内存不是有效的大小。", in.smem_per_block);
    if (in.smem_per_block > t.smem_per_block_optin)
        return say("{} B of shared memory per block exceeds the {} B a block may use on {}.", "每个线程块 {0} B 共享内存超过了 {2} 上一个线程块可用的 {1} B。",
                           in.smem_per_block, t.smem_per_block_optin, t.arch_name());
    return {};
}

int round_up(int x, int unit) { return int(ceil_div(x, unit)) * unit; }

// The steps, computed with the granularities the header itself uses.
struct Steps {
    std::vector<std::string> lines;
    std::string error;   // the block cannot fit at all (registers per block)
};

Steps explain(const Target& t, const OccupancyInput& in, const OccupancyRules& rules) {
    Steps s;
    const int warp = t.warp_size;
    const int warps_per_block = int(ceil_div(in.threads_per_block, warp));
    const int warps_per_sm = t.max_threads_per_sm / warp;

    if (in.threads_per_block % warp == 0)
        s.lines.push_back(say("block: {} threads = {} warps", "线程块：{} 个线程 = {} 个线程束", in.threads_per_block, warps_per_block));
    else
        s.lines.push_back(say("block: {} threads = {} warps (a partial warp still takes a whole one)", "线程块：{} 个线程 = {} 个线程束（不满的线程束也占一整个）",
                                      in.threads_per_block, warps_per_block));

    // Warps.
    s.lines.push_back(say("warps: {} warps per SM / {} per block = {} blocks", "线程束：每 SM {} 个线程束 / 每块 {} 个 = {} 个线程块", warps_per_sm,
                                  warps_per_block, warps_per_sm / warps_per_block));

    // Registers: allocated per warp in units of the allocation granularity, from each of the
    // SM's sub-partitions (warp schedulers) separately.
    const int partitions = rules.sub_partitions(t);
    if (in.registers_per_thread == 0) {
        s.lines.push_back(say("registers: none used → no limit", "寄存器：未使用 → 无限制"));
    } else {
        const RegisterAllocation regs = allocated_registers(t, in.registers_per_thread);
        const int reg_unit = regs.unit;
        int per_warp = in.registers_per_thread * warp;
        int alloc_per_warp = regs.per_warp;
        int per_block = alloc_per_warp * warps_per_block;
        int per_partition = t.regs_per_sm / partitions;
        int warps_per_partition = per_partition / alloc_per_warp;
        int warps = warps_per_partition * partitions;
        std::string alloc = !regs.rounded()
                                ? say("{} per warp (a multiple of the {}-register allocation unit)", "每线程束 {} 个（是 {} 个寄存器分配单位的倍数）",
                                              per_warp, reg_unit)
                                : say("{} per warp, rounded up to the {}-register allocation unit: {} = {} per thread as "
                                      "allocated (ptxas: {})",
                                      "每线程束 {} 个，向上取整到 {} 个寄存器的分配单位：{} = 每线程实际分配 {} 个（ptxas：{}）",
                                      per_warp, reg_unit, alloc_per_warp, regs.per_thread, regs.ptxas);
        // The hardware checks a block's registers as if its warps were spread over all partitions.
        int assumed_per_block = alloc_per_warp * round_up(warps_per_block, partitions);
        if (per_block > t.regs_per_block || assumed_per_block > t.regs_per_block) {
            std::string need = assumed_per_block == per_block
                                   ? fmt::format("{}", per_block)
                                   : say("{} (counted as {} warps, a multiple of the {} partitions: {})", "{}（按 {} 个线程束计，即 {} 个分区的倍数：{}）",
                                                 per_block, round_up(warps_per_block, partitions), partitions,
                                                 assumed_per_block);
            s.lines.push_back(say(
                "registers: {} regs × {} threads = {}; the block needs {} registers, more than the {} a block "
                "may use = 0 blocks", "寄存器：{} 个 × {} 个线程 = {}；线程块需要 {} 个寄存器，超过了一个线程块可用的 {} 个 = 0 个线程块",
                in.registers_per_thread, warp, alloc, need, t.regs_per_block));
            s.error = say(
                "A block of {} threads at {} registers each needs {} registers, more than the {} a block may use.", "{} 个线程、每个 {} 个寄存器的线程块需要 {} 个寄存器，超过了一个线程块可用的 {} 个。",
                in.threads_per_block, in.registers_per_thread, assumed_per_block, t.regs_per_block);
        } else {
            s.lines.push_back(say(
                "registers: {} regs × {} threads = {}; {} per SM in {} partitions of {} = {} warps each, "
                "{} warps per SM / {} per block = {} blocks", "寄存器：{} 个 × {} 个线程 = {}；每 SM {} 个，分成 {} 个分区、每区 {} 个 = 每区 {} 个线程束，每 SM {} 个线程束 / 每块 {} 个 = {} 个线程块",
                in.registers_per_thread, warp, alloc, t.regs_per_sm, partitions, per_partition,
                warps_per_partition, warps, warps_per_block, warps / warps_per_block));
        }
    }

    // Shared memory: the block's bytes plus the driver's reservation, in allocation units,
    // out of the SM's shared-memory carveout.
    const int smem_unit = rules.smem_unit(t);
    int used = in.smem_per_block + t.reserved_smem_per_block;
    int alloc = round_up(used, smem_unit);
    if (alloc == 0) {
        s.lines.push_back(say("shared memory: none used → no limit", "共享内存：未使用 → 无限制"));
    } else {
        std::string what = t.reserved_smem_per_block > 0
                               ? say("{} + {} reserved = {} B per block", "每线程块 {} + {} 保留 = {} B", in.smem_per_block,
                                             t.reserved_smem_per_block, used)
                               : say("{} B per block", "每线程块 {} B", used);
        if (alloc != used) what += say(", rounded up to the {} B allocation unit: {} B", "，向上取整到 {} B 的分配单位：{} B", smem_unit, alloc);
        // The SM picks a larger carveout when the preferred one cannot hold a single block.
        const size_t carveout = rules.smem_carveout(t, size_t(alloc));
        s.lines.push_back(say("shared memory: {}; {} B per SM / {} B = {} blocks", "共享内存：{}；每 SM {} B / {} B = {} 个线程块", what, carveout,
                                      alloc, int(carveout / size_t(alloc))));
    }

    const int hw_blocks = rules.max_blocks_per_sm(t);
    s.lines.push_back(say("blocks: at most {} resident per SM on {} = {} blocks", "线程块：{1} 上每 SM 最多驻留 {0} 个 = {2} 个线程块", hw_blocks, t.arch_name(), hw_blocks));
    return s;
}

}  // namespace

RegisterAllocation allocated_registers(const Target& t, int ptxas_registers) {
    RegisterAllocation a;
    const int warp = t.warp_size > 0 ? t.warp_size : 32;
    a.ptxas = std::max(ptxas_registers, 0);
    a.unit = occupancy_rules().register_unit(t);
    a.thread_multiple = a.unit / warp;
    a.per_warp = round_up(a.ptxas * warp, a.unit);
    a.per_thread = a.per_warp / warp;
    return a;
}

// " (limited by registers and shared memory)" in the current language.
std::string limited_by(const std::vector<std::string>& limiters) {
    std::string names;
    for (size_t i = 0; i < limiters.size(); ++i)
        names += (i ? say(" and ", "和") : std::string()) + quantity_label(limiters[i]);
    return say(" (limited by {})", "（受限于{}）", names);
}

Occupancy compute_occupancy(const Target& t, const OccupancyInput& in) {
    Occupancy occ;
    occ.max_warps = t.warp_size > 0 ? t.max_threads_per_sm / t.warp_size : 0;
    occ.error = input_error(t, in);
    if (!occ.error.empty()) {
        occ.steps.push_back(occ.error);
        return occ;
    }

    const OccupancyRules& rules = occupancy_rules();
    OccupancyLimits result;
    const OccupancyRulesStatus status = rules.limits(t, in, result);
    if (status != OccupancyRulesStatus::ok) {
        occ.error = status == OccupancyRulesStatus::unknown_device
                        ? say("The occupancy rules do not know {}.", "占用率规则不认识 {}。", t.arch_name())
                        : say("The occupancy rules rejected the input for {} (check the target's limits).", "占用率规则拒绝了 {} 的输入（请检查目标的限制）。",
                                      t.arch_name());
        occ.steps.push_back(occ.error);
        return occ;
    }

    occ.limit_warps = result.warps;
    occ.limit_registers = result.registers;
    occ.limit_smem = result.smem;
    occ.limit_blocks = result.blocks;
    occ.blocks_per_sm = result.active;
    const int warps_per_block = int(ceil_div(in.threads_per_block, t.warp_size));
    occ.active_warps = occ.blocks_per_sm * warps_per_block;
    occ.occupancy = occ.max_warps > 0 ? double(occ.active_warps) / occ.max_warps : 0;

    std::vector<std::string> limiters;
    if (result.by_warps) limiters.push_back("warps");
    if (result.by_registers) limiters.push_back("registers");
    if (result.by_smem) limiters.push_back("shared memory");
    if (result.by_blocks) limiters.push_back("blocks");
    for (size_t i = 0; i < limiters.size(); ++i) occ.limiter += (i ? " and " : "") + limiters[i];

    Steps steps = explain(t, in, rules);
    occ.steps = std::move(steps.lines);
    occ.error = steps.error;
    occ.steps.push_back(say("→ min({}, {}, {}, {}) = {} blocks per SM = {} warps of {} = {}{}", "→ min({}, {}, {}, {}) = 每 SM {} 个线程块 = {} / {} 个线程束 = {}{}",
                                    occ.limit_warps, count_or_infinity(occ.limit_registers),
                                    count_or_infinity(occ.limit_smem), occ.limit_blocks,
                                    occ.blocks_per_sm, occ.active_warps, occ.max_warps,
                                    format_pct(occ.occupancy),
                                    occ.limiter.empty() ? "" : limited_by(limiters)));
    return occ;
}

OccupancyCurves occupancy_curves(const Target& t, const OccupancyInput& at) {
    OccupancyCurves c;
    const int warp = t.warp_size > 0 ? t.warp_size : 32;
    for (int threads = warp; threads <= t.max_threads_per_block; threads += warp) {
        OccupancyInput in = at;
        in.threads_per_block = threads;
        c.vs_block_size.push_back({threads, compute_occupancy(t, in).occupancy});
    }
    for (int regs = 1; regs <= t.max_regs_per_thread; ++regs) {
        OccupancyInput in = at;
        in.registers_per_thread = regs;
        c.vs_registers.push_back({regs, compute_occupancy(t, in).occupancy});
    }
    // 1 KB steps, ending exactly at the per-block limit.
    constexpr int smem_step = 1024;
    for (int bytes = 0;; bytes += smem_step) {
        int x = std::min(bytes, t.smem_per_block_optin);
        OccupancyInput in = at;
        in.smem_per_block = x;
        c.vs_smem.push_back({x, compute_occupancy(t, in).occupancy});
        if (x >= t.smem_per_block_optin) break;
    }
    return c;
}

GridFill grid_fill(const Target& t, const Occupancy& occ, int64_t blocks, int64_t threads_per_block) {
    GridFill g;
    if (t.sm_count <= 0 || occ.blocks_per_sm <= 0 || occ.max_warps <= 0 || blocks <= 0) return g;
    const int64_t per_sm = ceil_div(blocks, t.sm_count);
    if (per_sm >= occ.blocks_per_sm) return g;
    g.limits = true;
    g.blocks_per_sm = int(per_sm);
    g.warps_per_sm = int(per_sm * ceil_div(threads_per_block, std::max(1, t.warp_size)));
    g.occupancy = double(g.warps_per_sm) / occ.max_warps;
    return g;
}

}  // namespace tilelab
