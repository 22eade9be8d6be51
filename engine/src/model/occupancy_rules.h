// The hardware's allocation rules that occupancy follows: registers per warp in allocation units
// from each sub-partition, shared memory in allocation units out of the SM's carveout, a most
// resident blocks per SM. Two statements of them: cuda_occupancy.h's (the toolkit's calculator,
// occupancy_rules_cuda.cpp, the full build) and our own (occupancy_rules_own.cpp, for the
// client-only build, which has no toolkit); tests/cpu/test_occupancy.cpp checks they agree.
// No CUDA types here.
#pragma once
#include <cstddef>
#include "tilelab/occupancy.h"
#include "tilelab/target.h"

namespace tilelab {

// Blocks per SM that each resource allows alone (INT_MAX: the block uses none of it), and all together.
struct OccupancyLimits {
    int warps = 0, registers = 0, smem = 0, blocks = 0;
    int active = 0;
    bool by_warps = false, by_registers = false, by_smem = false, by_blocks = false;   // which set `active`
};

enum class OccupancyRulesStatus { ok, unknown_device, invalid_input };

class OccupancyRules {
public:
    virtual ~OccupancyRules() = default;
    // Registers are allocated per warp in multiples of this many.
    virtual int register_unit(const Target& t) const = 0;
    // The SM's warp schedulers: each owns an equal share of the register file.
    virtual int sub_partitions(const Target& t) const = 0;
    // Shared memory is allocated per block in multiples of this many bytes.
    virtual int smem_unit(const Target& t) const = 0;
    // The SM's shared-memory carveout for blocks of `alloc_per_block` bytes each (allocation
    // units, reservation included): the default preference, or the next size that holds one block.
    virtual size_t smem_carveout(const Target& t, size_t alloc_per_block) const = 0;
    // The most blocks resident on one SM.
    virtual int max_blocks_per_sm(const Target& t) const = 0;
    // Blocks per SM for a kernel whose shared memory is all dynamic, opted in to the block's maximum.
    virtual OccupancyRulesStatus limits(const Target& t, const OccupancyInput& in, OccupancyLimits& out) const = 0;
};

// The rules this build computes occupancy with: cuda_occupancy.h's where the toolkit is present.
const OccupancyRules& occupancy_rules();
// Our own statement of the same rules (every build has it; the client-only build uses it).
const OccupancyRules& own_occupancy_rules();

}  // namespace tilelab
