// The compile service: a compile request in, a cached result out. Kernel sources, the names a kernel
// may #include and the options are compile/sources.cpp; where the compile runs is compile/compiler.h:
// NVRTC in this process (the full build, compile/compile_nvrtc_cuda.cpp, which says how a request
// becomes a translation unit), or the GPU worker's NVRTC (the client-only build, TILELAB_CUDA=OFF,
// which has no CUDA Toolkit: the compiler the host installs, compiler.h).
//
// Cache (not for a user's text, which changes with every edit): the key hashes the NVRTC version,
// the text of every embedded source, the options, the name expression and the arch. Results live
// in memory (per service) and on disk (one file per key, written to a temporary name and renamed,
// so a reader never sees half a file; a file that does not check out is ignored and recompiled).
#include "tilelab/compile.h"
#include "tilelab/util.h"

#include <sys/stat.h>
#include <unistd.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <fmt/ranges.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "compile/compile_cache_testing.h"
#include "compile/compiler.h"
#include "tilelab/input_policy.h"
#include "tilelab/safe_file.h"

namespace tilelab {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

}  // namespace

int user_compile_limit_ms() {
    const char* env = std::getenv("TILELAB_COMPILE_LIMIT_S");
    if (!env || !*env) return 20000;
    char* end = nullptr;
    const long s = std::strtol(env, &end, 10);
    return end != env && !*end && s >= 1 && s <= 3600 ? int(s) * 1000 : 20000;
}

namespace {

// ---- disk format: CBOR (nlohmann, as the GPU worker protocol) of {"entry": {...}, "checksum"} --

// No real entry comes near this (a cubin is some hundreds of kB, its log a few kB); a larger
// file is not one of ours and is not read into memory.
constexpr size_t kMaxCacheEntryBytes = size_t(64) << 20;

constexpr const char* kFormat = "tilelab-cubin";
constexpr int kFormatVersion = 2;

// The checksum covers the entry's CBOR bytes: a flipped bit in a cubin is caught, not loaded.
uint64_t entry_checksum(const nlohmann::json& entry) {
    const std::vector<uint8_t> bytes = nlohmann::json::to_cbor(entry);
    return fnv1a(std::string(bytes.begin(), bytes.end()));
}

std::string encode(const std::string& key_text, const CompileResult& r) {
    const auto* cubin = reinterpret_cast<const uint8_t*>(r.cubin.data());
    const nlohmann::json entry = {{"format", kFormat},
                                  {"version", kFormatVersion},
                                  {"key", key_text},
                                  {"lowered_name", r.lowered_name},
                                  {"log", r.log},
                                  {"options", r.options},
                                  {"cubin", nlohmann::json::binary({cubin, cubin + r.cubin.size()})}};
    const std::vector<uint8_t> bytes = nlohmann::json::to_cbor({{"entry", entry}, {"checksum", entry_checksum(entry)}});
    return std::string(bytes.begin(), bytes.end());
}

// nullptr unless `bytes` is a whole, uncorrupted entry for exactly `key_text`.
std::shared_ptr<CompileResult> decode(const std::string& bytes, const std::string& key_text) {
    nlohmann::json doc;
    try {   // without exceptions a parse error is a discarded value; an absurd size still throws
        doc = nlohmann::json::from_cbor(bytes, /*strict=*/true, /*allow_exceptions=*/false);
    } catch (const nlohmann::json::exception&) {
        return nullptr;
    }
    if (!doc.is_object() || !doc.contains("entry") || !doc.contains("checksum")) return nullptr;
    const nlohmann::json& entry = doc.at("entry");
    const nlohmann::json& sum = doc.at("checksum");
    if (!entry.is_object() || !sum.is_number_unsigned() || sum.get<uint64_t>() != entry_checksum(entry)) return nullptr;
    const auto is_string = [&](const char* key) { return entry.contains(key) && entry.at(key).is_string(); };
    if (!is_string("format") || entry.at("format") != kFormat || entry.value("version", 0) != kFormatVersion ||
        !is_string("key") || !is_string("lowered_name") || !is_string("log") || !is_string("options") ||
        !entry.contains("cubin") || !entry.at("cubin").is_binary())
        return nullptr;
    auto r = std::make_shared<CompileResult>();
    r->lowered_name = entry.at("lowered_name").get<std::string>();
    r->log = entry.at("log").get<std::string>();
    r->options = entry.at("options").get<std::string>();
    const auto& cubin = entry.at("cubin").get_binary();
    if (entry.at("key") != key_text || cubin.empty() || r->lowered_name.empty()) return nullptr;
    r->cubin.assign(cubin.begin(), cubin.end());
    r->ptxas = parse_ptxas_report(r->log, r->lowered_name);
    r->ok = true;
    return r;
}

}  // namespace

