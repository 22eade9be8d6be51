// Datasheet presets for model mode. Every figure says where it comes from:
//   [CC]  CUDA C++ Programming Guide, "Technical Specifications per Compute Capability" table
//         (registers, threads, blocks and shared memory per SM and per block).
//   [SMEM] CUDA C++ Programming Guide, shared-memory sections for compute capability 8.x/9.x:
//         1 KB of each block's shared memory is reserved for system use (cudaDeviceProp::
//         reservedSharedMemPerBlock); Turing (7.5) reserves none.
//   [DS]  the product's datasheet / architecture whitepaper (SM count, boost clock, FP32 peak,
//         DRAM bandwidth). FP32 peak = SMs × FP32 lanes per SM × 2 (FMA) × boost clock, which
//         tests/cpu/test_targets.cpp checks against the quoted figure.
#include "tilelab/target.h"

#include <algorithm>
#include <cctype>

namespace tilelab {
namespace {

constexpr int KiB = 1024;

// Limits common to every preset here: compute capability 7.5 to 9.0 all have them. [CC]
Target common_limits() {
    Target t;
    t.warp_size = 32;
    t.max_threads_per_block = 1024;
    t.regs_per_sm = 64 * KiB;
    t.regs_per_block = 64 * KiB;
    t.max_regs_per_thread = 255;
    t.smem_per_block = 48 * KiB;  // without the opt-in attribute
    t.source = "datasheet";
    return t;
}

Target tesla_t4() {
    Target t = common_limits();
    t.name = "Tesla T4";
    t.preset = "t4";
    t.sm_major = 7, t.sm_minor = 5;
    t.sm_count = 40;                    // [DS] T4 datasheet: 2560 CUDA cores = 40 SMs × 64
    t.max_threads_per_sm = 1024;        // [CC] 7.5: 32 warps per SM
    t.max_blocks_per_sm = 16;           // [CC] 7.5
    t.smem_per_sm = 64 * KiB;           // [CC] 7.5: 64 KB per SM
    t.smem_per_block_optin = 64 * KiB;  // [CC] 7.5: 64 KB per block
    t.reserved_smem_per_block = 0;      // [SMEM] none on Turing
    t.clock_ghz = 1.59;                 // [DS] boost clock 1590 MHz
    t.peak_fp32_gflops = 8100;          // [DS] 8.1 TFLOPS FP32
    t.peak_fp16_gflops = 65000;         // [DS] 65 TFLOPS mixed precision (FP16/FP32); no BF16 or TF32
    t.dram_gbps = 320;                  // [DS] 320 GB/s GDDR6
    return t;
}

Target a100_sxm4_40gb() {
    Target t = common_limits();
    t.name = "A100 SXM4 40GB";
    t.preset = "a100";
    t.sm_major = 8, t.sm_minor = 0;
    t.sm_count = 108;                    // [DS] A100 whitepaper: 108 SMs
    t.max_threads_per_sm = 2048;         // [CC] 8.0: 64 warps per SM
    t.max_blocks_per_sm = 32;            // [CC] 8.0
    t.smem_per_sm = 164 * KiB;           // [CC] 8.0: 164 KB per SM
    t.smem_per_block_optin = 163 * KiB;  // [CC] 8.0: 163 KB per block
    t.reserved_smem_per_block = 1 * KiB; // [SMEM]
    t.clock_ghz = 1.41;                  // [DS] boost clock 1410 MHz
    t.peak_fp32_gflops = 19500;          // [DS] 19.5 TFLOPS FP32
    t.peak_tf32_gflops = 156000;         // [DS] 156 TFLOPS TF32 tensor (dense)
    t.peak_bf16_gflops = t.peak_fp16_gflops = 312000;   // [DS] 312 TFLOPS BF16/FP16 tensor (dense)
    t.dram_gbps = 1555;                  // [DS] 1555 GB/s HBM2 (40 GB)
    return t;
}

Target rtx_4090() {
    Target t = common_limits();
    t.name = "GeForce RTX 4090";
    t.preset = "rtx4090";
    t.sm_major = 8, t.sm_minor = 9;
    t.sm_count = 128;                    // [DS] Ada whitepaper: 128 SMs
    t.max_threads_per_sm = 1536;         // [CC] 8.9: 48 warps per SM
    t.max_blocks_per_sm = 24;            // [CC] 8.9
    t.smem_per_sm = 100 * KiB;           // [CC] 8.9: 100 KB per SM
    t.smem_per_block_optin = 99 * KiB;   // [CC] 8.9: 99 KB per block
    t.reserved_smem_per_block = 1 * KiB; // [SMEM]
    t.clock_ghz = 2.52;                  // [DS] boost clock 2520 MHz
    t.peak_fp32_gflops = 82600;          // [DS] 82.6 TFLOPS FP32
    t.peak_tf32_gflops = 82600;          // [DS] Ada whitepaper: 82.6 TFLOPS TF32 tensor (dense)
    t.peak_bf16_gflops = t.peak_fp16_gflops = 165200;   // [DS] 165.2 TFLOPS FP16/BF16 with FP32 accumulate (dense)
    t.dram_gbps = 1008;                  // [DS] 1008 GB/s GDDR6X
    return t;
}

// H100 and H200 share the GH100 die's SM (compute capability 9.0); they differ in memory.
Target hopper(const char* name, const char* key, double dram_gbps) {
    Target t = common_limits();
    t.name = name;
    t.preset = key;
    t.sm_major = 9, t.sm_minor = 0;
    t.sm_count = 132;                    // [DS] SXM5 parts: 132 SMs
    t.max_threads_per_sm = 2048;         // [CC] 9.0: 64 warps per SM
    t.max_blocks_per_sm = 32;            // [CC] 9.0
    t.smem_per_sm = 228 * KiB;           // [CC] 9.0: 228 KB per SM
    t.smem_per_block_optin = 227 * KiB;  // [CC] 9.0: 227 KB per block
    t.reserved_smem_per_block = 1 * KiB; // [SMEM]
    t.clock_ghz = 1.98;                  // [DS] boost clock 1980 MHz
    t.peak_fp32_gflops = 67000;          // [DS] 67 TFLOPS FP32
    t.peak_tf32_gflops = 494700;         // [DS] 494.7 TFLOPS TF32 tensor (dense; 989 with sparsity)
    t.peak_bf16_gflops = t.peak_fp16_gflops = 989400;   // [DS] 989.4 TFLOPS BF16/FP16 tensor (dense)
    t.dram_gbps = dram_gbps;
    return t;
}

std::string lowered(const std::string& s) {
    std::string out;
    for (char c : s) out += char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string trimmed(const std::string& s) {
    const size_t b = s.find_first_not_of(" \t");
    return b == std::string::npos ? "" : s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

}  // namespace

std::string Target::arch_name() const { return "sm_" + std::to_string(arch()); }

double Target::peak_gflops(ElementType input) const {
    switch (input) {
        case ElementType::f32: return peak_fp32_gflops;
        case ElementType::tf32: return peak_tf32_gflops;
        case ElementType::bf16: return peak_bf16_gflops;
        case ElementType::f16: return peak_fp16_gflops;
    }
    return 0;
}

const std::vector<Target>& target_presets() {
    static const std::vector<Target> presets = {
        tesla_t4(),
        a100_sxm4_40gb(),
        rtx_4090(),
        hopper("H100 SXM5", "h100", 3350),  // [DS] 3.35 TB/s HBM3
        hopper("H200 SXM", "h200", 4800),   // [DS] 4.8 TB/s HBM3e
    };
    return presets;
}

const Target* find_target(const std::string& key) {
    // Exactly one of the names, ignoring case and surrounding spaces: nothing is dropped before
    // comparing, so "h-1 0 0" or a name with stray bytes is not quietly taken for the H100.
    const std::string want = lowered(trimmed(key));
    if (want.empty()) return nullptr;
    const auto& presets = target_presets();
    for (const auto& t : presets)
        if (lowered(t.preset) == want || lowered(t.name) == want) return &t;
    for (const auto& t : presets)
        if (t.arch_name() == want) return &t;
    return nullptr;
}

}  // namespace tilelab
