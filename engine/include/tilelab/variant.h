// A variant is one kernel of one lesson, declared as data next to its kernel: parameters,
// constraints with reasons, launch shape, tile geometry, cost model and the kernel to compile.
// Each lesson registers its variant (tilelab/registration.h); nothing anywhere switches on a kernel id.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>
#include "tilelab/banks.h"
#include "tilelab/params.h"
#include "tilelab/precision.h"
#include "tilelab/registration.h"
#include "tilelab/target.h"
#include "tilelab/tiles.h"

namespace tilelab {

// Which kernel to compile for a set of parameter values.
struct KernelInstance {
    std::string source_file;       // relative to kernels/: "matmul/smem_tiled.cuh"
    std::string name_expression;   // "smem_tiled_matmul<32, 1>"
    int max_registers = 0;         // -maxrregcount, 0 = none (register-pressure lesson)
    // Where not 0, the one architecture (90) whose sm_XXa target this kernel needs (wgmma, TMA,
    // setmaxnreg): compiled for sm_90a, run on sm_90 only. On any other target the engine still
    // analyses it (model, tiles) and says in one sentence why it is neither compiled nor run.
    int arch_specific = 0;
};

// A TMA tensor map (CUtensorMap) over one of the family's pointer arguments, encoded by the GPU
// worker (cuTensorMapEncodeTiled) before the first launch and passed after the family's
// arguments, in order, as a 128-byte `const __grid_constant__` parameter (TmaDescriptor, kernels/matmul/hopper.cuh).
// Elements out of the tensor read as zero. The worker checks nothing the driver does not: a map
// it refuses fails the run with the driver's error and this map's numbers.
struct TensorMapSpec {
    int arg = 0;                           // the family argument (kernel_args index) that holds the address
    int element_bytes = 2;                 // 1, 2, 4 or 8
    int rank = 2;                          // 1 to 5
    std::array<uint64_t, 5> dims{};        // the tensor, in elements, innermost first
    std::array<uint64_t, 4> strides{};     // bytes between steps of dims 1 … rank−1 (multiples of 16)
    std::array<uint32_t, 5> box{};         // one copy's box, in elements, each 1 to 256
    int swizzle = 0;                       // bytes: 0 (none), 32, 64 or 128
    bool operator==(const TensorMapSpec&) const = default;
};
inline constexpr int kMaxTensorMaps = 4;

struct LaunchShape {
    std::array<unsigned, 3> grid{1, 1, 1};
    std::array<unsigned, 3> block{1, 1, 1};
    unsigned dynamic_smem = 0;     // bytes
    std::vector<TensorMapSpec> tensor_maps{};   // appended to the arguments, at most kMaxTensorMaps
    // A persistent kernel's blocks walk the tiles themselves (grid.x = the tiles): where this is
    // above 0 the engine launches at most this many blocks per SM of the target (resident_on).
    int resident_per_sm = 0;
    // Thread-block clusters (sm_90): this many consecutive blocks along x are one cluster, launched
    // together on one GPC, sharing their shared memory (TMA multicast, remote mbarriers). grid[0]
    // is a multiple of it; 1 is an ordinary launch.
    unsigned cluster = 1;
    int64_t threads_per_block() const { return int64_t(block[0]) * block[1] * block[2]; }
    int64_t blocks() const { return int64_t(grid[0]) * grid[1] * grid[2]; }
};

// The launch as the engine makes it on `t`: a persistent kernel's grid cut to what stays resident,
// in whole clusters (as many as fit in the GPCs together: Target::resident_clusters).
inline LaunchShape resident_on(LaunchShape l, const Target& t) {
    if (l.resident_per_sm > 0 && t.sm_count > 0) {
        const int64_t c = std::max(1u, l.cluster);
        int64_t resident = int64_t(l.resident_per_sm) * t.sm_count / c * c;
        if (l.resident_per_sm == 1 && c < 9 && t.resident_clusters[c] > 0)   // the GPCs' own count, where read
            resident = std::min<int64_t>(resident, t.resident_clusters[c] * c);
        l.grid[0] = unsigned(std::min<int64_t>(l.grid[0], std::max(c, resident)));
    }
    return l;
}

// One of several kernels a variant launches in order, every one with the family's arguments (the
// plain attention path: the scores, the softmax, the weighted sum). The variant's own kernel
// (kernel_at) is one of them: the one the Code panel, registers, occupancy and stall samples are of.
// A pass may be launched several times in a row (`repeat`): the stencil's time steps, T at a
// time. Between launches the family may point the arguments at other buffers (Family::
// before_launch), so that each launch reads what the one before it wrote.
struct KernelPass {
    std::string label;             // "S = Q·Kᵀ/√d"
    KernelInstance kernel;         // from the same source file as the variant's kernel
    LaunchShape launch;
    int repeat = 1;                // launches of it in a row, 1 … kMaxPassRepeats
};
inline constexpr int kMaxPassRepeats = 1024;

// Memory accesses, counted in elements of the operand's type (a float4 load counts 4 floats;
// CostModel says how many bytes an element is).
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
    // Bytes of one counted element (tilelab/precision.h's element_bytes): global loads and shared
    // accesses are of the input type, global stores of the output type. FP32: 4 and 4.
    int load_element_bytes = 4, store_element_bytes = 4;
    // Bytes of one shared-memory element where the kernel widens its inputs on the way in (the
    // attention kernels stage floats whatever Q, K and V are in memory); 0: the input type's.
    int shared_widened_bytes = 0;
    double global_bytes = 0;          // total global loads · load bytes + stores · store bytes
    // The bytes of the total loads and stores. set_element_types makes them elements · element
    // bytes; a kernel whose operands differ in size (attention's plain path: FP32 scores beside
    // 16-bit weights) sets them, and global_bytes, from its operands after it.
    double global_load_bytes = 0, global_store_bytes = 0;
    double intensity = 0;             // flops / global_bytes  (FLOP/B, "OP/B")
    double compulsory_bytes = 0;      // each input read once, each output written once
    // Requests to the constant cache of the kernel's LDC instructions (run-time addressed
    // __constant__ reads): one per different address among a warp's lanes. Compared with the
    // counter idc__requests.sum; 0 where the kernel reads constants only at compile-time addresses.
    double constant_requests = 0;
    std::vector<Formula> formulas;    // how the numbers above are derived
    std::vector<Formula> extras;      // variant-specific: halo fraction, register-array accesses ...
    // The extra holding the intensity a textbook quotes for this kernel where it is not the whole
    // launch's (PMPP's stencil ratios count loads only, per thread or per block): shown, labelled,
    // beside `intensity`. "" = none.
    std::string quoted_intensity;
    // Shared-memory wavefronts and bank conflicts of every access site (tilelab/banks.h); filled
    // by the engine from Variant::shared_sites (empty for a kernel without shared memory).
    BankModel banks;

