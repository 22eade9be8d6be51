// DRAM bytes written during a kernel that writes nothing to memory (issue 30): a spin of a given
// length on every SM. Run under Nsight Compute to see whether a launch's dram__bytes_write holds
// traffic that is not the kernel's own (write-backs left in L2, background writes), and whether it
// grows with the launch's length:
//   nvcc -O3 -arch=sm_90 -o /tmp/spin scripts/probe_dram_background.cu
//   ncu --metrics dram__bytes_write.sum,dram__bytes_read.sum,gpu__time_duration.sum /tmp/spin 0.1 1 5
// Each argument is one launch's length in ms (default 0.1 1 5); the spin's result is kept in a
// register and written only if it comes out impossible (never), so the kernel stores nothing.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void spin(long long cycles, int* never) {
    const long long start = clock64();
    long long spins = 0;
    while (clock64() - start < cycles) ++spins;
    if (spins < 0) *never = int(spins);
}

int main(int argc, char** argv) {
    int sms = 0, khz = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
    int* never = nullptr;
    if (cudaMalloc(&never, sizeof(int)) != cudaSuccess) return 1;
    const char* fallback[] = {"0.1", "1", "5"};
    const int n = argc > 1 ? argc - 1 : 3;
    for (int i = 0; i < n; ++i) {
        const double ms = std::atof(argc > 1 ? argv[i + 1] : fallback[i]);
        spin<<<sms, 128>>>((long long)(ms * khz), never);
        if (cudaDeviceSynchronize() != cudaSuccess) return 1;
        std::printf("spin of %.3f ms at %d kHz on %d SMs\n", ms, khz, sms);
    }
    cudaFree(never);
    return 0;
}
