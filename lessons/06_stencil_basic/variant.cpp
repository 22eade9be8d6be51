// PLACEHOLDER until the variant is written: lets the registry link. Replace whole.
#include "tilelab/variant.h"
namespace tilelab {
Variant make_basic_stencil() {
    Variant v;
    v.id = "stencil.basic";
    v.family = "stencil";
    v.title = "stencil.basic (not written yet)";
    return v;
}
}  // namespace tilelab
