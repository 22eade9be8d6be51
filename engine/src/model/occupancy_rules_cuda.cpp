// The occupancy rules as cuda_occupancy.h states them (occupancy_rules.h): the toolkit's own
// header-only calculator, the source of truth wherever the toolkit is present (TILELAB_CUDA=ON).
#include "model/occupancy_rules.h"

#include <cuda_occupancy.h>

namespace tilelab {
namespace {

cudaOccDeviceProp device_prop(const Target& t) {
    cudaOccDeviceProp p;
    p.computeMajor = t.sm_major;
    p.computeMinor = t.sm_minor;
    p.maxThreadsPerBlock = t.max_threads_per_block;
    p.maxThreadsPerMultiprocessor = t.max_threads_per_sm;
    p.regsPerBlock = t.regs_per_block;
    p.regsPerMultiprocessor = t.regs_per_sm;
    p.warpSize = t.warp_size;
    p.sharedMemPerBlock = size_t(t.smem_per_block);
    p.sharedMemPerMultiprocessor = size_t(t.smem_per_sm);
    p.numSms = t.sm_count;
    p.sharedMemPerBlockOptin = size_t(t.smem_per_block_optin);
    p.reservedSharedMemPerBlock = size_t(t.reserved_smem_per_block);
    return p;
}

// The kernel as the driver would see it after the engine opts in to the full per-block shared
// memory (cudaFuncAttributeMaxDynamicSharedMemorySize). All shared memory is passed as dynamic,
// which the calculator treats exactly like static memory once opted in.
cudaOccFuncAttributes func_attributes(const Target& t, const OccupancyInput& in) {
    cudaOccFuncAttributes f;
    f.maxThreadsPerBlock = t.max_threads_per_block;
    f.numRegs = in.registers_per_thread;
    f.sharedSizeBytes = 0;
    f.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    f.maxDynamicSharedSizeBytes = size_t(t.smem_per_block_optin);
    f.numBlockBarriers = 1;  // what cudaFuncGetAttributes reports for a kernel with __syncthreads
    return f;
}

// One of the calculator's per-device figures for the target: query(&figure, &properties).
int ask(const Target& t, cudaOccError (*query)(int*, const cudaOccDeviceProp*)) {
    const cudaOccDeviceProp p = device_prop(t);
    int figure = 0;
    query(&figure, &p);
    return figure;
}

class CudaOccupancyRules final : public OccupancyRules {
public:
    int register_unit(const Target& t) const override { return ask(t, cudaOccRegAllocationGranularity); }
    int sub_partitions(const Target& t) const override { return ask(t, cudaOccSubPartitionsPerMultiprocessor); }
    int smem_unit(const Target& t) const override { return ask(t, cudaOccSMemAllocationGranularity); }
    size_t smem_carveout(const Target& t, size_t alloc_per_block) const override {
        const cudaOccDeviceProp p = device_prop(t);
        const cudaOccDeviceState state;
        size_t carveout = 0;
        cudaOccSMemPerMultiprocessor(&carveout, &p, &state);
        if (carveout < alloc_per_block) {   // the SM picks a larger carveout when one block does not fit
            carveout = alloc_per_block;
            cudaOccAlignUpShmemSizeVoltaPlus(&carveout, &p);
        }
        return carveout;
    }
    int max_blocks_per_sm(const Target& t) const override { return ask(t, cudaOccMaxBlocksPerMultiprocessor); }
    OccupancyRulesStatus limits(const Target& t, const OccupancyInput& in, OccupancyLimits& out) const override {
        const cudaOccDeviceProp prop = device_prop(t);
        const cudaOccFuncAttributes attr = func_attributes(t, in);
        const cudaOccDeviceState state;
        cudaOccResult r{};
        const cudaOccError status = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &prop, &attr, &state,
                                                                            in.threads_per_block, size_t(in.smem_per_block));
        if (status == CUDA_OCC_ERROR_UNKNOWN_DEVICE) return OccupancyRulesStatus::unknown_device;
        if (status != CUDA_OCC_SUCCESS) return OccupancyRulesStatus::invalid_input;
        out.warps = r.blockLimitWarps;
        out.registers = r.blockLimitRegs;
        out.smem = r.blockLimitSharedMem;
        out.blocks = r.blockLimitBlocks;
        out.active = r.activeBlocksPerMultiprocessor;
        out.by_warps = r.limitingFactors & OCC_LIMIT_WARPS;
        out.by_registers = r.limitingFactors & OCC_LIMIT_REGISTERS;
        out.by_smem = r.limitingFactors & OCC_LIMIT_SHARED_MEMORY;
        out.by_blocks = r.limitingFactors & OCC_LIMIT_BLOCKS;
        return OccupancyRulesStatus::ok;
    }
};

}  // namespace

const OccupancyRules& occupancy_rules() {
    static const CudaOccupancyRules rules;
    return rules;
}

}  // namespace tilelab