    // Element sizes from `p`, then global_bytes from the total counts (call after filling them).
    void set_element_types(const Precision& p) {
        load_element_bytes = element_bytes(p.input);
        store_element_bytes = element_bytes(p.output);
        global_load_bytes = load_element_bytes * total.global_loads;
        global_store_bytes = store_element_bytes * total.global_stores;
        global_bytes = global_load_bytes + global_store_bytes;
    }
    // Bytes of `elements` loads (stores): at the total's bytes per element (its operands' mix).
    double load_bytes(double elements) const {
        return total.global_loads > 0 && global_load_bytes > 0 ? elements * global_load_bytes / total.global_loads
                                                                : load_element_bytes * elements;
    }
    int shared_element_bytes() const { return shared_widened_bytes ? shared_widened_bytes : load_element_bytes; }
    double store_bytes(double elements) const {
        return total.global_stores > 0 && global_store_bytes > 0 ? elements * global_store_bytes / total.global_stores
                                                                  : store_element_bytes * elements;
    }
};

// A variant's functions at one set of parameter values. The lesson declares a config type, built
// once per request from the values (its parameters as plain members, by designated initialisers),
// with these functions as its members; define_variant<Config>() adapts it, here and nowhere else.
class VariantInstance {
public:
    virtual ~VariantInstance() = default;
    // Empty when the combination can run; otherwise one sentence saying why not.
    // Generic limits (threads per block, shared memory vs the target) are checked by the engine too.
    virtual std::string invalid_reason(const Problem& problem, const Target& target) const = 0;
    // The kernel to compile; kernel_at(problem) where the problem picks among instantiations
    // (lesson 06: a body without bounds checks for sizes that are multiples of the block tile).
    virtual KernelInstance kernel() const = 0;
    virtual KernelInstance kernel_at(const Problem& problem) const = 0;
    virtual bool picks_kernel_by_problem() const = 0;
    virtual LaunchShape launch(const Problem& problem) const = 0;
    // How the launch cuts the problem into tiles, as the Tiles panel draws it (tilelab/tiles.h).
    // Agrees with launch: the grid walks ⌈extent / block tile⌉ blocks along each output axis.
    virtual TileGeometry tiles(const Problem& problem) const = 0;
    // The model without its bank model (full_cost_model adds it from shared_sites), of the launch
    // the engine makes on `target` (a persistent kernel's grid cut to what stays resident: lesson
    // 22's stream-K shares its last rounds among those blocks). On Target{} (no SMs known) the grid
    // is not cut.
    virtual CostModel cost_model(const Problem& problem, const Target& target) const = 0;
    CostModel cost_model(const Problem& problem) const { return cost_model(problem, Target{}); }
    // Static shared memory the kernel declares, in bytes (known before compiling; checked against ptxas).
    virtual int smem_bytes() const = 0;
    // Every shared-memory load and store of the kernel as the compiler emits it, with its address
    // per thread (tilelab/banks.h); has_shared_sites() is false for a kernel without shared memory.
    virtual bool has_shared_sites() const = 0;
    virtual std::vector<SharedAccessSite> shared_sites(const Problem& problem) const = 0;
    // The element types it reads, accumulates in and writes (tilelab/precision.h).
    virtual Precision precision() const = 0;
    // What it computes beyond sizes and types, for its family (tilelab/params.h): {} for most.
    virtual FamilyOptions family_options() const = 0;
    // The kernels it launches in order where it launches several (KernelPass), its own among
    // them; empty for the usual one.
    virtual std::vector<KernelPass> passes(const Problem& problem) const = 0;
    // Empty for a kernel that computes the right result; else the sentence saying why it may
    // fail its check at this problem by design (a lesson's demonstration: lesson 14's naive
    // softmax overflowing FP16). The check still runs and says what it found.
    virtual std::string may_be_wrong(const Problem& problem) const = 0;
};

