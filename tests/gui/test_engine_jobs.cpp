// The engine thread's queue and its rule (gui/engine_jobs.h), without an engine: what runs next,
// when a request waits out its debounce, how a full run queues behind its quick one, what a newer
// request cancels, and that the ceilings wait for a quiet second.
#include <gtest/gtest.h>
#include <thread>
#include "engine_jobs.h"

namespace tilelab::gui {
namespace {

using namespace std::chrono_literals;

RunRequest request(int tile) {
    RunRequest r;
    r.variant = "matmul.smem_tiled";
    r.params = {{"TILE", tile}};
    return r;
}

RunOptions quick() {
    RunOptions o;
    o.quick = true;
    return o;
}

const EngineSide kGpu{true, false};

EngineJobs::Choice choose(const EngineJobs& jobs, const EngineSide& side = kGpu,
                          Clock::time_point now = Clock::now()) {
    return jobs.choose(side, now);
}

TEST(EngineJobs, NothingWaitingIsNothingToDo) {
    EngineJobs jobs;
    const auto c = choose(jobs);
    EXPECT_EQ(c.kind, JobKind::Stop);
    EXPECT_FALSE(c.wake_at.has_value());
}

TEST(EngineJobs, AFirstChangeStartsAtOnceAMovingSliderWaitsOutItsDebounce) {
    EngineJobs jobs;
    jobs.submit(request(16), {}, 200ms, {}, false);
    EXPECT_EQ(choose(jobs).kind, JobKind::Interactive) << "the first change after a pause starts at once";
    const Job first = jobs.next(kGpu, [](bool) {});
    EXPECT_EQ(first.interactive.req, request(16));
    jobs.end_interactive();
    // The next change comes within the debounce: the slider is moving and the kernel is not compiled.
    jobs.submit(request(32), {}, 200ms, {}, false);
    const auto c = choose(jobs);
    EXPECT_EQ(c.kind, JobKind::Stop);
    EXPECT_TRUE(c.debouncing);
    ASSERT_TRUE(c.wake_at.has_value());
    EXPECT_EQ(choose(jobs, kGpu, *c.wake_at).kind, JobKind::Interactive) << "due once the debounce has passed";
    // A compiled kernel does not wait, even while the slider moves.
    jobs.submit(request(8), {}, 200ms, {}, true);
    EXPECT_EQ(choose(jobs).kind, JobKind::Interactive);
}

TEST(EngineJobs, TheNewestRequestReplacesTheWaitingOneAndCancelsTheOneInFlight) {
    EngineJobs jobs;
    jobs.submit(request(16), {}, 0ms, {}, false);
    const Job running = jobs.next(kGpu, [](bool) {});
    EXPECT_FALSE(jobs.cancel_run);
    jobs.submit(request(32), {}, 0ms, {}, false);
    jobs.submit(request(8), {}, 0ms, {}, false);
    EXPECT_TRUE(jobs.cancel_run) << "the run in flight is stopped between repetitions";
    EXPECT_TRUE(jobs.interactive_superseded());
    bool published = false;
    EXPECT_FALSE(jobs.publish_interactive(running.interactive, Phase::full, true, [&] { published = true; }));
    EXPECT_FALSE(published) << "a superseded result is not shown";
    jobs.end_interactive();
    const Job next = jobs.next(kGpu, [](bool) {});
    EXPECT_EQ(next.interactive.req, request(8)) << "only the newest of the waiting requests runs";
    EXPECT_FALSE(jobs.cancel_run);
}

TEST(EngineJobs, AFullRunQueuesBehindTheQuickRunOfTheSameValues) {
    EngineJobs jobs;
    const uint64_t quick_id = jobs.submit(request(16), quick(), 0ms, {}, false);
    const Job quick_job = jobs.next(kGpu, [](bool) {});
    jobs.submit(request(16), {}, 0ms, {}, false);   // the slider let go on the same value
    EXPECT_FALSE(jobs.cancel_run) << "the quick run is the fastest validated answer: it goes on";
    EXPECT_FALSE(jobs.interactive_superseded());
    bool published = false;
    EXPECT_TRUE(jobs.publish_interactive(quick_job.interactive, Phase::quick, true, [&] { published = true; }));
    EXPECT_TRUE(published);
    jobs.end_interactive();
    const Job full = jobs.next(kGpu, [](bool) {});
    EXPECT_EQ(full.kind, JobKind::Interactive);
    EXPECT_GT(full.interactive.id, quick_id);
    EXPECT_FALSE(full.interactive.opt.quick);
    EXPECT_TRUE(full.interactive.follow_up) << "its analysis is on screen already";
}

TEST(EngineJobs, TheLessonGoesFirstThenTheUsersKernelThenTuneThenSweeps) {
    EngineJobs jobs;
    jobs.submit_sweep({request(8), request(16)}, {}, 1);
    jobs.submit_tune(TuneJob{"matmul.smem_tiled", {}, "", 1});
    jobs.submit_user(request(16), UserKernel{}, {}, 0ms);
    jobs.submit(request(32), {}, 0ms, {}, false);
    std::vector<JobKind> order;
    for (int i = 0; i < 5; ++i) {
        Job job = jobs.next(kGpu, [](bool) {});
        order.push_back(job.kind);
        if (job.kind == JobKind::Interactive) jobs.end_interactive();
        if (job.kind == JobKind::User) jobs.end_user();
    }
    EXPECT_EQ(order, (std::vector<JobKind>{JobKind::Interactive, JobKind::User, JobKind::Tune, JobKind::Sweep,
                                           JobKind::Sweep}));
    EXPECT_EQ(choose(jobs).kind, JobKind::Stop);
}

TEST(EngineJobs, AUsersKernelWaitsWhileALessonRequestDebounces) {
    EngineJobs jobs;
    jobs.submit(request(16), {}, 300ms, {}, false);
    (void)jobs.next(kGpu, [](bool) {});
    jobs.end_interactive();
    jobs.submit(request(32), {}, 300ms, {}, false);   // debouncing now
    jobs.submit_user(request(16), UserKernel{}, {}, 0ms);
    EXPECT_EQ(choose(jobs).kind, JobKind::User) << "due, and the lesson's request is not";
    jobs.submit_sweep({request(8)}, {}, 1);
    (void)jobs.next(kGpu, [](bool) {});
    jobs.end_user();
    const auto c = choose(jobs);
    EXPECT_EQ(c.kind, JobKind::Stop) << "a sweep point does not start while a request debounces";
    EXPECT_TRUE(c.debouncing);
}

TEST(EngineJobs, ANewerTextCancelsTheUsersKernelInFlight) {
    EngineJobs jobs;
    jobs.submit_user(request(16), UserKernel{}, {}, 0ms);
    (void)jobs.next(kGpu, [](bool) {});
    EXPECT_TRUE(jobs.user_busy());
    jobs.submit_user(request(16), UserKernel{}, {}, 0ms);
    EXPECT_TRUE(jobs.cancel_user);
    bool published = false;
    EXPECT_FALSE(jobs.publish_user([&] { published = true; }));
    EXPECT_FALSE(published);
    jobs.end_user();
    EXPECT_TRUE(jobs.user_busy()) << "the newer text waits";
}

TEST(EngineJobs, ANewSweepReplacesTheOldOnesPointsAndCancelDropsThem) {
    EngineJobs jobs;
    jobs.submit_sweep({request(8), request(16), request(32)}, {}, 1);
    const Job first = jobs.next(kGpu, [](bool) {});
    EXPECT_EQ(first.sweep.first, 0u);
    EXPECT_EQ(first.sweep.reqs.size(), 1u) << "one point at a time on one GPU";
    jobs.submit_sweep({request(4)}, {}, 2);
    EXPECT_FALSE(jobs.sweep_current(1)) << "the old sweep's point in flight is stale";
    const Job next = jobs.next(kGpu, [](bool) {});
    EXPECT_EQ(next.sweep.generation, 2u);
    EXPECT_EQ(next.sweep.reqs.front(), request(4));
    jobs.submit_sweep({request(8), request(16)}, {}, 3);
    jobs.cancel_sweep();
    EXPECT_FALSE(jobs.sweep_waiting());
}

TEST(EngineJobs, OnAPoolOfGpusTheSweepTakesEveryPointLeft) {
    EngineJobs jobs;
    ASSERT_EQ(jobs.set_gpu_set("0,1"), "");
    EXPECT_NE(jobs.set_gpu_set("zero"), "") << "not a GPU set";
    jobs.submit_sweep({request(8), request(16), request(32)}, {}, 1);
    const Job job = jobs.next(kGpu, [](bool) {});
    EXPECT_EQ(job.sweep.reqs.size(), 3u);
    EXPECT_EQ(job.sweep.gpu_set, "0,1");
    EXPECT_FALSE(jobs.sweep_waiting());
    // In model mode a GPU set means nothing: one point at a time.
    jobs.submit_sweep({request(8), request(16)}, {}, 2);
    EXPECT_EQ(jobs.next(EngineSide{}, [](bool) {}).sweep.reqs.size(), 1u);
}

TEST(EngineJobs, TheCeilingsWaitForAQuietSecondAndOnlyOnAGpu) {
    EngineJobs jobs;
    const auto now = Clock::now();
    EXPECT_EQ(choose(jobs, EngineSide{false, true}, now + 2s).kind, JobKind::Stop) << "no GPU, no ceilings";
    const auto c = choose(jobs, EngineSide{true, true}, now);
    EXPECT_EQ(c.kind, JobKind::Stop);
    ASSERT_TRUE(c.wake_at.has_value());
    EXPECT_FALSE(c.debouncing);
    EXPECT_EQ(choose(jobs, EngineSide{true, true}, *c.wake_at).kind, JobKind::Ceilings);
    jobs.submit(request(16), {}, 0ms, {}, false);
    EXPECT_EQ(choose(jobs, EngineSide{true, true}, *c.wake_at).kind, JobKind::Interactive) << "the user first";
}

TEST(EngineJobs, ReconnectAndTargetGoBeforeEverythingAndStopEndsTheWait) {
    EngineJobs jobs;
    jobs.submit(request(16), {}, 0ms, {}, false);
    jobs.set_target(Target{});
    jobs.reconnect(GpuLocation{});
    EXPECT_TRUE(jobs.reconnect_waiting());
    EXPECT_EQ(jobs.next(kGpu, [](bool) {}).kind, JobKind::Reconnect);
    EXPECT_EQ(jobs.next(kGpu, [](bool) {}).kind, JobKind::Target);
    EXPECT_EQ(jobs.next(kGpu, [](bool) {}).kind, JobKind::Interactive);
    jobs.end_interactive();
    std::thread stopper([&] {
        std::this_thread::sleep_for(50ms);
        jobs.stop();
    });
    EXPECT_EQ(jobs.next(kGpu, [](bool) {}).kind, JobKind::Stop) << "an idle wait ends on stop()";
    stopper.join();
    EXPECT_TRUE(jobs.cancel_run);
}

// After a language switch the status is worded again before the request asked again is served, so
// the result that comes back reads in the new language; once, however often it was asked for.
TEST(EngineJobs, ARewordGoesBeforeTheRequestAskedAgain) {
    EngineJobs jobs;
    jobs.reword();
    jobs.submit(request(16), {}, 0ms, {}, false);
    jobs.reword();
    EXPECT_EQ(jobs.next(kGpu, [](bool) {}).kind, JobKind::Reword);
    EXPECT_EQ(jobs.next(kGpu, [](bool) {}).kind, JobKind::Interactive);
    jobs.end_interactive();
    EXPECT_EQ(choose(jobs).kind, JobKind::Stop);
}

}  // namespace
}  // namespace tilelab::gui
