// The bank probe: how the hardware serves one warp's shared-memory access. Each launch runs one
// warp that issues a single load or store of 4, 8 or 16 bytes per lane, at a byte offset chosen
// per lane from a table of patterns; Nsight Compute reads the shared wavefront and bank-conflict
// counters of every launch (scripts/bank_probe/run.sh). A launch with no active lane gives the
// baseline (the kernel's own set-up accesses), which run.sh subtracts. The result is the table
// tests/cpu/data/bank_probe_h100.txt that tests/cpu/test_banks.cpp replays against the bank model.
// Not part of the app: build with  nvcc -O2 -arch=sm_90 -o bank_probe bank_probe.cu
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

__global__ void probe(const int* offsets, int width, int store, float* out) {
    __shared__ __align__(16) float s[4096];
    const int lane = threadIdx.x;
    const int off = offsets[lane];   // byte offset, -1: the lane does not take part
    for (int i = lane; i < 4096; i += 32) s[i] = float(i);
    __syncthreads();
    float r = 0;
    if (off >= 0) {
        // Inline PTX, so the compiler emits exactly one access of the asked width.
        const unsigned a = unsigned(__cvta_generic_to_shared(reinterpret_cast<char*>(s) + off));
        float x, y, z, w;
        if (!store) {
            if (width == 4) {
                asm volatile("ld.shared.f32 %0, [%1];" : "=f"(x) : "r"(a));
                r = x;
            } else if (width == 8) {
                asm volatile("ld.shared.v2.f32 {%0,%1}, [%2];" : "=f"(x), "=f"(y) : "r"(a));
                r = x + y;
            } else {
                asm volatile("ld.shared.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(x), "=f"(y), "=f"(z), "=f"(w) : "r"(a));
                r = x + y + z + w;
            }
        } else {
            const float v = float(lane);
            if (width == 4) asm volatile("st.shared.f32 [%0], %1;" ::"r"(a), "f"(v) : "memory");
            else if (width == 8) asm volatile("st.shared.v2.f32 [%0], {%1,%1};" ::"r"(a), "f"(v) : "memory");
            else asm volatile("st.shared.v4.f32 [%0], {%1,%1,%1,%1};" ::"r"(a), "f"(v) : "memory");
        }
    }
    __syncthreads();
    out[lane] = r + s[lane];
}

int main() {
    struct P {
        std::string name;
        int width;
        std::function<int(int)> f;   // lane -> byte offset
    };
    std::vector<P> ps = {
        {"none", 4, [](int){return -1;}},
        {"w4 uniform", 4, [](int){return 0;}},
        {"w4 consecutive", 4, [](int l){return 4*l;}},
        {"w4 stride2", 4, [](int l){return 8*l;}},
        {"w4 halves-identical", 4, [](int l){return 4*(l%16);}},
        {"w8 uniform", 8, [](int){return 0;}},
        {"w8 half-uniform(0,8)", 8, [](int l){return l<16?0:8;}},
        {"w8 half-uniform(0,128)", 8, [](int l){return l<16?0:128;}},
        {"w8 consecutive", 8, [](int l){return 8*l;}},
        {"w8 halves-identical", 8, [](int l){return 8*(l%16);}},
        {"w8 h0 banks0-15,h1 banks16-31", 8, [](int l){return l<16? 8*(l%8) : 64+8*(l%8);}},
        {"w8 h0 banks0-15,h1 banks0-15 other words", 8, [](int l){return l<16? 8*(l%8) : 128+8*(l%8);}},
        {"w8 stride2", 8, [](int l){return 16*l;}},
        {"w8 quarter-uniform q*8", 8, [](int l){return 8*(l/8);}},
        {"w8 pairs-share", 8, [](int l){return 8*(l/2);}},
        {"w16 uniform", 16, [](int){return 0;}},
        {"w16 half-uniform(0,16)", 16, [](int l){return l<16?0:16;}},
        {"w16 half-uniform(0,128)", 16, [](int l){return l<16?0:128;}},
        {"w16 quarter-uniform q*16", 16, [](int l){return 16*(l/8);}},
        {"w16 quarter-uniform q*128", 16, [](int l){return 128*(l/8);}},
        {"w16 consecutive", 16, [](int l){return 16*l;}},
        {"w16 pairs-share", 16, [](int l){return 16*(l/2);}},
        {"w16 quarters-identical", 16, [](int l){return 16*(l%8);}},
        {"w16 halves-identical", 16, [](int l){return 16*(l%16);}},
        {"w16 q:0-63,64-127,128-191,192-255", 16, [](int l){return 64*(l/8)+16*(l%4);}},
        {"w16 q:0-63,128-191,64-127,192-255", 16, [](int l){int q=l/8; int base[4]={0,128,64,192}; return base[q]+16*(l%4);}},
        {"w16 q:0-63,128-191,256-319,384-447", 16, [](int l){return 128*(l/8)+16*(l%4);}},
        {"w16 stride2", 16, [](int l){return 32*l;}},
        {"w16 8-way in quarter", 16, [](int l){return 128*l;}},
        {"w16 lanes0-7 only consecutive", 16, [](int l){return l<8?16*l:-1;}},
        {"w16 even lanes consecutive", 16, [](int l){return l%2==0?16*(l/2):-1;}},
        {"w16 half0 only consecutive", 16, [](int l){return l<16?16*l:-1;}},
        {"w16 one quarter per bank-half,2 distinct", 16, [](int l){return (l/16)*64 + 16*(l%2);}},
        {"w16 quads (0,1,0,1)", 16, [](int l){return 16*(l%2);}},
        {"w16 quad k -> (k%2)*16", 16, [](int l){return 16*((l/4)%2);}},
        {"w16 quads identical (0,1,2,3)", 16, [](int l){return 16*(l%4);}},
        {"w16 quad-uniform 16*(l/4)", 16, [](int l){return 16*(l/4);}},
        {"w16 quads (0,1,2,2)", 16, [](int l){return 16*((l%4==3)? l-1 : l);}},
        {"w16 quads (0,0,0,1)+32q", 16, [](int l){return 16*(l%4==3 ? 1 : 0) + 32*(l/4);}},
        {"w8 quads identical (0,1,2,3)", 8, [](int l){return 8*(l%4);}},
        {"w8 quads (0,1,0,1)", 8, [](int l){return 8*(l%2);}},
        {"w8 quad-uniform 8*(l/4)", 8, [](int l){return 8*(l/4);}},
        {"w8 halves consecutive, same banks", 8, [](int l){return l<16 ? 8*l : 256+8*(l-16);}},
        {"w8 lanes0-7 only", 8, [](int l){return l<8 ? 8*l : -1;}},
        {"w8 pairs, halves same banks", 8, [](int l){return l<16 ? 8*(l/2) : 128+8*((l-16)/2);}},
        {"w8 quads (0,0,0,1)+16q", 8, [](int l){return 8*(l%4==3 ? 1 : 0) + 16*(l/4);}},
        {"w8 quads (0,1,2,2)", 8, [](int l){return 8*((l%4==3)? l-1 : l);}},
        {"w4 quads identical", 4, [](int l){return 4*(l%4);}},
        {"w4 2-way across halves", 4, [](int l){return l<16 ? 4*l : 128+4*(l-16);}},
    };

    int* d_offsets = nullptr;
    float* d_out = nullptr;
    if (cudaMalloc(&d_offsets, 32 * sizeof(int)) != cudaSuccess || cudaMalloc(&d_out, 32 * sizeof(float)) != cudaSuccess) {
        std::fprintf(stderr, "bank_probe: no GPU (%s)\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    // One line per launch, in launch order: op, width, the 32 offsets, the pattern's name.
    for (int store = 0; store < 2; ++store)
        for (const P& p : ps) {
            int h[32];
            for (int l = 0; l < 32; ++l) h[l] = p.f(l);
            cudaMemcpy(d_offsets, h, sizeof h, cudaMemcpyHostToDevice);
            probe<<<1, 32>>>(d_offsets, p.width, store, d_out);
            cudaDeviceSynchronize();
            std::printf("%s %d", store ? "st" : "ld", p.width);
            for (int l = 0; l < 32; ++l) std::printf(" %d", h[l]);
            std::printf(" # %s\n", p.name.c_str());
        }
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        std::fprintf(stderr, "bank_probe: %s\n", cudaGetErrorString(e));
        return 1;
    }
    return 0;
}
