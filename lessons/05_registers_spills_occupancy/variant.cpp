// PLACEHOLDER until the variant is written: lets the registry link. Replace whole.
#include "tilelab/variant.h"
namespace tilelab {
Variant make_register_pressure_matmul() {
    Variant v;
    v.id = "matmul.register_pressure";
    v.family = "matmul";
    v.title = "matmul.register_pressure (not written yet)";
    return v;
}
}  // namespace tilelab
