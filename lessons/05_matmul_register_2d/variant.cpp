// 2D register tiling: each thread computes a TM×TN micro-tile of C as a sum of outer products
// of a column of A and a row of B held in registers (kernels/matmul/register_2d.cuh).
// Parameters, constraints and cost model live in families/matmul/register_2d.h, shared with the
// register-pressure lesson, which compiles the same kernel.
#include "../../families/matmul/register_2d.h"
#include "../../families/matmul/register_2d_banks.h"

namespace tilelab {

TILELAB_VARIANT(make_register_2d_matmul, matmul::Register2dVariant,
                {.id = "matmul.register_2d", .family = "matmul", .params = matmul::register_2d_param_specs()})

}  // namespace tilelab
