// PLACEHOLDER until the variant is written: lets the registry link. Replace whole.
#include "tilelab/variant.h"
namespace tilelab {
Variant make_smem_tiled_matmul() {
    Variant v;
    v.id = "matmul.smem_tiled";
    v.family = "matmul";
    v.title = "matmul.smem_tiled (not written yet)";
    return v;
}
}  // namespace tilelab
