// What `tilelab --version` and `tilelab-cli --version` print: TileLab's version and the CUDA
// Toolkit the build was made with, whose libraries (cudart, NVRTC, cuBLAS) and headers the
// installed programs use from that folder at run time (README: "Install").
#pragma once
#include <string>

namespace tilelab {

std::string version_text();

}  // namespace tilelab
