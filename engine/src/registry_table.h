// The generated table of registrations (build/generated/registry_table.cpp, written by
// cmake/registry_run.cmake from the TILELAB_REGISTER_* lines). Only the registry reads it.
#pragma once
#include <vector>
#include "tilelab/registration.h"
#include "tilelab/variant.h"

namespace tilelab {

// Every TILELAB_REGISTER_VARIANT, in the order of the lesson folders (the teaching order).
const std::vector<Variant (*)()>& registered_variant_factories();
// Every TILELAB_REGISTER_FAMILY (the families' shapes).
const std::vector<FamilyRegistration (*)()>& registered_family_factories();
// Every TILELAB_REGISTER_DEVICE_FAMILY (their GPU halves; none in the client-only build).
const std::vector<DeviceFamilyRegistration (*)()>& registered_device_family_factories();

}  // namespace tilelab
