// How long a compile takes: NVRTC from scratch, from the disk cache in a fresh service (a new
// run of the app), and from the memory cache (a slider dragged back). One row per variant at
// its default parameters, plus the compile service's own test kernel. Needs no GPU.
//
//   compile_bench [sm_XX] [disk repetitions]
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tilelab/compile.h"
#include "tilelab/kernel_build.h"
#include "tilelab/target.h"
#include "tilelab/variant.h"

using namespace tilelab;
namespace fs = std::filesystem;

namespace {

struct Row {
    std::string name;
    CompileRequest req;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
    const Target* target = find_target(argc > 1 ? argv[1] : "sm_90");
    if (!target) {
        fmt::print(stderr, "compile_bench: unknown target '{}'\n", argv[1]);
        return 2;
    }
    const int repetitions = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;

    std::vector<Row> rows;
    for (const auto& v : all_variants()) {
        if (!v.defined()) continue;
        const ParamValues defaults = with_defaults(v.params, {});
        KernelInstance k = v.kernel(defaults);
        rows.push_back({v.id, kernel_build(k, target->arch(), /*instrumented=*/false)});   // the engine's request (sm_90a where needed)
        // The problem picks the instantiation: also the one a 4096³ problem gets, where the variant
        // takes that size (attention reads it as a head width of 4096, which it refuses: NVRTC
        // would unroll a 4096-wide row and not finish in 15 minutes).
        const Problem large{{4096, 4096, 4096}};
        if (v.picks_kernel_by_problem && v.invalid_reason(defaults, large, *target).empty()) {
            k = kernel_for(v, defaults, large);
            rows.push_back({v.id + " @4096³", kernel_build(k, target->arch(), /*instrumented=*/false)});
        }
    }
    rows.push_back({"(test kernel)", {"test/scale.cuh", "tilelab_test_scale<128>", target->arch(), 0, {}}});

    const fs::path root = fs::temp_directory_path() / fmt::format("tilelab-compile-bench-{}", ::getpid());
    fs::remove_all(root);

    // NVRTC's first call in a process loads its builtins; that is not any one kernel's cost.
    {
        CompileService warmup("");
        warmup.compile({"test/scale.cuh", "tilelab_test_scale<32>", target->arch(), 0, {}});
    }

    fmt::print("Compile times on {} ({}), {} disk/memory repetitions (median)\n\n", target->arch_name(),
               target->name, repetitions);
    fmt::print("{:<30} {:<54} {:>5} {:>12} {:>9} {:>11}\n", "variant", "kernel", "regs", "NVRTC ms", "disk ms",
               "memory ms");
    double worst_uncached = 0, worst_disk = 0;
    int failures = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
        const Row& row = rows[i];
        const std::string dir = (root / std::to_string(i)).string();
        std::shared_ptr<const CompileResult> uncached;
        {
            CompileService service(dir);
            uncached = service.compile(row.req);
        }
        if (!uncached->ok) {
            fmt::print("{:<30} {:<54} failed: {}\n", row.name, row.req.name_expression, uncached->error);
            ++failures;
            continue;
        }
        std::vector<double> disk, memory;
        for (int r = 0; r < repetitions; ++r) {
            CompileService service(dir);  // fresh: nothing in memory yet
            auto from_disk = service.compile(row.req);
            if (from_disk->cache_level != "disk") {
                fmt::print(stderr, "compile_bench: {} was not read from the disk cache\n", row.name);
                ++failures;
            }
            disk.push_back(from_disk->compile_ms);
            memory.push_back(service.compile(row.req)->compile_ms);
        }
        worst_uncached = std::max(worst_uncached, uncached->compile_ms);
        worst_disk = std::max(worst_disk, median(disk));
        fmt::print("{:<30} {:<54} {:>5} {:>12.1f} {:>9.2f} {:>11.3f}\n", row.name, row.req.name_expression,
                   uncached->ptxas.registers, uncached->compile_ms, median(disk), median(memory));
    }
    fs::remove_all(root);
    fmt::print("\nslowest: NVRTC {:.1f} ms (goal <= 300), disk cache {:.2f} ms (goal <= 5)\n", worst_uncached,
               worst_disk);
    return failures ? 1 : 0;
}
