// The compilers the app's and the CLI's process use besides NVRTC in process (compile/compiler.h):
// users' kernels in a worker process under a deadline, and in the client-only build every compile
// in the GPU worker. The engine installs them when it is constructed.
#pragma once

namespace tilelab {

// host/compile_user_cuda.cpp (full build) or host/compile_in_worker_nocuda.cpp (client-only).
void install_host_compilers();

}  // namespace tilelab
