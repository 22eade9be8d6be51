// Where kernels are compiled; the compile service (compile/compile.cpp) keeps the caches around it.
// The full build compiles with NVRTC in this process (compile_nvrtc_cuda.cpp); the client-only
// build (TILELAB_CUDA=OFF) has no NVRTC and asks the GPU worker to compile (the worker's "compile"
// request), through the compiler in another process that the host installs
// (host/compile_in_worker_nocuda.cpp). No CUDA types here.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include "tilelab/compile.h"

namespace tilelab {

// Thrown by compile_kernel() when no compiler could be reached (no worker, a lost link): the
// result is a failure but not one to remember for this input.
struct CompilerUnavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The compiler's version, part of every cache key ("13.0"); "" while no compiler is reachable.
std::string compiler_version();
// The options the compile passes (for the cache key and CompileResult::options).
std::vector<std::string> compiler_options(const CompileRequest& req);
// Compiles `req` for real. Compile errors are results (ok = false); throws CompilerUnavailable,
// or std::exception on a compiler API failure.
std::shared_ptr<CompileResult> compile_kernel(const CompileRequest& req, const std::vector<std::string>& opts);

// Compiles a user's kernel (CompileRequest::source_text) where it can be stopped: a worker
// process (a compile-only one of this machine in the full build, the GPU worker elsewhere in the
// client-only build), under a deadline (user_compile_limit_ms()). An #include of a FIFO or of a
// huge file, or macros that expand without end, end as a failed compile (ok = false) that says
// "the compile took longer than N s". Throws as compile_kernel() does.
std::shared_ptr<CompileResult> compile_user_kernel(const CompileRequest& req, const std::vector<std::string>& opts);
// TILELAB_COMPILE_LIMIT_S (1 to 3600) in milliseconds; 20 s without it.
int user_compile_limit_ms();

// A compiler in another process: what the host installs before its first compile
// (install_host_compilers(), engine/src/host/), so that this library needs nothing of the host's.
// Users' kernels go to `user_kernel` (both builds); in the client-only build every kernel goes to
// `kernel` and the version is `version`'s. Not installed: users' kernels compile in this process
// without a deadline (the full build's GPU worker and tools), and the client-only build compiles
// nothing (CompilerUnavailable).
struct OtherProcessCompiler {
    using Compile = std::function<std::shared_ptr<CompileResult>(const CompileRequest&, const std::vector<std::string>&)>;
    std::function<std::string()> version;
    Compile kernel, user_kernel;
};
void install_other_process_compiler(OtherProcessCompiler compiler);
// The one installed (empty functions if none).
OtherProcessCompiler other_process_compiler();

// ---- compile/sources.cpp: for every place a compile runs ------------------------------------------
// FNV-1a, 64 bit: tiny, and enough for a cache key whose full text is stored and compared too.
uint64_t fnv1a(const std::string& text, uint64_t h = 14695981039346656037ull);
// v as 16 hex digits.
std::string hex64(uint64_t v);
// The options every compile passes, wherever it runs (without the compiler's include folders).
std::vector<std::string> base_compile_options(const CompileRequest& req);
// The names a kernel may #include: each embedded source's path, plus its bare file name when unique.
const std::vector<std::pair<std::string, const std::string*>>& header_names_and_texts();
// Hash of every embedded kernel source: the worker compiles only for a client built from the same.
const std::string& sources_fingerprint();
// A result that did not compile, saying `error`.
std::shared_ptr<CompileResult> failed_compile(const std::string& error);
// The first line of the log that names an error; else its first line; else `fallback`.
std::string first_error_line(const std::string& log, const std::string& fallback);

}  // namespace tilelab
