// Device detection and the Target of a real GPU. The peaks are computed from clocks and unit
// counts (the runtime reports no "peak FLOP/s"), and peaks_note says so with the arithmetic.
#include "device/probe.h"
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <cstdlib>
#include <cstring>
#include "device/cuda_check.h"
#include "tilelab/i18n.h"

namespace tilelab {
namespace {

bool model_mode_forced_by_environment() {
    const char* v = std::getenv("TILELAB_MODEL_MODE");
    return v && *v && std::strcmp(v, "0") != 0;
}

// Why cudaGetDeviceCount found nothing to run on, in words a user can act on.
std::string model_mode_reason(cudaError_t status) {
    int driver = 0, runtime = 0;
    (void)cudaDriverGetVersion(&driver);
    (void)cudaRuntimeGetVersion(&runtime);
    const auto version = [](int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); };
    switch (status) {
        case cudaErrorInsufficientDriver:
            if (driver == 0)
                return say("no CUDA driver: the NVIDIA driver (libcuda) is not installed or could not be loaded",
                           "没有 CUDA 驱动：NVIDIA 驱动（libcuda）未安装或无法加载");
            return say("CUDA driver too old: it supports CUDA {}, this build needs {}",
                       "CUDA 驱动太旧：它支持 CUDA {}，本程序需要 {}", version(driver), version(runtime));
        case cudaErrorNoDevice:
            return say("no CUDA device: the driver is loaded but found no GPU", "没有 CUDA 设备：驱动已加载，但没有找到 GPU");
        case cudaErrorStubLibrary:
            return say("no CUDA driver: only the toolkit's stub libcuda was found",
                       "没有 CUDA 驱动：只找到了工具包里的占位 libcuda（stub）");
        default:
            return say("no usable CUDA device: cudaGetDeviceCount: {}", "没有可用的 CUDA 设备：cudaGetDeviceCount：{}",
                       std::string(cudaGetErrorString(status)));
    }
}

int attribute(cudaDeviceAttr attr, int device) {
    int value = 0;
    TL_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
    return value;
}

Target target_from_device(int device, size_t& total_bytes) {
    cudaDeviceProp prop{};
    TL_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    Target t;
    t.name = prop.name;
    t.preset = "device";
    t.source = "device";
    t.sm_major = prop.major;
    t.sm_minor = prop.minor;
    t.sm_count = prop.multiProcessorCount;
    t.warp_size = prop.warpSize;
    t.max_threads_per_block = prop.maxThreadsPerBlock;
    t.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
    t.max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
    t.regs_per_sm = prop.regsPerMultiprocessor;
    t.regs_per_block = prop.regsPerBlock;
    t.smem_per_sm = int(prop.sharedMemPerMultiprocessor);
    t.smem_per_block = int(prop.sharedMemPerBlock);
    t.smem_per_block_optin = int(prop.sharedMemPerBlockOptin);
    t.reserved_smem_per_block = int(prop.reservedSharedMemPerBlock);
    for (int i = 0; i < 3; ++i) {
        t.max_block_dim[i] = prop.maxThreadsDim[i];
        t.max_grid_dim[i] = prop.maxGridSize[i];
    }
    t.l2_bytes = prop.l2CacheSize;
    total_bytes = prop.totalGlobalMem;

    // CUDA 13 dropped the clock fields from cudaDeviceProp; the attributes remain (kHz).
    const int clock_khz = attribute(cudaDevAttrClockRate, device);
    const int mem_clock_khz = attribute(cudaDevAttrMemoryClockRate, device);
    const int bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
    t.clock_ghz = clock_khz * 1e-6;

    // Peak FP32: every lane retires one FMA (2 FLOPs) per clock.
    const int lanes = fp32_lanes_per_sm(t.sm_major, t.sm_minor);
    t.peak_fp32_gflops = double(t.sm_count) * lanes * 2 * t.clock_ghz;
    // DRAM: double data rate, bus width in bits.
    t.dram_gbps = mem_clock_khz * 1e3 * (bus_bits / 8.0) * 2 / 1e9;
    t.peaks_note = fmt::format(
        "computed, not measured: peak FP32 = {} SMs × {} FP32 lanes × 2 FLOP × {:.2f} GHz = {:.0f} GFLOP/s; "
        "DRAM = {:.0f} MHz × {} bits / 8 × 2 = {:.0f} GB/s",
        t.sm_count, lanes, t.clock_ghz, t.peak_fp32_gflops, mem_clock_khz * 1e-3, bus_bits, t.dram_gbps);
    if (lanes == 0) t.peaks_note += fmt::format(" (FP32 lanes per SM unknown for sm_{})", t.arch());
    // Dense tensor peaks with FP32 accumulation, from FLOP per clock per SM by architecture.
    const TensorRates rates = tensor_flop_per_clock_per_sm(t.sm_major, t.sm_minor);
    const double sm_ghz = double(t.sm_count) * t.clock_ghz;
    t.peak_tf32_gflops = sm_ghz * rates.tf32;
    t.peak_bf16_gflops = sm_ghz * rates.bf16;
    t.peak_fp16_gflops = sm_ghz * rates.fp16;
    if (rates.fp16 > 0)
        t.peaks_note += fmt::format("; tensor peaks = SMs × GHz × FLOP/clock/SM (TF32 {}, BF16 {}, FP16 {})", rates.tf32,
                                    rates.bf16, rates.fp16);
    return t;
}

}  // namespace

