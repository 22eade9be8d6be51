// The generated tables of registrations (build/generated/*registry_table.cpp, written by
// cmake/registry_run.cmake from the TILELAB_REGISTER_* lines): variants and shapes for the model,
// the CPU halves for the CPU run, the GPU halves for the GPU worker.
#pragma once
#include <map>
#include <string>
#include <vector>
#include "tilelab/registration.h"
#include "tilelab/variant.h"

namespace tilelab {

// Every TILELAB_REGISTER_VARIANT, in the order of the lesson folders (the teaching order).
const std::vector<Variant (*)()>& registered_variant_factories();
// Every TILELAB_REGISTER_FAMILY (the families' shapes).
const std::vector<FamilyRegistration (*)()>& registered_family_factories();
// Every TILELAB_REGISTER_CPU_FAMILY (their CPU halves: the CPU run's table, engine/src/cpu/).
const std::vector<CpuFamilyRegistration (*)()>& registered_cpu_family_factories();
// Every TILELAB_REGISTER_DEVICE_FAMILY (their GPU halves; none in the client-only build).
const std::vector<DeviceFamilyRegistration (*)()>& registered_device_family_factories();

// A family's factories by name, from one of the tables above (shapes, CPU or GPU halves).
template <class Registration>
std::map<std::string, decltype(Registration::make)> factories_by_name(const std::vector<Registration (*)()>& table) {
    std::map<std::string, decltype(Registration::make)> by_name;
    for (const auto registration : table) {
        const Registration r = registration();
        by_name[r.name] = r.make;
    }
    return by_name;
}

}  // namespace tilelab
