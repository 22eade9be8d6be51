// PLACEHOLDER until the variant is written: lets the registry link. Replace whole.
#include "tilelab/variant.h"
namespace tilelab {
Variant make_naive_matmul() {
    Variant v;
    v.id = "matmul.naive";
    v.family = "matmul";
    v.title = "matmul.naive (not written yet)";
    return v;
}
}  // namespace tilelab
