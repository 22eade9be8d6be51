// Compile ahead: while the user looks at a value, the values next to it are compiled in the
// background, so a drag finds them cached. These tests replace NVRTC with a fake compiler that
// counts its calls and can hold a compile until the test lets it go, so that "while X is being
// compiled" is a state the test controls, not a race it hopes to win. Runs everywhere.
#include <gtest/gtest.h>
#include <initializer_list>
#include <tuple>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include "fixed_variant.h"
#include "testing/engine_testing.h"
#include "tilelab/engine.h"

using namespace tilelab;
using namespace std::chrono_literals;

namespace {

// Long enough never to fire on a working build, however slow the machine; it only turns a hang
// (the bug under test) into a failure.
constexpr auto kHang = 60s;

// Stands in for NVRTC: a build is named by its name expression, plus " count" when instrumented.
class FakeCompiler {
public:
    static std::string name_of(const CompileRequest& r) {
        return r.name_expression + (r.defines.empty() ? "" : " count");
    }

    std::shared_ptr<CompileResult> compile(const CompileRequest& r) {
        const std::string name = name_of(r);
        std::unique_lock lock(m_);
        ++calls_[name];
        started_.insert(name);
        changed_.notify_all();
        changed_.wait(lock, [&] { return !held_.count(name); });
        auto out = std::make_shared<CompileResult>();
        out->ok = true;
        out->lowered_name = name;
        out->cubin = {'c'};
        out->ptxas.registers = 32;
        out->ptxas.parsed = true;
        return out;
    }

    // Compiles of `name` wait until release(name).
    void hold(const std::string& name) {
        std::lock_guard lock(m_);
        held_.insert(name);
    }
    void release(const std::string& name) {
        std::lock_guard lock(m_);
        held_.erase(name);
        changed_.notify_all();
    }
    void release_all() {
        std::lock_guard lock(m_);
        held_.clear();
        changed_.notify_all();
    }
    // Blocks until a compile of `name` has begun; false after kHang.
    bool wait_started(const std::string& name) {
        std::unique_lock lock(m_);
        return changed_.wait_for(lock, kHang, [&] { return started_.count(name) > 0; });
    }
    int calls(const std::string& name) {
        std::lock_guard lock(m_);
        const auto it = calls_.find(name);
        return it == calls_.end() ? 0 : it->second;
    }

private:
    std::mutex m_;
    std::condition_variable changed_;
    std::map<std::string, int> calls_;
    std::set<std::string> held_, started_;
};

// "test.ahead": one slider TILE = 4, 8, ..., 32 of which 12 and 20 cannot run, and a checkbox
// FLAG. Its kernel is named after both, so each combination is its own build.
void register_test_variant() {
    const VariantInfo info{
        .id = "test.ahead",
        .family = "matmul",
        .title = "compile-ahead test",
        .params = {{"TILE", "Tile", ParamKind::Int, 4, 32, 4, 16, "test"}, {"FLAG", "Flag", ParamKind::Bool, 0, 1, 1, 0, "test"}},
    };
    add_variant(tilelab::testing::fixed_variant(info, [](const ParamReader& p) {
        const int tile = p["TILE"];
        return tilelab::testing::FixedKernel{
            {"test/scale.cuh", "k<" + std::to_string(tile) + "," + std::to_string(p["FLAG"]) + ">"},
            [](const Problem&) { return LaunchShape{{1, 1, 1}, {32, 1, 1}, 0}; },
            [tile](const Problem&, const Target&) -> std::string {
                return tile == 12 || tile == 20 ? "This test refuses tiles of 12 and 20." : "";
            }};
    }));
}

RunRequest at(int tile, int flag = 0) { return {"test.ahead", {{"TILE", tile}, {"FLAG", flag}}, {{64, 64, 64}}}; }

std::string build_name(int tile, int flag = 0, bool counted = false) {
    return "k<" + std::to_string(tile) + "," + std::to_string(flag) + ">" + (counted ? " count" : "");
}

// An engine in model mode that compiles with the fake. Whatever a test leaves held is let go
// before the engine (and its compile-ahead thread) is destroyed.
struct Fixture {
    FakeCompiler fake;
    Engine engine{EngineConfig{"", /*force_model_mode=*/true}};
    Fixture() {
        register_test_variant();
        engine.compiler().set_backend_for_testing([this](const CompileRequest& r) { return fake.compile(r); });
    }
    ~Fixture() { fake.release_all(); }
    // Lists `tiles` to compile ahead with the first one's build held in its compile; false if
    // that compile never starts.
    bool compile_ahead_holding_first(std::initializer_list<int> tiles) {
        fake.hold(build_name(*tiles.begin()));
        std::vector<RunRequest> list;
        for (int tile : tiles) list.push_back(at(tile));
        engine.compile_ahead(list, /*instrumented_too=*/false);
        return fake.wait_started(build_name(*tiles.begin()));
    }
    // How many times each TILE's plain build was compiled: {TILE, times} for each.
    void expect_compiled(std::initializer_list<std::pair<int, int>> tiles_and_times) {
        for (const auto& [tile, times] : tiles_and_times) EXPECT_EQ(fake.calls(build_name(tile)), times) << "TILE=" << tile;
    }
};

std::vector<std::pair<int, int>> tiles_and_flags(const std::vector<RunRequest>& reqs) {
    std::vector<std::pair<int, int>> out;
    for (const auto& r : reqs) out.emplace_back(r.params.at("TILE"), r.params.at("FLAG"));
    return out;
}

}  // namespace

