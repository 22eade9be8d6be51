// What the CPU-run tests of several lessons share: a kernel's PTX run on the CPU (engine/src/cpu/)
// at the request's problem, checked as the lesson tests check it.
#pragma once
#include <gtest/gtest.h>
#include <cstdint>
#include <optional>
#include <string>
#include "model_engine.h"
#include "tilelab/engine.h"

namespace tilelab::test {

// Options that ask for the CPU run (engine/src/cpu/): at `problem` where given (else the run's own
// CPU size), with the inputs drawn from `seed`.
inline RunOptions cpu_run_options(std::optional<Problem> problem = {}, uint64_t seed = 1234) {
    RunOptions o;
    o.cpu_check = true;
    o.seed = seed;
    o.cpu_problem = problem;
    return o;
}

// The kernel's PTX run on the CPU at the request's problem (engine/src/cpu/): validated, and every
// access it counted (global and shared, loads and stores) equal to the model's.
inline void expect_cpu_run_passes_with_the_models_counts(const RunRequest& req, uint64_t seed) {
    const RunResult r = model_engine().run(req, cpu_run_options(req.problem, seed));
    ASSERT_TRUE(r.cpu.has_value()) << r.stage << ": " << r.error;
    const CpuCheck& c = *r.cpu;
    EXPECT_EQ(c.status, "passed") << c.message << c.validation.message;
    EXPECT_EQ(c.counted.global_loads, c.model.global_loads);
    EXPECT_EQ(c.counted.global_stores, c.model.global_stores);
    EXPECT_EQ(c.counted.shared_loads, c.model.shared_loads);
    EXPECT_EQ(c.counted.shared_stores, c.model.shared_stores);
}

// The CPU run at the request's problem of the lesson's kernel, or of `text` run in its place (a
// copy of the lesson's kernel with a change put in); its status says "no CPU run: …" and why
// where there was none.
inline CpuCheck cpu_check_of(const RunRequest& req, const std::string* text = nullptr, uint64_t seed = 1234) {
    const RunOptions o = cpu_run_options(req.problem, seed);
    const RunResult r = text ? model_engine().run(req, UserKernel{"mine.cu", *text}, o) : model_engine().run(req, o);
    if (r.cpu) return *r.cpu;
    CpuCheck none;
    none.status = "no CPU run: " + r.error;
    return none;
}

// The CPU run's verdict ("passed", "failed", "needs_gpu", ...) on `text` run as the lesson's
// kernel at the request (a copy of the lesson's kernel with a mistake put in).
inline std::string cpu_status_of_text(const RunRequest& req, const std::string& text, uint64_t seed = 1234) {
    return cpu_check_of(req, &text, seed).status;
}

}  // namespace tilelab::test
