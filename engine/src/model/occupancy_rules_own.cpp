// Our own statement of the occupancy rules (occupancy_rules.h), for the client-only build, which
// has no CUDA Toolkit and so no cuda_occupancy.h. It covers Volta and later (sm_70 to sm_12x),
// the GPUs TileLab's kernels target; the tables are the architectures' documented allocation
// units, resident-block limits and shared-memory carveout sizes. Where the toolkit is present,
// tests/cpu/test_occupancy.cpp checks every answer here against cuda_occupancy.h's.
#include "model/occupancy_rules.h"

#include <algorithm>
#include <climits>
#include <vector>

#include "tilelab/util.h"

namespace tilelab {
namespace {

bool known(const Target& t) {
    if (t.sm_major < 7 || t.sm_major > 12) return false;
    if (t.sm_major == 10 || t.sm_major == 11) return t.sm_minor == 0 || t.sm_minor == 1 || t.sm_minor == 3;
    if (t.sm_major == 12) return t.sm_minor == 0 || t.sm_minor == 1;
    return true;
}

// The shared-memory carveouts an SM can be configured to, in KB, smallest first.
std::vector<size_t> carveouts_kb(const Target& t) {
    switch (t.sm_major) {
        case 7: return t.sm_minor == 5 ? std::vector<size_t>{32, 64} : std::vector<size_t>{0, 8, 16, 32, 64, 96};
        case 8:
            if (t.sm_minor == 0 || t.sm_minor == 7) return {0, 8, 16, 32, 64, 100, 132, 164};
            return {0, 8, 16, 32, 64, 100};
        case 12: return {0, 8, 16, 32, 64, 100};
        default: return {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};   // Hopper, Blackwell data centre
    }
}

// The smallest carveout holding `bytes`; false when none does.
bool align_up_carveout(const Target& t, size_t& bytes) {
    for (size_t kb : carveouts_kb(t)) {
        if (bytes <= kb * 1024) {
            bytes = kb * 1024;
            return true;
        }
    }
    return false;
}

int round_up(int x, int unit) { return int(ceil_div(x, unit)) * unit; }

class OwnOccupancyRules final : public OccupancyRules {
public:
    int register_unit(const Target&) const override { return 256; }
    int sub_partitions(const Target&) const override { return 4; }
    int smem_unit(const Target& t) const override { return t.sm_major >= 8 ? 128 : 256; }

    size_t smem_carveout(const Target& t, size_t alloc_per_block) const override {
        size_t preference = size_t(t.smem_per_sm);   // the default: as much shared memory as the SM has
        align_up_carveout(t, preference);
        if (preference >= alloc_per_block) return preference;
        size_t fit = alloc_per_block;
        return align_up_carveout(t, fit) ? fit : preference;
    }

    int max_blocks_per_sm(const Target& t) const override {
        switch (t.sm_major) {
            case 7: return t.sm_minor == 5 ? 16 : 32;
            case 8: return t.sm_minor == 0 ? 32 : t.sm_minor == 9 ? 24 : 16;
            case 10: return t.sm_minor == 1 ? 24 : 32;
            case 11: return t.sm_minor == 0 ? 24 : 32;
            case 12: return 24;
            default: return 32;   // Hopper
        }
    }

    OccupancyRulesStatus limits(const Target& t, const OccupancyInput& in, OccupancyLimits& out) const override {
        if (!known(t)) return OccupancyRulesStatus::unknown_device;
        if (in.threads_per_block <= 0 || t.warp_size <= 0) return OccupancyRulesStatus::invalid_input;
        const int warps_per_block = int(ceil_div(in.threads_per_block, t.warp_size));

        // Warps: the SM's warp slots.
        out.warps = in.threads_per_block > t.max_threads_per_block ? 0 : (t.max_threads_per_sm / t.warp_size) / warps_per_block;

        // Registers: per warp in allocation units, from each sub-partition's share of the file; a
        // block is checked as if its warps were spread over all sub-partitions.
        const int per_warp = round_up(in.registers_per_thread * t.warp_size, register_unit(t));
        const int partitions = sub_partitions(t);
        if (t.regs_per_block < per_warp * round_up(warps_per_block, partitions) || t.regs_per_block < per_warp * warps_per_block ||
            in.registers_per_thread > 256)
            out.registers = 0;
        else if (per_warp == 0)
            out.registers = INT_MAX;
        else
            out.registers = ((t.regs_per_sm / partitions) / per_warp * partitions) / warps_per_block;

        // Shared memory: the block's bytes plus the driver's reservation, in allocation units.
        const size_t used = size_t(in.smem_per_block) + size_t(t.reserved_smem_per_block);
        const size_t alloc = size_t(round_up(int(used), smem_unit(t)));
        const size_t most = size_t(t.reserved_smem_per_block) + size_t(t.smem_per_block_optin);
        size_t block_limit = most > size_t(t.smem_per_block) ? size_t(t.smem_per_block_optin) : size_t(t.smem_per_block);
        if (t.sm_major >= 8) block_limit += size_t(t.reserved_smem_per_block);
        if (in.smem_per_block > t.smem_per_block_optin || alloc > block_limit) {
            out.smem = 0;
        } else {
            size_t preference = size_t(t.smem_per_sm);
            if (!align_up_carveout(t, preference)) return OccupancyRulesStatus::invalid_input;
            size_t carveout = preference;
            if (preference < alloc) {
                carveout = alloc;
                if (!align_up_carveout(t, carveout)) return OccupancyRulesStatus::invalid_input;
            }
            out.smem = alloc > 0 ? int(carveout / alloc) : INT_MAX;
        }

        out.blocks = max_blocks_per_sm(t);
        out.active = std::min({out.warps, out.registers, out.smem, out.blocks});
        out.by_warps = out.active == out.warps;
        out.by_registers = out.active == out.registers;
        out.by_smem = out.active == out.smem;
        out.by_blocks = out.active == out.blocks;
        return OccupancyRulesStatus::ok;
    }
};

}  // namespace

const OccupancyRules& own_occupancy_rules() {
    static const OwnOccupancyRules rules;
    return rules;
}

}  // namespace tilelab