// The values of one request's parameters, as a lesson's config reads them (defaults filled in).
class ParamReader {
public:
    // Implicit, so that a function taking a reader takes a request's values as they are.
    ParamReader(const ParamValues& values) : values_(values) {}
    // The value of `name`; throws std::out_of_range naming it when the request lacks it.
    int operator[](const std::string& name) const;
    // The value of `name`, or `fallback` for a variant that does not declare it.
    int get(const std::string& name, int fallback) const { return param_or(values_, name, fallback); }
    bool flag(const std::string& name) const { return (*this)[name] != 0; }

private:
    const ParamValues& values_;
};

struct Variant {
    std::string id;        // "matmul.smem_tiled"
    std::string family;    // "matmul" or "stencil": buffers, reference, validation, kernel arguments
    std::string title;     // "Shared-memory tiled"
    std::string summary;   // one line
    std::vector<ParamSpec> params;
    // The parameter called `name`; null where the variant declares none.
    const ParamSpec* param(const std::string& name) const {
        for (const ParamSpec& p : params)
            if (p.name == name) return &p;
        return nullptr;
    }
    // What the config type declares (define_variant sets these from its members).
    bool declares_shared_sites = false;      // shared_sites(): a bank model
    bool declares_tiles = false;             // tiles(): the Tiles panel's picture
    bool picks_kernel_by_problem = false;    // kernel_at(): the problem picks the instantiation

    // The variant at `values` (defaults filled in for names it lacks), built once: the engine binds
    // once per request and asks the instance everything. Throws for a variant with no definition.
    std::shared_ptr<const VariantInstance> bind(const ParamValues& values) const;
    bool defined() const { return bool(make_instance); }
    std::function<std::shared_ptr<const VariantInstance>(const ParamValues&)> make_instance;

    // One question at `values`: binds, asks, forgets (tests, panels, the CLI's tables).
    std::string invalid_reason(const ParamValues& v, const Problem& p, const Target& t) const { return bind(v)->invalid_reason(p, t); }
    KernelInstance kernel(const ParamValues& v) const { return bind(v)->kernel(); }
    LaunchShape launch(const ParamValues& v, const Problem& p) const { return bind(v)->launch(p); }
    TileGeometry tiles(const ParamValues& v, const Problem& p) const { return bind(v)->tiles(p); }
    CostModel cost_model(const ParamValues& v, const Problem& p, const Target& t = {}) const { return bind(v)->cost_model(p, t); }
    int smem_bytes(const ParamValues& v) const { return bind(v)->smem_bytes(); }
    std::vector<SharedAccessSite> shared_sites(const ParamValues& v, const Problem& p) const { return bind(v)->shared_sites(p); }
    Precision precision(const ParamValues& v) const { return bind(v)->precision(); }
};

// What a variant is called and which parameters it declares: everything but its functions.
// Title and summary normally come from the lesson folder's strings (the registry fills them).
struct VariantInfo {
    std::string id{}, family{}, title{}, summary{};
    std::vector<ParamSpec> params{};
};

