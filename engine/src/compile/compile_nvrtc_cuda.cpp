// The compiler of the full build (compiler.h): NVRTC in this process, which needs no GPU. The GPU
// worker uses the same code to answer a client-only build's "compile" requests.
//
// Each request compiles a one-line translation unit, #include "<source_file>", instantiates the
// kernel template through nvrtcAddNameExpression, and asks ptxas for its report (-Xptxas=-v)
// for registers, spills, stack and shared memory. A user's kernel (CompileRequest::source_text,
// an exercise) is the translation unit itself, named as the user's file, so NVRTC's errors carry
// the user's line numbers; the embedded files stay available to it as headers.
#include "compile/compiler.h"

#include <nvrtc.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <filesystem>
#include <sstream>

namespace tilelab {
namespace {

// One checked-call macro for NVRTC: throws with the call, file and line; compile() catches.
#define TL_NVRTC_CHECK(call) nvrtc_check((call), #call, __FILE__, __LINE__)

void nvrtc_check(nvrtcResult r, const char* call, const char* file, int line) {
    if (r != NVRTC_SUCCESS)
        throw std::runtime_error(fmt::format("{}:{}: {} failed: {}", file, line, call, nvrtcGetErrorString(r)));
}

class NvrtcProgram {
public:
    NvrtcProgram(const std::string& source, const std::string& name, const std::vector<const char*>& header_texts,
                 const std::vector<const char*>& header_names) {
        TL_NVRTC_CHECK(nvrtcCreateProgram(&prog_, source.c_str(), name.c_str(), int(header_texts.size()),
                                          header_texts.data(), header_names.data()));
    }
    ~NvrtcProgram() { nvrtcDestroyProgram(&prog_); }
    NvrtcProgram(const NvrtcProgram&) = delete;
    NvrtcProgram& operator=(const NvrtcProgram&) = delete;
    nvrtcProgram get() const { return prog_; }

private:
    nvrtcProgram prog_ = nullptr;
};

std::vector<std::string> cuda_include_dirs() {
    std::vector<std::string> dirs;
#ifdef TILELAB_CUDA_INCLUDE_DIR
    std::stringstream list(TILELAB_CUDA_INCLUDE_DIR);  // a CMake list: dir;dir
    std::string dir;
    std::error_code ec;
    while (std::getline(list, dir, ';'))
        if (!dir.empty() && std::filesystem::is_directory(dir, ec)) dirs.push_back(dir);
#endif
    return dirs;
}

}  // namespace

std::string compiler_version() {
    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    return fmt::format("{}.{}", major, minor);
}

std::vector<std::string> compiler_options(const CompileRequest& req) {
    std::vector<std::string> opts = base_compile_options(req);
    for (const auto& dir : cuda_include_dirs()) opts.push_back("-I" + dir);
    return opts;
}

// Throws only on NVRTC API misuse (TL_NVRTC_CHECK); compile errors are results.
std::shared_ptr<CompileResult> compile_kernel(const CompileRequest& req, const std::vector<std::string>& opts) {
    const bool user = !req.source_text.empty();
    if (!user && !embedded_source(req.source_file))
        return failed_compile(fmt::format("No kernel source '{}' is embedded (paths are relative to kernels/).",
                                   req.source_file));
    if (req.name_expression.empty())
        return failed_compile(fmt::format("No kernel to instantiate from '{}': the name expression is empty.",
                                   req.source_file));

    std::vector<const char*> header_texts, header_names;
    for (const auto& [name, text] : header_names_and_texts()) {
        header_names.push_back(name.c_str());
        header_texts.push_back(text->c_str());
    }
    // A user's text is the unit itself, so NVRTC's "name(line): error" lines are the user's lines.
    const std::string unit = user ? req.source_text : fmt::format("#include \"{}\"\n", req.source_file);
    const std::string unit_name = user && !req.source_name.empty() ? req.source_name : "tilelab_unit.cu";
    NvrtcProgram prog(unit, unit_name, header_texts, header_names);
    TL_NVRTC_CHECK(nvrtcAddNameExpression(prog.get(), req.name_expression.c_str()));

    std::vector<const char*> argv;
    for (const auto& o : opts) argv.push_back(o.c_str());
    nvrtcResult rc = nvrtcCompileProgram(prog.get(), int(argv.size()), argv.data());

    auto r = std::make_shared<CompileResult>();
    r->options = fmt::format("{}", fmt::join(opts, " "));
    size_t log_size = 0;
    TL_NVRTC_CHECK(nvrtcGetProgramLogSize(prog.get(), &log_size));
    std::string log(log_size, '\0');
    TL_NVRTC_CHECK(nvrtcGetProgramLog(prog.get(), log.data()));
    log.resize(std::strlen(log.c_str()));  // the size counts the terminating NUL
    r->log = log;

    if (rc != NVRTC_SUCCESS) {
        r->ok = false;
        r->error = first_error_line(log, nvrtcGetErrorString(rc));
        return r;
    }
    const char* lowered = nullptr;
    TL_NVRTC_CHECK(nvrtcGetLoweredName(prog.get(), req.name_expression.c_str(), &lowered));
    r->lowered_name = lowered;
    size_t image_size = 0;
    if (req.ptx) {   // the text, without its terminating NUL
        TL_NVRTC_CHECK(nvrtcGetPTXSize(prog.get(), &image_size));
        r->cubin.resize(image_size);
        TL_NVRTC_CHECK(nvrtcGetPTX(prog.get(), r->cubin.data()));
        while (!r->cubin.empty() && r->cubin.back() == '\0') r->cubin.pop_back();
    } else {
        TL_NVRTC_CHECK(nvrtcGetCUBINSize(prog.get(), &image_size));
        r->cubin.resize(image_size);
        TL_NVRTC_CHECK(nvrtcGetCUBIN(prog.get(), r->cubin.data()));
        r->ptxas = parse_ptxas_report(log, r->lowered_name);
    }
    r->ok = true;
    return r;
}

}  // namespace tilelab
