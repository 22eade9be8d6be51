// A CPU walk of a kernel's shared-memory accesses, for checking a variant's bank sites
// (tilelab/banks.h) against it: the test works out each thread's address from the kernel source,
// block by block and access by access in the order the kernel issues them; warps are 32
// consecutive linear thread ids (x fastest), served by the same warp_banks() the model uses.
// Used by test_stencil_banks.cpp and test_convolution_banks.cpp.
#pragma once
#include <gtest/gtest.h>
#include <array>
#include <map>
#include <string>
#include "tilelab/banks.h"
#include "tilelab/variant.h"

namespace tilelab::testing {

struct SiteTally {
    bool store = false;
    int width_bytes = 4;
    double instructions = 0, wavefronts = 0, min_wavefronts = 0;
};

// What one block's warps issue, tallied per site over the whole launch.
struct KernelWalk {
    int threads = 0;   // of the block being walked
    std::map<std::string, SiteTally> sites;

    // One shared access in the source, executed by every warp of the block: word(thread) is the
    // index of the first of the `floats` consecutive floats the thread touches, -1 where it does
    // not take part. A warp none of whose lanes takes part does not issue it.
    template <typename Word>
    void issue(const std::string& name, bool store, Word word, int floats = 1) {
        for (int warp = 0; warp * kWarpLanes < threads; ++warp) {
            std::array<int64_t, kWarpLanes> bytes;
            for (int lane = 0; lane < kWarpLanes; ++lane) {
                const int t = warp * kWarpLanes + lane;
                const int64_t w = t < threads ? word(t) : -1;
                bytes[size_t(lane)] = w < 0 ? -1 : 4 * w;
            }
            const WarpBanks wb = warp_banks(bytes, 4 * floats, store);
            if (wb.min_wavefronts == 0) continue;
            SiteTally& s = sites[name];
            s.store = store;
            s.width_bytes = 4 * floats;
            s.instructions += 1;
            s.wavefronts += wb.wavefronts;
            s.min_wavefronts += wb.min_wavefronts;
        }
    }
};

inline void expect_model_equals_walk(const Variant& v, const ParamValues& p, const Problem& prob, const KernelWalk& walk) {
    ASSERT_TRUE(v.declares_shared_sites) << v.id << " declares its shared sites";
    const BankModel m = full_cost_model(v, p, prob).banks;
    ASSERT_TRUE(m.modelled);
    double loads = 0, stores = 0, load_wf = 0, store_wf = 0, load_min = 0, store_min = 0;
    for (const auto& [name, w] : walk.sites) {
        (w.store ? stores : loads) += w.instructions;
        (w.store ? store_wf : load_wf) += w.wavefronts;
        (w.store ? store_min : load_min) += w.min_wavefronts;
    }
    std::map<std::string, int> declared;
    for (const BankSiteTotals& s : m.sites) {
        SCOPED_TRACE(s.name);
        EXPECT_EQ(++declared[s.name], 1) << "one site per name";
        EXPECT_NE(s.formula.find("word ="), std::string::npos) << s.formula;
        const auto it = walk.sites.find(s.name);
        const SiteTally w = it == walk.sites.end() ? SiteTally{s.store, s.width_bytes} : it->second;
        EXPECT_EQ(s.width_bytes, w.width_bytes);
        EXPECT_EQ(s.store, w.store);
        EXPECT_EQ(s.instructions, w.instructions);
        EXPECT_EQ(s.wavefronts, w.wavefronts);
        EXPECT_EQ(s.min_wavefronts, w.min_wavefronts);
    }
    for (const auto& [name, w] : walk.sites) EXPECT_EQ(declared.count(name), 1u) << "the walk issued " << name;
    EXPECT_EQ(m.load_instructions, loads);
    EXPECT_EQ(m.store_instructions, stores);
    EXPECT_EQ(m.load_wavefronts, load_wf);
    EXPECT_EQ(m.store_wavefronts, store_wf);
    EXPECT_EQ(m.load_conflicts, load_wf - load_min);
    EXPECT_EQ(m.store_conflicts, store_wf - store_min);
}

}  // namespace tilelab::testing