namespace detail {

// The one adapter from a lesson's config type to VariantInstance. Optional members: tiles,
// shared_sites, kernel_at, precision (FP32 throughout when absent), family_options ({}), smem_bytes (0),
// passes ({}: one kernel), may_be_wrong ("").
template <class Config>
class TypedInstance final : public VariantInstance {
public:
    explicit TypedInstance(Config c) : c_(std::move(c)) {}
    std::string invalid_reason(const Problem& p, const Target& t) const override { return c_.invalid_reason(p, t); }
    KernelInstance kernel() const override { return c_.kernel(); }
    KernelInstance kernel_at(const Problem& p) const override {
        if constexpr (requires { c_.kernel_at(p); }) return c_.kernel_at(p);
        else return c_.kernel();
    }
    bool picks_kernel_by_problem() const override { return requires(const Problem& p) { c_.kernel_at(p); }; }
    LaunchShape launch(const Problem& p) const override { return c_.launch(p); }
    TileGeometry tiles(const Problem& p) const override {
        if constexpr (requires { c_.tiles(p); }) return c_.tiles(p);
        else return {};
    }
    using VariantInstance::cost_model;
    // A config's model takes the target where it needs one (cost_model(p, t)), most do not.
    CostModel cost_model(const Problem& p, const Target& t) const override {
        if constexpr (requires { c_.cost_model(p, t); }) return c_.cost_model(p, t);
        else return c_.cost_model(p);
    }
    int smem_bytes() const override {
        if constexpr (requires { c_.smem_bytes(); }) return c_.smem_bytes();
        else return 0;
    }
    bool has_shared_sites() const override { return requires(const Problem& p) { c_.shared_sites(p); }; }
    std::vector<SharedAccessSite> shared_sites(const Problem& p) const override {
        if constexpr (requires { c_.shared_sites(p); }) return c_.shared_sites(p);
        else return {};
    }
    Precision precision() const override {
        if constexpr (requires { c_.precision(); }) return c_.precision();
        else return {};
    }
    FamilyOptions family_options() const override {
        if constexpr (requires { c_.family_options(); }) return c_.family_options();
        else return {};
    }
    std::vector<KernelPass> passes(const Problem& p) const override {
        if constexpr (requires { c_.passes(p); }) return c_.passes(p);
        else return {};
    }
    std::string may_be_wrong(const Problem& p) const override {
        if constexpr (requires { c_.may_be_wrong(p); }) return c_.may_be_wrong(p);
        else return {};
    }
    const Config& config() const { return c_; }

private:
    Config c_;
};

template <class Config>
const Config& config_of(const VariantInstance& i) { return static_cast<const TypedInstance<Config>&>(i).config(); }

}  // namespace detail

// A variant from its info and a config type: `Config::from(const ParamReader&)` builds the config
// (or `make`, for configs that carry more than the values, such as the tests' fixed kernels).
template <class Config, class Make>
Variant define_variant(VariantInfo info, Make make) {
    Variant v;
    v.id = std::move(info.id);
    v.family = std::move(info.family);
    v.title = std::move(info.title);
    v.summary = std::move(info.summary);
    v.params = std::move(info.params);
    auto bind = [make](const ParamValues& values) -> std::shared_ptr<const VariantInstance> {
        return std::make_shared<detail::TypedInstance<Config>>(make(ParamReader(values)));
    };
    v.make_instance = bind;
    v.declares_shared_sites = requires(const Config& c, const Problem& p) { c.shared_sites(p); };
    v.declares_tiles = requires(const Config& c, const Problem& p) { c.tiles(p); };
    v.picks_kernel_by_problem = requires(const Config& c, const Problem& p) { c.kernel_at(p); };
    return v;
}
template <class Config>
Variant define_variant(VariantInfo info) {
    return define_variant<Config>(std::move(info), [](const ParamReader& r) { return Config::from(r); });
}

// The variant's cost model with its bank model filled in: what the engine reports.
CostModel full_cost_model(const VariantInstance& v, const Problem& problem, const Target& target = {});
CostModel full_cost_model(const Variant& v, const ParamValues& params, const Problem& problem, const Target& target = {});

// The registry. The lessons' variants, in teaching order (the order of their folders).
const std::vector<Variant>& all_variants();
// Any registered variant, those added by add_variant() included; nullptr if none is called `id`.
const Variant* find_variant(const std::string& id);
// The kernel to compile for `params` at `problem`: Variant::kernel_at where set, else Variant::kernel.
inline KernelInstance kernel_for(const Variant& v, const ParamValues& params, const Problem& problem) {
    return v.bind(params)->kernel_at(problem);
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
