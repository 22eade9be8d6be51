// A GPU as the engine sees it: either read from the device (GPU mode) or a datasheet preset
// (model mode). No magic hardware numbers elsewhere: everything comes from here.
#pragma once
#include <string>
#include "tilelab/precision.h"
#include <vector>

namespace tilelab {

struct Target {
    std::string name;         // "NVIDIA H200" or the preset's name
    std::string preset;       // preset key ("h100", "t4", ...) or "device"
    int sm_major = 0, sm_minor = 0;
    int sm_count = 0;
    int warp_size = 32;
    int max_threads_per_block = 1024;
    int max_threads_per_sm = 2048;
    int max_blocks_per_sm = 32;
    int regs_per_sm = 65536;
    int regs_per_block = 65536;
    int max_regs_per_thread = 255;
    int smem_per_sm = 0;               // bytes usable by blocks on one SM
    int smem_per_block = 48 * 1024;    // default static limit per block
    int smem_per_block_optin = 0;      // with cudaFuncAttributeMaxDynamicSharedMemorySize
    int reserved_smem_per_block = 0;   // the driver's per-block reservation (1 KB on sm_80+)
    double clock_ghz = 0;
    double peak_fp32_gflops = 0;       // datasheet FP32 peak (non-tensor)
    // Dense tensor-core peaks with FP32 accumulation (datasheet; 0 where the architecture has none).
    double peak_tf32_gflops = 0, peak_bf16_gflops = 0, peak_fp16_gflops = 0;
    double dram_gbps = 0;              // datasheet DRAM bandwidth
    int l2_bytes = 0;                  // the L2 cache's size, read from the device (0: not known, the presets)
    std::string source;                // "datasheet" or "device"
    std::string peaks_note;            // how peak_fp32_gflops and dram_gbps were obtained
    // CUDA's launch limits (the same on every architecture TileLab targets; read from the device in GPU mode).
    int max_block_dim[3] = {1024, 1024, 64};
    long long max_grid_dim[3] = {2147483647LL, 65535, 65535};
    // Thread-block clusters of c blocks (index c, 2 … 8) that fit on the GPU at once, one block an
    // SM: a cluster's blocks share one GPC, so fewer fit than sm_count / c where a GPC's SMs are
    // not a multiple of c. Read from the device in GPU mode (cudaOccupancyMaxActiveClusters); 0
    // where not known (the presets, index 0 and 1): sm_count / c.
    int resident_clusters[9] = {};

    int arch() const { return sm_major * 10 + sm_minor; }  // 90
    // The compute roof for operands of type `input`: the FP32 peak for fp32, else the tensor peak.
    double peak_gflops(ElementType input) const;
    std::string arch_name() const;                          // "sm_90"
};

// Presets for model mode: T4, A100, RTX 4090, H100, H200 (datasheet figures).
const std::vector<Target>& target_presets();
// Finds a preset by key ("h100"), display name ("H100 SXM5") or arch ("sm_90" -> the first
// preset with it), matched exactly but ignoring case and surrounding spaces. Returns nullptr if
// nothing matches (input_policy.h's require_target adds "did you mean").
const Target* find_target(const std::string& key);

}  // namespace tilelab
