// The compiler in another process (compiler.h): installed once by the host, read by every compile
// of a user's kernel and, in the client-only build, by every compile.
#include <mutex>
#include <utility>
#include "compile/compiler.h"

namespace tilelab {
namespace {

std::mutex& installed_mutex() {
    static std::mutex m;
    return m;
}

OtherProcessCompiler& installed() {
    static OtherProcessCompiler c;
    return c;
}

}  // namespace

void install_other_process_compiler(OtherProcessCompiler compiler) {
    std::lock_guard lock(installed_mutex());
    installed() = std::move(compiler);
}

OtherProcessCompiler other_process_compiler() {
    std::lock_guard lock(installed_mutex());
    return installed();
}

std::shared_ptr<CompileResult> compile_user_kernel(const CompileRequest& req, const std::vector<std::string>& opts) {
    const OtherProcessCompiler c = other_process_compiler();
    return c.user_kernel ? c.user_kernel(req, opts) : compile_kernel(req, opts);
}

}  // namespace tilelab
