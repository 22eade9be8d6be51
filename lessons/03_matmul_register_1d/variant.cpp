// PLACEHOLDER until the variant is written: lets the registry link. Replace whole.
#include "tilelab/variant.h"
namespace tilelab {
Variant make_register_1d_matmul() {
    Variant v;
    v.id = "matmul.register_1d";
    v.family = "matmul";
    v.title = "matmul.register_1d (not written yet)";
    return v;
}
}  // namespace tilelab
