// The ceilings every result is compared with: how fast this card copies memory, and how fast
// cuBLAS multiplies FP32 matrices. Both measured, never taken from a datasheet.
#include <fmt/format.h>
#include <algorithm>
#include "device/probe.h"
#include "gpu_worker/runner_gpu.h"

namespace tilelab {
namespace {

constexpr size_t kMiB = size_t(1) << 20;
constexpr size_t kCopyBytes = size_t(1) << 30;  // large enough that L2 plays no part
constexpr int kSgemmSize = 4096;
constexpr int kRepetitions = 10;

}  // namespace

Ceilings GpuRunner::measure_ceilings() {
    Ceilings c;
    try {
        // Copy: device to device, counted as read + write bytes. Sized to leave most memory free.
        size_t free_bytes = 0, total_bytes = 0;
        device_memory(free_bytes, total_bytes);
        const size_t bytes = std::min(kCopyBytes, free_bytes / 4) / kMiB * kMiB;
        double copy_ms = 0;
        {
            DeviceBuffer src(bytes), dst(bytes);
            TL_CUDA_CHECK(cudaMemset(src.get(), 0x3C, bytes));
            Timing t;
            time_launches([&] { TL_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, nullptr)); },
                          {1, kRepetitions, nullptr, nullptr}, t);
            copy_ms = t.median_ms;
        }
        c.copy_gbps = 2.0 * double(bytes) / (copy_ms * 1e6);

        // SGEMM: the matmul family's own reference timing at 4096³, random inputs, L2 flushed.
        double sgemm_ms = 0;
        {
            const std::unique_ptr<Family> matmul = make_family("matmul");
            const Problem p{{kSgemmSize, kSgemmSize, kSgemmSize}};
            matmul->setup(p, Precision{}, {}, 1);
            const TimingPlan plan{2, kRepetitions, &flusher(), nullptr};
            ScopedReferencePlan scoped(plan);
            std::string name;
            sgemm_ms = matmul->reference_ms(name);
        }
        c.sgemm_gflops = 2.0 * kSgemmSize * double(kSgemmSize) * kSgemmSize / (sgemm_ms * 1e6);
        c.measured = true;
        c.note = fmt::format("copy: {} MiB device to device, median of {} ({:.3f} ms), bytes read + written; "
                             "SGEMM: cuBLAS FP32 (pedantic) {}³, median of {} ({:.3f} ms), L2 flushed",
                             bytes / kMiB, kRepetitions, copy_ms, kSgemmSize, kRepetitions, sgemm_ms);
    } catch (const CudaError& e) {
        c = {};
        c.note = std::string("could not measure the ceilings: ") + e.what();
        note_error(e.code());
    } catch (const std::exception& e) {
        c = {};
        c.note = std::string("could not measure the ceilings: ") + e.what();
    }
    return c;
}

}  // namespace tilelab
