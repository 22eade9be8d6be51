// PLACEHOLDER until the variant is written: lets the registry link. Replace whole.
#include "tilelab/variant.h"
namespace tilelab {
Variant make_register_tiled_stencil() {
    Variant v;
    v.id = "stencil.register_tiled";
    v.family = "stencil";
    v.title = "stencil.register_tiled (not written yet)";
    return v;
}
}  // namespace tilelab
