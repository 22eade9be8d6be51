// Warp tiling with multi-stage cp.async copies: each warp owns a WM×WN tile of the block's C,
// walked in WMITER×WNITER steps of 32 lanes × TM×TN (kernels/matmul/warp_tiled.cuh).
// Parameters, constraints, launch and cost model live in families/matmul/warp_tiled.h.
#include "../../families/matmul/warp_tiled.h"

namespace tilelab {

Variant make_warp_tiled_matmul() {
    using namespace matmul;
    return define_variant<WarpTiledVariant>({
        .id = "matmul.warp_tiled",
        .family = "matmul",
        .params = warp_param_specs(),
    });
}
TILELAB_REGISTER_VARIANT(make_warp_tiled_matmul)

}  // namespace tilelab
