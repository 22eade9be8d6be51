// Comparing a user's kernel's parameters with the lesson's (user_signature.h).
#include "host/user_signature.h"
#include "tilelab/i18n.h"
#include <cxxabi.h>
#include <fmt/format.h>
#include <cctype>
#include <cstdlib>
#include <memory>

namespace tilelab {
namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Without the word "const" and without spaces: "float const*" and "float*" pass the same pointer.
std::string without_const(const std::string& params) {
    std::string out;
    for (size_t i = 0; i < params.size(); ++i) {
        const bool word_start = i == 0 || !word_char(params[i - 1]);
        if (word_start && params.compare(i, 5, "const") == 0 && (i + 5 == params.size() || !word_char(params[i + 5]))) {
            i += 4;
            continue;
        }
        if (params[i] != ' ') out += params[i];
    }
    return out;
}

}  // namespace

std::string kernel_parameters(const std::string& lowered_name) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(lowered_name.c_str(), nullptr, nullptr, &status),
                                                     std::free);
    if (status != 0 || !demangled) return "";
    const std::string text = demangled.get();
    if (text.empty() || text.back() != ')') return "";
    int depth = 0;
    for (size_t i = text.size(); i-- > 0;) {   // the '(' that opens the last, outermost list
        if (text[i] == ')') ++depth;
        else if (text[i] == '(' && --depth == 0) return text.substr(i + 1, text.size() - i - 2);
    }
    return "";
}

std::string signature_problem(const std::string& user_lowered, const std::string& lesson_lowered,
                              const std::string& name_expression) {
    if (user_lowered == lesson_lowered) return "";
    const std::string user = kernel_parameters(user_lowered), lesson = kernel_parameters(lesson_lowered);
    if (lesson.empty()) return "";   // nothing to compare with: the launch checks what it can
    if (!user_lowered.empty() && without_const(user) == without_const(lesson)) return "";
    return say("Your kernel {} takes ({}), but the lesson launches it with the parameters ({}): keep the starting file's "
               "parameter list.",
               "你的内核 {} 接受（{}），但本课以参数（{}）启动它：请保留起始文件的参数列表。",
               name_expression, user.empty() ? "?" : user, lesson);
}

std::string missing_kernel_problem(const std::string& text, const std::string& user_file,
                                   const std::string& name_expression, const std::string& lesson_file) {
    const std::string name = name_expression.substr(0, name_expression.find('<'));
    for (size_t at = text.find(name); !name.empty() && at != std::string::npos; at = text.find(name, at + 1)) {
        const size_t end = at + name.size();
        if ((at == 0 || !word_char(text[at - 1])) && (end == text.size() || !word_char(text[end]))) return "";
    }
    return say("{} has no kernel named {}: with these parameters the lesson runs {} from kernels/{}. Set the parameters "
               "back to the ones your file's kernel is for, or start from that file.",
               "{0} 中没有名为 {1} 的内核：在这些参数下，本课运行的是 kernels/{3} 中的 {2}。请把参数改回你的文件中内核所对应的值，"
               "或从那个文件开始。",
               user_file, name, name_expression, lesson_file);
}

}  // namespace tilelab
