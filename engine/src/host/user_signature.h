// A user's kernel is launched with the lesson's arguments: its parameter list must be the
// lesson kernel's, or the launch would pass (say) 7 arguments into 2 parameters. Checked on the
// compiled kernels' lowered (mangled) names, before anything launches. No CUDA here.
#pragma once
#include <string>

namespace tilelab {

// The parameter list of a lowered kernel name, demangled ("float const*, float const*, float*,
// int, int, int"); "" when it cannot be demangled.
std::string kernel_parameters(const std::string& lowered_name);

// "" when the user's kernel (`user_lowered`) takes the lesson kernel's parameters
// (`lesson_lowered`; the pointee's const does not count), else one sentence naming both lists
// and the kernel (`name_expression`).
std::string signature_problem(const std::string& user_lowered, const std::string& lesson_lowered,
                              const std::string& name_expression);

// "" when `text` names the kernel template of `name_expression` ("online_softmax_attention_2d<...>")
// as a whole identifier, else one sentence: at these parameters the lesson runs that kernel, from
// kernels/`lesson_file`, and the user's file `user_file` does not define it (a parameter that
// picks another kernel of the lesson, such as lesson 15's SPLIT, while an exercise is open).
std::string missing_kernel_problem(const std::string& text, const std::string& user_file,
                                   const std::string& name_expression, const std::string& lesson_file);

}  // namespace tilelab
