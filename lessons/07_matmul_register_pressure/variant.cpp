// Registers, spills and occupancy: the 2D register-tiled kernel again, with the knobs that move
// its register count — a cap (-maxrregcount), __launch_bounds__ minimum blocks per SM, loop
// unrolling and the thread-tile size — so that ptxas's registers and spill bytes, occupancy and
// its limiter, and the time can be watched moving together.
#include "../../families/matmul/register_2d.h"
#include "../../families/matmul/register_2d_banks.h"

namespace tilelab {

TILELAB_VARIANT(make_register_pressure_matmul, matmul::Register2dVariant,
                {.id = "matmul.register_pressure", .family = "matmul", .params = matmul::register_pressure_param_specs()})

}  // namespace tilelab