TensorRates tensor_flop_per_clock_per_sm(int sm_major, int sm_minor) {
    // Dense, FP32 accumulation, from each architecture's whitepaper peak ÷ (SMs × boost clock):
    // Turing FP16 only; A100 and Hopper double per generation; GA10x/Ada GeForce parts run FP32
    // accumulation at half their FP16-accumulate rate.
    switch (sm_major * 10 + sm_minor) {
        case 75: return {0, 0, 1024};
        case 80: return {1024, 2048, 2048};
        case 86:
        case 87:
        case 89: return {256, 512, 512};
        case 90: return {2048, 4096, 4096};
        default: return {};
    }
}

int fp32_lanes_per_sm(int sm_major, int sm_minor) {
    const int arch = sm_major * 10 + sm_minor;
    // Architectures with 64 FP32 lanes per SM: P100, V100/Xavier, Turing, A100. Every other
    // architecture since Maxwell (consumer Pascal, GA10x, Ada, Hopper, Blackwell) has 128.
    if (arch == 60 || arch == 70 || arch == 72 || arch == 75 || arch == 80) return 64;
    return arch >= 50 ? 128 : 0;
}

DeviceProbe probe_device(bool force_model_mode, int device) {
    DeviceProbe probe;
    probe.device = device;
    if (force_model_mode || model_mode_forced_by_environment()) {
        probe.status.reason = force_model_mode ? say("model mode requested", "按要求进入模型模式")
                                               : say("model mode requested (TILELAB_MODEL_MODE)", "按要求进入模型模式（TILELAB_MODEL_MODE）");
        return probe;
    }
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
        probe.status.reason = model_mode_reason(status == cudaSuccess ? cudaErrorNoDevice : status);
        (void)cudaGetLastError();
        return probe;
    }
    probe.device_count = count;
    if (device < 0 || device >= count) {
        probe.status.reason = say("there is no GPU {} on this host: it has {} (numbered 0 to {})",
                                  "本机没有 GPU {}：它有 {} 块（编号 0 到 {}）", device, count, count - 1);
        return probe;
    }
    try {
        // Properties and attributes only: no CUDA context is created here (the engine's process
        // must not hold one; its GPU worker does). free_bytes is left to whoever has a context.
        probe.target = target_from_device(device, probe.status.total_bytes);
        probe.status.gpu = true;
        probe.status.name = probe.target.name;
    } catch (const CudaError& e) {
        probe.status = {};
        probe.status.reason = std::string("the CUDA device could not be used: ") + e.what();
    }
    return probe;
}

void device_memory(size_t& free_bytes, size_t& total_bytes) {
    TL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
}

}  // namespace tilelab
