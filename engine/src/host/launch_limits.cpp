// The launch limits every kernel shares, whatever its variant says (launch_limits.h).
#include "host/launch_limits.h"
#include <fmt/format.h>
#include "tilelab/i18n.h"

namespace tilelab {
namespace {

std::string format_dims(const std::array<unsigned, 3>& d) { return fmt::format("{}×{}×{}", d[0], d[1], d[2]); }

}  // namespace

std::string launch_limits_problem(const VariantInstance& v, const LaunchShape& launch, const Target& t) {
    const int64_t threads = launch.threads_per_block();
    if (threads > t.max_threads_per_block)
        return say("A block of {} threads exceeds the {} threads a block may have on {}.", "{} 个线程的线程块超过了 {} 上一个线程块允许的 {} 个线程。", threads,
                           t.max_threads_per_block, t.arch_name());
    const char* axis = "xyz";
    for (int i = 0; i < 3; ++i) {
        if (launch.block[i] < 1 || launch.grid[i] < 1)
            return say("The launch shape (grid {}, block {}) has an empty dimension.", "启动配置（网格 {}，线程块 {}）有一个维度为空。", format_dims(launch.grid),
                               format_dims(launch.block));
        if (launch.block[i] > unsigned(t.max_block_dim[i]))
            return say("A block {} of {} exceeds the limit of {} on {}.", "线程块的 {0} 维为 {1}，超过了 {3} 上的上限 {2}。", axis[i], launch.block[i],
                               t.max_block_dim[i], t.arch_name());
        if (launch.grid[i] > t.max_grid_dim[i])
            return say("The launch needs {} blocks along {}, but a grid may have at most {} there; use a "
                               "smaller problem or larger tiles.", "启动需要沿 {1} 方向 {0} 个线程块，但网格在该方向最多 {2} 个；请用更小的问题规模或更大的分块。", launch.grid[i], axis[i], t.max_grid_dim[i]);
    }
    if (launch.cluster > 1 && (t.arch() < 90 || launch.cluster > 8 || launch.grid[0] % launch.cluster != 0))
        return say("A cluster of {} blocks needs sm_90 or later, at most 8 blocks, and a grid of whole clusters ({} blocks along x).",
                   "{} 个线程块的集群需要 sm_90 或更新的架构、最多 8 个线程块，且网格由整数个集群组成（沿 x 方向 {} 个线程块）。",
                   launch.cluster, launch.grid[0]);
    // Static shared memory is capped at the default per-block limit; dynamic shared memory may use
    // the opt-in limit, because the runner sets cudaFuncAttributeMaxDynamicSharedMemorySize.
    const int static_smem = v.smem_bytes();
    if (static_smem > t.smem_per_block)
        return say("The kernel declares {} bytes of static shared memory; a block may have {} on {}.", "内核声明了 {0} 字节静态共享内存；{2} 上一个线程块最多 {1} 字节。",
                           static_smem, t.smem_per_block, t.arch_name());
    const int64_t smem = int64_t(static_smem) + launch.dynamic_smem;
    const int limit = launch.dynamic_smem > 0 && t.smem_per_block_optin > 0 ? t.smem_per_block_optin : t.smem_per_block;
    if (smem > limit)
        return say("A block needs {} bytes of shared memory; {} allows {} per block.", "一个线程块需要 {} 字节共享内存；{} 每个线程块最多允许 {} 字节。", smem, t.arch_name(), limit);
    return "";
}

}  // namespace tilelab
