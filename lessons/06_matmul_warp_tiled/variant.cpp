// Warp tiling with multi-stage cp.async copies: each warp owns a WM×WN tile of the block's C,
// walked in WMITER×WNITER steps of 32 lanes × TM×TN (kernels/matmul/05_warp_tiled.cuh).
// Parameters, constraints, launch and cost model live in lessons/matmul_warp.h.
#include "../matmul_warp.h"

namespace tilelab {

Variant make_warp_tiled_matmul() {
    using namespace matmul;
    Variant v;
    v.id = "matmul.warp_tiled";
    v.family = "matmul";
    v.title = "Warp tiling and cp.async";
    v.summary = "Each warp computes a WM×WN tile of C in WMITER×WNITER steps; tiles arrive by cp.async, STAGES deep.";
    v.params = warp_param_specs();
    v.invalid_reason = [](const ParamValues& pv, const Problem& p, const Target& t) {
        return warp_invalid_reason(warp_config(pv), p, t);
    };
    v.kernel = [](const ParamValues& pv) { return warp_kernel(warp_config(pv)); };
    v.kernel_at = [](const ParamValues& pv, const Problem& p) {
        const WarpConfig c = warp_config(pv);
        return warp_kernel(c, warp_exact(c, p));
    };
    v.launch = [](const ParamValues& pv, const Problem& p) { return warp_launch(warp_config(pv), p); };
    v.tiles = [](const ParamValues& pv, const Problem& p) { return warp_tiles(warp_config(pv), p); };
    v.cost_model = [](const ParamValues& pv, const Problem& p) { return warp_cost_model(warp_config(pv), p); };
    // All of the kernel's shared memory is dynamic (STAGES buffers may pass the 48 KB static limit).
    v.smem_bytes = [](const ParamValues&) { return 0; };
    v.shared_sites = [](const ParamValues& pv, const Problem& p) { return warp_shared_sites(warp_config(pv), p); };
    return v;
}
TILELAB_REGISTER_VARIANT(make_warp_tiled_matmul)

}  // namespace tilelab
