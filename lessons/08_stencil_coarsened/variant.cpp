// PLACEHOLDER until the variant is written: lets the registry link. Replace whole.
#include "tilelab/variant.h"
namespace tilelab {
Variant make_coarsened_stencil() {
    Variant v;
    v.id = "stencil.coarsened";
    v.family = "stencil";
    v.title = "stencil.coarsened (not written yet)";
    return v;
}
}  // namespace tilelab