TEST(CompileAhead, NeighboursAreTheNearestValidValueEachSideOfEverySlider) {
    Fixture f;
    using P = std::vector<std::pair<int, int>>;
    // At TILE=16: 20 and 12 cannot run, so the neighbours are 24 and 8; FLAG has only one.
    EXPECT_EQ(tiles_and_flags(f.engine.neighbours(at(16), "TILE", +1)), (P{{24, 0}, {8, 0}, {16, 1}}));
    // Dragging down: the value below comes first.
    EXPECT_EQ(tiles_and_flags(f.engine.neighbours(at(16), "TILE", -1)), (P{{8, 0}, {24, 0}, {16, 1}}));
    // The parameter just changed comes first.
    EXPECT_EQ(tiles_and_flags(f.engine.neighbours(at(16, 1), "FLAG")), (P{{16, 0}, {8, 1}, {24, 1}}));
    // At the ends of the slider there is only one side.
    EXPECT_EQ(tiles_and_flags(f.engine.neighbours(at(32))), (P{{28, 0}, {32, 1}}));
    EXPECT_EQ(tiles_and_flags(f.engine.neighbours(at(4))), (P{{8, 0}, {4, 1}}));
    // Every neighbour can run.
    for (const RunRequest& r : f.engine.neighbours(at(24), "TILE", +1))
        EXPECT_EQ(f.engine.invalid_reason(r), "") << r.params.at("TILE");
}

TEST(CompileAhead, CompilesThePlainAndTheInstrumentedBuildSoAnalyzeFindsThemCached) {
    Fixture f;
    const std::vector<RunRequest> next = f.engine.neighbours(at(16), "TILE", +1);
    EXPECT_FALSE(f.engine.kernel_in_memory(next[0]));
    f.engine.compile_ahead(next, /*instrumented_too=*/true);
    ASSERT_TRUE(f.engine.wait_compile_ahead_idle(kHang));
    for (const RunRequest& r : next) {
        const int tile = r.params.at("TILE"), flag = r.params.at("FLAG");
        EXPECT_EQ(f.fake.calls(build_name(tile, flag)), 1) << tile << "," << flag;
        EXPECT_EQ(f.fake.calls(build_name(tile, flag, true)), 1) << tile << "," << flag;
        EXPECT_TRUE(f.engine.kernel_in_memory(r));
    }
    const CompileAheadStats stats = f.engine.compile_ahead_stats();
    EXPECT_EQ(stats.compiled, 2 * next.size());
    EXPECT_TRUE(stats.idle());

    // The user moves to the next value: no compile, and the result says it was compiled ahead.
    const RunResult r = f.engine.analyze(next[0]);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.compiled->cache_level, "memory");
    EXPECT_TRUE(r.stages.compile_cached);
    EXPECT_TRUE(r.stages.prefetch_hit);
    EXPECT_EQ(f.fake.calls(build_name(24)), 1);
    // A value the user compiled themselves is cached but not a prefetch hit.
    f.engine.analyze(at(4));
    const RunResult again = f.engine.analyze(at(4));
    EXPECT_TRUE(again.stages.compile_cached);
    EXPECT_FALSE(again.stages.prefetch_hit);
}

