// What gui/engine_thread.cpp and gui/engine_thread_user.cpp share: an engine call that cannot
// end the engine thread (an exception becomes a failed result).
#pragma once
#include <exception>
#include <memory>
#include <shared_mutex>
#include <string>
#include "tilelab/engine.h"

namespace tilelab::gui::detail {

inline std::shared_ptr<RunResult> failed_result(const RunRequest& req, const char* what) {
    auto r = std::make_shared<RunResult>();
    r->request = req;
    r->ok = false;
    r->stage = "engine";
    r->phase = Phase::full;
    r->error = std::string("The engine stopped with an error: ") + what + ".";
    return r;
}

// One engine call with the engine held shared (its target cannot change meanwhile); an exception
// becomes a failed result for `req` instead of ending the thread.
template <typename Call>
std::shared_ptr<RunResult> guarded(std::shared_mutex& engine_mutex, const RunRequest& req, Call&& call) {
    std::shared_lock engine_lock(engine_mutex);
    try {
        return std::make_shared<RunResult>(call());
    } catch (const std::exception& e) {
        return failed_result(req, e.what());
    }
}

}  // namespace tilelab::gui::detail
