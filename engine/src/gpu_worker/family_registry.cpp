// The families' GPU halves by name (family.h), registered with TILELAB_REGISTER_DEVICE_FAMILY
// next to their factories (families/<family>/gpu_cuda.cpp); the build generates the table.
#include <map>
#include "gpu_worker/family.h"
#include "model/registry_table.h"

namespace tilelab {

std::unique_ptr<Family> make_family(const std::string& name) {
    static const auto table = factories_by_name(registered_device_family_factories());
    const auto it = table.find(name);
    return it == table.end() ? nullptr : it->second();
}

}  // namespace tilelab