namespace compile_cache_testing {
std::string encode_entry(const std::string& key_text, const CompileResult& r) { return encode(key_text, r); }
std::shared_ptr<CompileResult> decode_entry(const std::string& bytes, const std::string& key_text) {
    return decode(bytes, key_text);
}
size_t max_entry_bytes() { return kMaxCacheEntryBytes; }
}  // namespace compile_cache_testing

std::string default_cache_dir() {
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/tilelab";
    if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/tilelab";
    return {};
}

using ResultPtr = std::shared_ptr<const CompileResult>;

struct CompileService::Impl {
    // One memory-cache entry, or one compile in progress, with who asked for it first.
    struct Entry {
        ResultPtr result;
        CompileOrigin origin = CompileOrigin::Interactive;
    };
    struct Busy {
        std::shared_future<ResultPtr> result;
        CompileOrigin origin = CompileOrigin::Interactive;
    };

    std::string cache_dir;
    mutable std::mutex mutex;
    std::unordered_map<std::string, Entry> memory;   // key -> result as compiled
    std::unordered_map<std::string, Busy> busy;      // key -> compile in progress
    CompileStats stats;                              // guarded by mutex
    Backend backend;                                 // tests: instead of NVRTC and the disk
    std::atomic<bool> store_warned{false};           // the unwritable-cache notice is printed once

    fs::path file_for(const std::string& key) const { return fs::path(cache_dir) / (key + ".tlcubin"); }

    // Only a regular file of plausible size is read (no FIFO to wait on, no link to /dev/zero,
    // no directory); anything else is passed over and the kernel compiled again.
    std::shared_ptr<CompileResult> load(const std::string& key, const std::string& key_text) const {
        if (cache_dir.empty()) return nullptr;
        std::string bytes, error;
        if (read_regular_file(file_for(key).string(), kMaxCacheEntryBytes, bytes, error) != ReadOutcome::ok) return nullptr;
        return decode(bytes, key_text);
    }

