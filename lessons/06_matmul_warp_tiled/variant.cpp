// Warp tiling with multi-stage cp.async copies: each warp owns a WM×WN tile of the block's C,
// walked in WMITER×WNITER steps of 32 lanes × TM×TN (kernels/matmul/warp_tiled.cuh).
// Parameters, constraints, launch and cost model live in families/matmul/warp_tiled.h.
#include "../../families/matmul/warp_tiled.h"

namespace tilelab {

TILELAB_VARIANT(make_warp_tiled_matmul, matmul::WarpTiledVariant,
                {.id = "matmul.warp_tiled", .family = "matmul", .params = matmul::warp_param_specs()})

}  // namespace tilelab
