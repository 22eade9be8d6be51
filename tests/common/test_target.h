// An H100-like target spelled out field by field, so model and constraint tests do not depend on
// the preset table (whose figures have tests of their own).
#pragma once
#include "tilelab/target.h"

namespace tilelab::testing {

inline Target test_target() {
    Target t;
    t.name = "test GPU";
    t.sm_major = 9;
    t.max_threads_per_block = 1024;
    t.smem_per_block = 48 * 1024;
    return t;
}

}  // namespace tilelab::testing
