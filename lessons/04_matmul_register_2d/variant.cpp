// PLACEHOLDER until the variant is written: lets the registry link. Replace whole.
#include "tilelab/variant.h"
namespace tilelab {
Variant make_register_2d_matmul() {
    Variant v;
    v.id = "matmul.register_2d";
    v.family = "matmul";
    v.title = "matmul.register_2d (not written yet)";
    return v;
}
}  // namespace tilelab