TEST(CompileAhead, SkipsInvalidRequestsAndWhatIsAlreadyCompiled) {
    Fixture f;
    f.engine.analyze(at(8));   // compiled by the user
    f.engine.compile_ahead({at(12), at(20), at(8), at(28)}, /*instrumented_too=*/false);
    ASSERT_TRUE(f.engine.wait_compile_ahead_idle(kHang));
    f.expect_compiled({{12, 0}, {20, 0}, {8, 1}, {28, 1}});
    const CompileAheadStats s = f.engine.compile_ahead_stats();
    EXPECT_EQ(std::tuple(s.invalid, s.already, s.compiled), std::tuple(2u, 1u, 1u)) << "invalid, already, compiled";
}

TEST(CompileAhead, TwoCallersOfOneKeyCompileItOnce) {
    FakeCompiler fake;
    CompileService service("");
    service.set_backend_for_testing([&](const CompileRequest& r) { return fake.compile(r); });
    const CompileRequest req{"test/scale.cuh", "k<1,0>", 90, 0, {}};
    fake.hold("k<1,0>");
    auto ahead = std::async(std::launch::async, [&] { return service.compile(req, CompileOrigin::Ahead); });
    ASSERT_TRUE(fake.wait_started("k<1,0>"));
    EXPECT_FALSE(service.in_memory(req));
    EXPECT_TRUE(service.in_memory_or_in_flight(req));
    auto interactive = std::async(std::launch::async, [&] { return service.compile(req); });
    // The second caller is waiting on the first's compile (or, were that broken, compiling it again) ...
    while (service.stats().waiting_now == 0 && fake.calls("k<1,0>") < 2) std::this_thread::yield();
    fake.release("k<1,0>");
    const auto mine = interactive.get();
    const auto theirs = ahead.get();
    // ... so NVRTC ran once, and both got its result.
    EXPECT_EQ(fake.calls("k<1,0>"), 1);
    EXPECT_EQ(theirs->cache_level, "");
    EXPECT_EQ(mine->cache_level, "in-flight");
    EXPECT_TRUE(mine->compiled_ahead);
    EXPECT_EQ(mine->cubin, theirs->cubin);
    EXPECT_EQ(service.stats().in_flight, 1u);
    EXPECT_EQ(service.stats().nvrtc, 1u);
    EXPECT_TRUE(service.in_memory(req));
}

TEST(CompileAhead, ANewListReplacesTheOldQueue) {
    Fixture f;
    ASSERT_TRUE(f.compile_ahead_holding_first({4, 8, 16}));
    // The user moved on: a new guess replaces what was still waiting (8 and 16).
    f.engine.compile_ahead({at(28)}, /*instrumented_too=*/false);
    f.fake.release(build_name(4));
    ASSERT_TRUE(f.engine.wait_compile_ahead_idle(kHang));
    f.expect_compiled({{4, 1} /* in progress: it finished */, {8, 0}, {16, 0}, {28, 1}});
    const CompileAheadStats s = f.engine.compile_ahead_stats();
    EXPECT_EQ(std::tuple(s.lists, s.dropped, s.compiled), std::tuple(2u, 2u, 2u)) << "lists, dropped, compiled";
}

TEST(CompileAhead, TheUsersRequestDoesNotWaitForAnUnrelatedCompileAhead) {
    Fixture f;
    ASSERT_TRUE(f.compile_ahead_holding_first({4}));
    // While the guess is stuck in its compile, the user asks for something else: it is compiled
    // at once, on the caller's thread.
    auto mine = std::async(std::launch::async, [&] { return f.engine.analyze(at(28)); });
    const bool finished = mine.wait_for(kHang) == std::future_status::ready;
    f.fake.release(build_name(4));
    ASSERT_TRUE(finished) << "the user's compile waited for an unrelated compile-ahead";
    const RunResult r = mine.get();
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.compiled->cache_level, "");
    EXPECT_FALSE(r.stages.prefetch_hit);
}

TEST(CompileAhead, TheUsersRequestForTheBuildInProgressWaitsForIt) {
    Fixture f;
    ASSERT_TRUE(f.compile_ahead_holding_first({8}));
    auto mine = std::async(std::launch::async, [&] { return f.engine.analyze(at(8)); });
    while (f.engine.compiler().stats().waiting_now == 0 && f.fake.calls(build_name(8)) < 2) std::this_thread::yield();
    f.fake.release(build_name(8));
    const RunResult r = mine.get();
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(f.fake.calls(build_name(8)), 1);
    EXPECT_EQ(r.compiled->cache_level, "in-flight");
    EXPECT_FALSE(r.stages.compile_cached);   // it had to wait: not a hit
}
