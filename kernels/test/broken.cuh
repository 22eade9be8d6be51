// Deliberately does not compile: tests/cpu/test_compile.cpp checks that a compile error comes
// back as ok=false with the compiler's message, never as a crash or an exception.
#pragma once

template <int N>
__global__ void tilelab_test_broken(float* out) {
    out[0] = undeclared_variable * N;
}
