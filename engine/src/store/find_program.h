// Finding a program to start (the GPU worker beside the app, the toolkit's nvdisasm beside the
// worker): what counts as one, and the search along PATH. Used by both processes.
#pragma once
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

namespace tilelab {

// A regular file this process may execute (a folder with the name does not count).
inline bool is_executable_file(const std::filesystem::path& p) {
    std::error_code ec;
    return std::filesystem::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// `name` in the first folder of PATH that holds it as an executable file; "" when none does.
inline std::string find_on_path(std::string_view name) {
    const char* path = std::getenv("PATH");
    for (std::string_view rest = path ? path : ""; !rest.empty();) {
        const size_t colon = rest.find(':');
        const std::string_view dir = rest.substr(0, colon);
        rest = colon == std::string_view::npos ? "" : rest.substr(colon + 1);
        if (dir.empty()) continue;
        const std::filesystem::path candidate = std::filesystem::path(dir) / name;
        if (is_executable_file(candidate)) return candidate.string();
    }
    return "";
}

}  // namespace tilelab
