// Warp tiling with multi-stage cp.async copies: each warp owns a WM×WN tile of the block's C,
// walked in WMITER×WNITER steps of 32 lanes × TM×TN (kernels/matmul/05_warp_tiled.cuh).
// Parameters, constraints, launch and cost model live in lessons/matmul_warp.h.
#include "../matmul_warp.h"

namespace tilelab {

TILELAB_VARIANT(make_warp_tiled_matmul, matmul::WarpTiledVariant,
                {.id = "matmul.warp_tiled", .family = "matmul", .params = matmul::warp_param_specs()})

}  // namespace tilelab
