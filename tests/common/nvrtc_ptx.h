// The PTX NVRTC makes of a source text, for tests that read or run it without a GPU. Include only
// where the tests link NVRTC (the CUDA build).
#pragma once
#include <gtest/gtest.h>
#include <nvrtc.h>

#include <string>
#include <vector>

namespace tilelab::test {

struct NvrtcHeader {
    std::string name, text;   // as the source #includes it
};

// PTX of `source` for `arch` ("compute_75"); `name_expression` (a template instance) is
// instantiated when given. Adds a test failure with NVRTC's log and returns "" when it does not compile.
inline std::string nvrtc_ptx(const std::string& source, const std::string& source_name, const std::string& arch,
                             const std::vector<NvrtcHeader>& headers = {}, const std::string& name_expression = "",
                             const std::vector<std::string>& extra_options = {}) {
    std::vector<const char*> header_texts, header_names;
    for (const NvrtcHeader& h : headers) header_texts.push_back(h.text.c_str()), header_names.push_back(h.name.c_str());
    nvrtcProgram prog = nullptr;
    if (nvrtcCreateProgram(&prog, source.c_str(), source_name.c_str(), int(headers.size()), header_texts.data(),
                           header_names.data()) != NVRTC_SUCCESS) {
        ADD_FAILURE() << "nvrtcCreateProgram failed for " << source_name;
        return "";
    }
    if (!name_expression.empty()) nvrtcAddNameExpression(prog, name_expression.c_str());
    std::vector<std::string> options = {"--gpu-architecture=" + arch, "-std=c++17"};
    options.insert(options.end(), extra_options.begin(), extra_options.end());
    std::vector<const char*> option_texts;
    for (const std::string& o : options) option_texts.push_back(o.c_str());
    std::string ptx;
    size_t size = 0;
    if (nvrtcCompileProgram(prog, int(option_texts.size()), option_texts.data()) == NVRTC_SUCCESS) {
        nvrtcGetPTXSize(prog, &size);
        ptx.resize(size);
        nvrtcGetPTX(prog, ptx.data());
    } else {
        nvrtcGetProgramLogSize(prog, &size);
        std::string log(size, '\0');
        nvrtcGetProgramLog(prog, log.data());
        ADD_FAILURE() << source_name << (name_expression.empty() ? "" : " " + name_expression) << " for " << arch << ": " << log;
    }
    nvrtcDestroyProgram(&prog);
    return ptx;
}

}  // namespace tilelab::test
