// Registers, spills and occupancy: the 2D register-tiled kernel again, with the knobs that move
// its register count — a cap (-maxrregcount), __launch_bounds__ minimum blocks per SM, loop
// unrolling and the thread-tile size — so that ptxas's registers and spill bytes, occupancy and
// its limiter, and the time can be watched moving together.
#include "../matmul_common.h"
#include "../register_2d_banks.h"

namespace tilelab {

Variant make_register_pressure_matmul() {
    using namespace matmul;
    Variant v;
    v.id = "matmul.register_pressure";
    v.family = "matmul";
    v.title = "Registers, spills and occupancy";
    v.summary = "Cap the 2D kernel's registers, bound its launch or stop unrolling, and watch spills, occupancy and time.";
    v.params = register_pressure_param_specs();
    set_register_2d_functions(v);
    v.shared_sites = [](const ParamValues& pv, const Problem& p) { return register_2d_shared_sites(register_2d_config(pv), p); };
    return v;
}
TILELAB_REGISTER_VARIANT(make_register_pressure_matmul)

}  // namespace tilelab
