// A variant is one kernel of one lesson, declared as data next to its kernel: parameters,
// constraints with reasons, launch shape, tile geometry, cost model and the kernel to compile.
// Each lesson registers its variant (tilelab/registration.h); nothing anywhere switches on a kernel id.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>
#include "tilelab/banks.h"
#include "tilelab/params.h"
#include "tilelab/registration.h"
#include "tilelab/target.h"
#include "tilelab/tiles.h"

namespace tilelab {

// Which kernel to compile for a set of parameter values.
struct KernelInstance {
    std::string source_file;       // relative to kernels/: "matmul/02_smem_tiled.cuh"
    std::string name_expression;   // "smem_tiled_matmul<32, 1>"
    int max_registers = 0;         // -maxrregcount, 0 = none (register-pressure lesson)
};

struct LaunchShape {
    std::array<unsigned, 3> grid{1, 1, 1};
    std::array<unsigned, 3> block{1, 1, 1};
    unsigned dynamic_smem = 0;     // bytes
    int64_t threads_per_block() const { return int64_t(block[0]) * block[1] * block[2]; }
    int64_t blocks() const { return int64_t(grid[0]) * grid[1] * grid[2]; }
};

// Memory accesses, counted in 4-byte elements (a float4 load counts 4).
struct AccessCounts {
    double global_loads = 0, global_stores = 0, shared_loads = 0, shared_stores = 0;
    bool operator==(const AccessCounts&) const = default;
};

// One figure of the model with the formula that gives it, as shown in the UI.
struct Formula {
    std::string quantity;     // "global loads / thread"
    std::string expression;   // "2·K"
    double value = 0;
};

struct CostModel {
    double flops = 0;                 // total floating-point operations
    AccessCounts per_thread;          // for a full interior thread
    AccessCounts per_block;           // for a full interior block
    AccessCounts total;               // whole launch, exact (boundaries included)
    double global_bytes = 0;          // (total global loads + stores) · 4
    double intensity = 0;             // flops / global_bytes  (FLOP/B, "OP/B")
    double compulsory_bytes = 0;      // each input read once, each output written once
    std::vector<Formula> formulas;    // how the numbers above are derived
    std::vector<Formula> extras;      // variant-specific: halo fraction, register-array accesses ...
    // Shared-memory wavefronts and bank conflicts of every access site (tilelab/banks.h); filled
    // by the engine from Variant::shared_sites (empty for a kernel without shared memory).
    BankModel banks;
};

struct Variant {
    std::string id;        // "matmul.smem_tiled"
    std::string family;    // "matmul" or "stencil": buffers, reference, validation, kernel arguments
    std::string title;     // "Shared-memory tiled"
    std::string summary;   // one line
    std::vector<ParamSpec> params;

    // Empty when the combination can run; otherwise one sentence saying why not.
    // Generic limits (threads per block, shared memory vs the target) are checked by the engine too.
    std::function<std::string(const ParamValues&, const Problem&, const Target&)> invalid_reason;
    std::function<KernelInstance(const ParamValues&)> kernel;
    // Optional: the kernel for these parameters at this problem, where the problem picks among
    // instantiations (lesson 06: a body without bounds checks for sizes that are multiples of the
    // block tile). Unset: `kernel`. Use kernel_for(), which falls back on its own.
    std::function<KernelInstance(const ParamValues&, const Problem&)> kernel_at;
    std::function<LaunchShape(const ParamValues&, const Problem&)> launch;
    // How the launch cuts the problem into tiles, as the Tiles panel draws it (tilelab/tiles.h).
    // Agrees with launch: the grid walks ⌈extent / block tile⌉ blocks along each output axis.
    std::function<TileGeometry(const ParamValues&, const Problem&)> tiles;
    std::function<CostModel(const ParamValues&, const Problem&)> cost_model;
    // Static shared memory the kernel declares, in bytes (known before compiling; checked against ptxas).
    std::function<int(const ParamValues&)> smem_bytes;
    // Every shared-memory load and store of the kernel as the compiler emits it, with its address
    // per thread (tilelab/banks.h); unset for a kernel without shared memory.
    std::function<std::vector<SharedAccessSite>(const ParamValues&, const Problem&)> shared_sites;
};

// The variant's cost model with its bank model filled in: what the engine reports.
CostModel full_cost_model(const Variant& v, const ParamValues& params, const Problem& problem);

// The registry. The lessons' variants, in teaching order (the order of their folders).
const std::vector<Variant>& all_variants();
// Any registered variant, those added by add_variant() included; nullptr if none is called `id`.
const Variant* find_variant(const std::string& id);
// The kernel to compile for `params` at `problem`: Variant::kernel_at where set, else Variant::kernel.
inline KernelInstance kernel_for(const Variant& v, const ParamValues& params, const Problem& problem) {
    return v.kernel_at ? v.kernel_at(params, problem) : v.kernel(params);
}

// Registers `v` at run time without listing it in all_variants() (tests: a kernel that faults, a
// launch at a limit). A second variant with the same id replaces the first.
void add_variant(Variant v);

// The names of a family's three problem dimensions ({"M", "N", "K"}); empty for an unknown family.
std::array<std::string, 3> family_dim_names(const std::string& family);

// Kernel-argument conventions (the family owns them):
//   matmul : (const float* A, const float* B, float* C, int M, int N, int K, unsigned long long* counters)
//            A is M×K, B is K×N, C is M×N, all row-major.
//   stencil: (const float* in, float* out, int nx, int ny, int nz, unsigned long long* counters)
//            x fastest; coefficients in __constant__ float stencil_coef[13]: c0..c6 for the 7-point
//            stencil, c7..c12 for distance 2 (kernels/stencil/stencil_common.cuh).
// counters is nullptr unless compiled with TILELAB_COUNT=1 (kernels/common.cuh).

}  // namespace tilelab