    // A cache that cannot be written only costs the next run a compile, so it does not fail the
    // compile; but it says so, once per process, naming the path and the OS's reason.
    void store(const std::string& key, const std::string& key_text, const CompileResult& r) {
        if (cache_dir.empty()) return;
        std::error_code ec;
        fs::create_directories(cache_dir, ec);
        const std::string path = file_for(key).string();
        std::string error;
        struct stat st {};
        if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
            // Something odd sits at the entry's name (a directory, a FIFO, a link): leave it.
            error = shortened_path(path) + " is in the way (not a regular file)";
        } else {
            write_file_atomic(path, encode(key_text, r), error);
        }
        if (!error.empty() && !store_warned.exchange(true))
            std::fprintf(stderr, "tilelab: the compile cache is not being written (%s)\n", error.c_str());
    }

    static ResultPtr for_this_call(const ResultPtr& r, const char* level, Clock::time_point t0, CompileOrigin origin) {
        auto copy = std::make_shared<CompileResult>(*r);
        copy->cache_hit = level[0] != '\0';
        copy->cache_level = level;
        copy->compile_ms = ms_since(t0);
        copy->compiled_ahead = origin == CompileOrigin::Ahead;
        return copy;
    }

    // The key hashes everything that changes the cubin; key_text is stored with it on disk.
    static std::string key_of(const CompileRequest& req, const std::vector<std::string>& opts, std::string* key_text) {
        std::string text = fmt::format("nvrtc {}\nsources {}\nfile {}\nname {}\noptions {}\n", compiler_version(),
                                       sources_fingerprint(), req.source_file, req.name_expression, fmt::join(opts, " "));
        std::string key = hex64(fnv1a(text));
        if (key_text) *key_text = std::move(text);
        return key;
    }

    ResultPtr compile(const CompileRequest& req, CompileOrigin origin, Clock::time_point t0) {
        if (req.arch < 10)
            return for_this_call(failed_compile(fmt::format("'sm_{}' is not a GPU architecture.", req.arch)), "", t0, origin);
        const std::vector<std::string> opts = compiler_options(req);
        // A user's text changes with every keystroke: compiled each time, kept in neither cache.
        if (!req.source_text.empty()) {
            std::shared_ptr<CompileResult> r;
            try {
                r = compile_user_kernel(req, opts);   // in a process that a deadline can stop
            } catch (const CompilerUnavailable& e) {
                r = failed_compile(e.what());
                r->compiler_unavailable = true;
            } catch (const std::exception& e) {
                r = failed_compile(e.what());
            }
            {
                std::lock_guard lock(mutex);
                ++stats.nvrtc;
            }
            return for_this_call(r, "", t0, origin);
        }
        std::string key_text;
        const std::string key = key_of(req, opts, &key_text);

        std::promise<ResultPtr> promise;
        Backend fake;
        {
            std::unique_lock lock(mutex);
            fake = backend;
            if (auto it = memory.find(key); it != memory.end()) {
                ++stats.memory;
                return for_this_call(it->second.result, "memory", t0, it->second.origin);
            }
            if (auto it = busy.find(key); it != busy.end()) {
                // Someone is compiling the same thing (compile-ahead, or another request): wait for
                // theirs instead of compiling twice. Only this key waits; other keys go on.
                const Busy pending = it->second;
                ++stats.in_flight;
                ++stats.waiting_now;
                lock.unlock();
                const ResultPtr shared = pending.result.get();
                lock.lock();
                --stats.waiting_now;
                return for_this_call(shared, "in-flight", t0, pending.origin);
            }
            busy.emplace(key, Busy{promise.get_future().share(), origin});
        }

        // Nothing below may throw past here: waiters on `promise` would hang.
        const char* level = "disk";
        std::shared_ptr<CompileResult> r;
        bool about_the_input = true;   // not when the compiler could not be reached (CompilerUnavailable)
        try {
            if (fake) {
                level = "";
                r = fake(req);
            } else {
                r = load(key, key_text);
                if (!r) {
                    level = "";
                    r = compile_kernel(req, opts);
                    if (r->ok) store(key, key_text, *r);
                }
            }
            if (!r) r = failed_compile("The compile produced no result.");
        } catch (const CompilerUnavailable& e) {
            r = failed_compile(e.what());
            r->compiler_unavailable = true;
            about_the_input = false;
        } catch (const std::exception& e) {
            r = failed_compile(e.what());
        } catch (...) {
            r = failed_compile("The compile failed with an unknown exception.");
        }
        ResultPtr shared = r;
        {
            std::lock_guard lock(mutex);
            // Failures too: the same input fails the same way. Not a compiler out of reach: it may come back.
            if (about_the_input) memory[key] = Entry{shared, origin};
            busy.erase(key);
            ++(level[0] ? stats.disk : stats.nvrtc);
        }
        promise.set_value(shared);
        return for_this_call(shared, level, t0, origin);
    }

    bool known(const CompileRequest& req, bool or_in_flight) const {
        if (req.arch < 10 || !req.source_text.empty()) return false;
        const std::string key = key_of(req, compiler_options(req), nullptr);
        std::lock_guard lock(mutex);
        return memory.count(key) || (or_in_flight && busy.count(key));
    }
};

CompileService::CompileService(std::string cache_dir) : impl_(std::make_unique<Impl>()) {
    impl_->cache_dir = std::move(cache_dir);
}

CompileService::~CompileService() = default;

std::shared_ptr<const CompileResult> CompileService::compile(const CompileRequest& req, CompileOrigin origin) {
    const auto t0 = Clock::now();
    try {
        return impl_->compile(req, origin, t0);
    } catch (const std::exception& e) {
        auto r = failed_compile(e.what());
        r->compile_ms = ms_since(t0);
        return r;
    } catch (...) {
        auto r = failed_compile("The compile failed with an unknown exception.");
        r->compile_ms = ms_since(t0);
        return r;
    }
}

bool CompileService::in_memory(const CompileRequest& req) const {
    try {
        return impl_->known(req, false);
    } catch (const std::exception&) {
        return false;
    }
}

bool CompileService::in_memory_or_in_flight(const CompileRequest& req) const {
    try {
        return impl_->known(req, true);
    } catch (const std::exception&) {
        return false;
    }
}

CompileStats CompileService::stats() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->stats;
}

void CompileService::set_backend_for_testing(Backend backend) {
    std::lock_guard lock(impl_->mutex);
    impl_->backend = std::move(backend);
}

void CompileService::clear_memory_cache() {
    std::lock_guard lock(impl_->mutex);
    impl_->memory.clear();
}

}  // namespace tilelab
