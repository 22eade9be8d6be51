// The compile service: NVRTC compiles of the test kernels and of every variant at its default
// and boundary parameters for sm_75, sm_80 and sm_90; errors as results; the memory and disk
// caches. Needs no GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <iostream>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include "model/family_shape.h"
#include "tilelab/compile.h"
#include "tilelab/engine.h"
#include "tilelab/variant.h"

using namespace tilelab;
namespace fs = std::filesystem;

namespace {

// A fresh cache directory, removed at the end of the test.
class TempDir {
public:
    TempDir() {
        static std::atomic<int> counter{0};
        path_ = fs::temp_directory_path() /
                ("tilelab-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    std::string str() const { return path_.string(); }
    std::vector<fs::path> files() const {
        std::vector<fs::path> out;
        for (const auto& e : fs::directory_iterator(path_)) out.push_back(e.path());
        return out;
    }

private:
    fs::path path_;
};

CompileRequest scale_request(int tile = 128, int arch = 90) {
    return {.source_file = "test/scale.cuh", .name_expression = "tilelab_test_scale<" + std::to_string(tile) + ">", .arch = arch};
}

std::string read_file(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

void write_file(const fs::path& p, const std::string& bytes) {
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), std::streamsize(bytes.size()));
}

}  // namespace

TEST(Compile, TestKernelForEachArch) {
    CompileService service("");
    for (int arch : {75, 80, 89, 90}) {
        auto r = service.compile(scale_request(128, arch));
        ASSERT_TRUE(r->ok) << r->error << "\n" << r->log;
        EXPECT_EQ(r->error, "");
        EXPECT_FALSE(r->cache_hit);
        EXPECT_NE(r->lowered_name.find("tilelab_test_scale"), std::string::npos) << r->lowered_name;
        ASSERT_GT(r->cubin.size(), 4u);
        EXPECT_EQ(std::string(r->cubin.data(), 4), "\x7f" "ELF");  // a cubin is an ELF file
        EXPECT_TRUE(r->ptxas.parsed) << r->log;
        EXPECT_GT(r->ptxas.registers, 0);
        EXPECT_EQ(r->ptxas.smem_bytes, 128 * 4);  // __shared__ float staged[TILE]
        EXPECT_NE(r->options.find("--gpu-architecture=sm_" + std::to_string(arch)), std::string::npos);
        EXPECT_NE(r->options.find("-Xptxas=-v"), std::string::npos);
        EXPECT_EQ(r->options.find("fast_math"), std::string::npos);
        EXPECT_GT(r->compile_ms, 0);
    }
}

TEST(Compile, BrokenSourceIsAResultNotACrash) {
    CompileService service("");
    auto r = service.compile({.source_file = "test/broken.cuh", .name_expression = "tilelab_test_broken<1>", .arch = 90});
    EXPECT_FALSE(r->ok);
    EXPECT_NE(r->error.find("undeclared_variable"), std::string::npos) << r->error;
    EXPECT_EQ(r->error.find('\n'), std::string::npos) << "the error is one line";
    EXPECT_NE(r->log.find("error"), std::string::npos);
    EXPECT_TRUE(r->cubin.empty());
}

TEST(Compile, BadRequestsSayWhy) {
    CompileService service("");
    CompileRequest missing = scale_request();
    missing.source_file = "matmul/99_missing.cuh";
    auto r = service.compile(missing);
    EXPECT_FALSE(r->ok);
    EXPECT_NE(r->error.find("99_missing.cuh"), std::string::npos) << r->error;

    CompileRequest no_name = scale_request();
    no_name.name_expression = "";
    EXPECT_FALSE(service.compile(no_name)->ok);

    CompileRequest bad_template = scale_request();
    bad_template.name_expression = "tilelab_test_scale<int>";
    auto bad = service.compile(bad_template);
    EXPECT_FALSE(bad->ok);
    EXPECT_NE(bad->error, "");

    CompileRequest no_arch = scale_request();
    no_arch.arch = 0;
    EXPECT_FALSE(service.compile(no_arch)->ok);
}

// Kernels include each other by a name NVRTC can find: a path from kernels/ or a file name
// that is unique under kernels/ (see the convention in engine/src/compile/compile.cpp).
TEST(Compile, EveryIncludeResolves) {
    std::set<std::string> paths;
    std::map<std::string, int> file_names;
    for (const auto& p : embedded_source_paths()) {
        paths.insert(p);
        ++file_names[p.substr(p.rfind('/') + 1)];
    }
    ASSERT_TRUE(paths.count("common.cuh"));
    const std::regex include_line(R"re(^\s*#\s*include\s*"([^"]+)")re");
    for (const auto& p : paths) {
        std::istringstream text(*embedded_source(p));
        std::string line;
        while (std::getline(text, line)) {
            std::smatch m;
            if (!std::regex_search(line, m, include_line)) continue;
            std::string inc = m[1];
            EXPECT_TRUE(paths.count(inc) || file_names[inc] == 1) << p << " includes \"" << inc << "\"";
        }
    }
}

TEST(Compile, MemoryCacheHit) {
    CompileService service("");
    auto first = service.compile(scale_request());
    auto second = service.compile(scale_request());
    ASSERT_TRUE(first->ok && second->ok);
    EXPECT_FALSE(first->cache_hit);
    EXPECT_EQ(first->cache_level, "");
    EXPECT_TRUE(second->cache_hit);
    EXPECT_EQ(second->cache_level, "memory");
    EXPECT_EQ(first->cubin, second->cubin);
    EXPECT_EQ(first->ptxas.registers, second->ptxas.registers);

    // Anything in the key changes the result: template argument, register cap, defines, arch.
    CompileRequest capped = scale_request();
    capped.max_registers = 16;
    CompileRequest defined = scale_request();
    defined.defines = {"TILELAB_COUNT=1"};
    for (const auto& req : {scale_request(64), capped, defined, scale_request(128, 80)})
        EXPECT_FALSE(service.compile(req)->cache_hit) << req.name_expression;

    service.clear_memory_cache();
    EXPECT_FALSE(service.compile(scale_request())->cache_hit);
}

TEST(Compile, DiskCacheIsMuchFasterInAFreshService) {
    TempDir dir;
    CompileRequest req = scale_request();
    std::shared_ptr<const CompileResult> uncached, from_disk;
    {
        CompileService service(dir.str());
        uncached = service.compile(req);
    }
    ASSERT_TRUE(uncached->ok) << uncached->error;
    EXPECT_FALSE(uncached->cache_hit);
    ASSERT_EQ(dir.files().size(), 1u);
    {
        CompileService service(dir.str());
        from_disk = service.compile(req);
    }
    ASSERT_TRUE(from_disk->ok) << from_disk->error;
    EXPECT_TRUE(from_disk->cache_hit);
    EXPECT_EQ(from_disk->cache_level, "disk");
    EXPECT_EQ(from_disk->cubin, uncached->cubin);
    EXPECT_EQ(from_disk->lowered_name, uncached->lowered_name);
    EXPECT_EQ(from_disk->log, uncached->log);
    EXPECT_EQ(from_disk->options, uncached->options);
    EXPECT_EQ(from_disk->ptxas.registers, uncached->ptxas.registers);
    EXPECT_EQ(from_disk->ptxas.smem_bytes, uncached->ptxas.smem_bytes);
    EXPECT_LT(from_disk->compile_ms * 5, uncached->compile_ms)
        << "disk " << from_disk->compile_ms << " ms, NVRTC " << uncached->compile_ms << " ms";
    EXPECT_LT(from_disk->compile_ms, 50);
}

TEST(Compile, CorruptCacheFileIsRecompiled) {
    TempDir dir;
    CompileRequest req = scale_request();
    std::shared_ptr<const CompileResult> good;
    {
        CompileService service(dir.str());
        good = service.compile(req);
    }
    ASSERT_TRUE(good->ok);
    ASSERT_EQ(dir.files().size(), 1u);
    const fs::path file = dir.files()[0];
    const std::string original = read_file(file);

    std::string flipped = original;
    flipped[flipped.size() / 2] ^= 0x5a;
    for (const std::string& damaged : {flipped, original.substr(0, original.size() / 3), std::string("junk"),
                                       std::string()}) {
        write_file(file, damaged);
        CompileService service(dir.str());
        auto r = service.compile(req);
        ASSERT_TRUE(r->ok) << r->error;
        EXPECT_FALSE(r->cache_hit) << "a damaged file of " << damaged.size() << " bytes was believed";
        EXPECT_EQ(r->cubin, good->cubin);
        // ... and the file is good again.
        CompileService next(dir.str());
        EXPECT_EQ(next.compile(req)->cache_level, "disk");
    }
    // No temporary files are left behind.
    EXPECT_EQ(dir.files().size(), 1u);
}

TEST(Compile, ConcurrentCompilesAllSucceed) {
    TempDir dir;
    CompileService service(dir.str());
    std::vector<std::shared_ptr<const CompileResult>> results(8);
    std::vector<std::thread> threads;
    for (int i = 0; i < 8; ++i)
        threads.emplace_back([&, i] { results[i] = service.compile(scale_request(i % 2 ? 32 : 256)); });
    for (auto& t : threads) t.join();
    int compiled = 0;
    for (const auto& r : results) {
        ASSERT_TRUE(r->ok) << r->error;
        compiled += !r->cache_hit;
    }
    EXPECT_EQ(compiled, 2) << "each distinct request is compiled once, the others wait for it";
    EXPECT_EQ(dir.files().size(), 2u);
}

// ---- every variant, at its defaults and boundary values, for three architectures ----------

namespace {

Problem problem_for(const Variant& v) { return make_family_shape(v.family)->test_problem(); }

struct Config {
    std::string label;
    ParamValues params;
};

// Defaults, then each parameter alone at its smallest and largest value.
std::vector<Config> boundary_configs(const Variant& v) {
    std::vector<Config> out = {{"defaults", with_defaults(v.params, {})}};
    for (const auto& p : v.params) {
        auto values = p.values();
        for (int value : {values.front(), values.back()}) {
            if (value == p.def) continue;
            out.push_back({p.name + "=" + std::to_string(value), with_defaults(v.params, {{p.name, value}})});
        }
    }
    return out;
}

class VariantCompile : public ::testing::TestWithParam<size_t> {};

}  // namespace

TEST_P(VariantCompile, DefaultsAndBoundariesCompile) {
    const Variant& v = all_variants().at(GetParam());
    if (!v.defined()) GTEST_SKIP() << v.id << " has no kernel yet (placeholder variant).";
    const Problem problem = problem_for(v);

    struct Job {
        std::string what;
        CompileRequest req;
        int expected_smem = -1;
    };
    std::vector<Job> jobs;
    Engine model_engine(EngineConfig{"", /*force_model_mode=*/true});
    for (const char* arch : {"sm_75", "sm_80", "sm_90"}) {
        const Target& target = *find_target(arch);
        for (const auto& cfg : boundary_configs(v)) {
            // The whole check, as the engine makes it: the variant's own and the generic limits.
            model_engine.set_target(target);
            const std::string why = model_engine.invalid_reason(RunRequest{v.id, cfg.params, problem});
            // A kernel built for one architecture's sm_XXa (wgmma, TMA) is compiled for that one only.
            KernelInstance k = v.kernel(cfg.params);
            if (k.arch_specific != 0 && k.arch_specific != target.arch()) continue;
            if (cfg.label == "defaults") {
                EXPECT_EQ(why, "") << v.id << " defaults on " << arch;
            }
            if (!why.empty()) continue;  // the engine would refuse it with this sentence
            CompileRequest req{k.source_file, k.name_expression, target.arch(), k.max_registers, {}};
            req.arch_specific = k.arch_specific != 0;
            int smem = v.smem_bytes(cfg.params);
            jobs.push_back({v.id + " " + cfg.label + " " + arch + " (" + k.name_expression + ")", req, smem});
            if (cfg.label == "defaults") {
                // The instrumented build of the same kernel (model == counted tests use it).
                req.defines = {"TILELAB_COUNT=1"};
                jobs.push_back({v.id + " counting build " + arch, req, smem});
            }
        }
    }
    ASSERT_FALSE(jobs.empty());

    CompileService service("");
    std::vector<std::shared_ptr<const CompileResult>> results(jobs.size());
    std::atomic<size_t> next{0};
    std::vector<std::thread> workers;
    for (unsigned w = 0; w < std::max(2u, std::thread::hardware_concurrency()); ++w)
        workers.emplace_back([&] {
            for (size_t i; (i = next++) < jobs.size();) results[i] = service.compile(jobs[i].req);
        });
    for (auto& t : workers) t.join();

    for (size_t i = 0; i < jobs.size(); ++i) {
        const auto& r = results[i];
        // A slider position that takes this long to compile makes the app feel broken: say so.
        constexpr double slow_ms = 10000;
        if (r->compile_ms > slow_ms)
            std::cout << "[   SLOW   ] " << jobs[i].what << " took " << r->compile_ms / 1000 << " s to compile\n";
        SCOPED_TRACE(jobs[i].what);
        EXPECT_TRUE(r->ok) << r->error << "\n" << r->log;
        if (!r->ok) continue;
        EXPECT_TRUE(r->ptxas.parsed) << r->log;
        EXPECT_GT(r->ptxas.registers, 0);
        if (jobs[i].req.max_registers > 0) {
            EXPECT_LE(r->ptxas.registers, jobs[i].req.max_registers);
        }
        if (jobs[i].expected_smem >= 0) {
            EXPECT_EQ(r->ptxas.smem_bytes, jobs[i].expected_smem) << "smem_bytes() vs ptxas";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllVariants, VariantCompile, ::testing::Range<size_t>(0, all_variants().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                             std::string name = all_variants().at(info.param).id;
                             for (char& c : name)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return name.empty() ? "variant" + std::to_string(info.param) : name;
                         });
