// The registry: every variant, in teaching order. Each factory lives next to its lesson
// (lessons/NN_slug/variant.cpp) and declares the variant as data.
#include "tilelab/variant.h"

namespace tilelab {

Variant make_naive_matmul();              // lessons/01_matmul_naive
Variant make_smem_tiled_matmul();         // lessons/02_matmul_smem_tiled
Variant make_register_1d_matmul();        // lessons/03_matmul_register_1d
Variant make_register_2d_matmul();        // lessons/04_matmul_register_2d
Variant make_register_pressure_matmul();  // lessons/05_registers_spills_occupancy
Variant make_basic_stencil();             // lessons/06_stencil_basic
Variant make_smem_tiled_stencil();        // lessons/07_stencil_smem_tiled
Variant make_coarsened_stencil();         // lessons/08_stencil_coarsened
Variant make_register_tiled_stencil();    // lessons/09_stencil_register_tiled

const std::vector<Variant>& all_variants() {
    static const std::vector<Variant> variants = {
        make_naive_matmul(),      make_smem_tiled_matmul(),   make_register_1d_matmul(),
        make_register_2d_matmul(), make_register_pressure_matmul(),
        make_basic_stencil(),     make_smem_tiled_stencil(),  make_coarsened_stencil(),
        make_register_tiled_stencil(),
    };
    return variants;
}

const Variant* find_variant(const std::string& id) {
    for (const auto& v : all_variants())
        if (v.id == id) return &v;
    return nullptr;
}

}  // namespace tilelab
