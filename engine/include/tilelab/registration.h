// How lessons and problem families make themselves known: one line next to the factory.
//
//   // lessons/NN_slug/variant.cpp, inside namespace tilelab: the factory and its registration
//   TILELAB_VARIANT(make_naive_matmul, Naive, {.id = "matmul.naive", .family = "matmul", .params = Naive::params()})
//   // or, for a factory written out: TILELAB_REGISTER_VARIANT(make_naive_matmul) after it
//
//   // families/<family>/shape.cpp (the family's sizes, no CUDA), inside namespace tilelab:
//   TILELAB_REGISTER_FAMILY("matmul", make_matmul_shape)
//   // families/<family>/cpu.cpp (its CPU half, for the CPU run), inside namespace tilelab:
//   TILELAB_REGISTER_CPU_FAMILY("matmul", make_matmul_cpu)
//   // families/<family>/gpu_cuda.cpp (its GPU half, full build only), inside namespace tilelab:
//   TILELAB_REGISTER_DEVICE_FAMILY("matmul", make_matmul_family)
//
// The build (cmake/registry_run.cmake) finds these lines in the sources it compiles and
// generates the table that calls them, variants in the order of their lesson folders (the
// teaching order). Because the generated table names each registration, the linker keeps
// it even though the engine is a static library; and there is no list to edit by hand.
#pragma once
#include <memory>
#include <string>

namespace tilelab {

struct Variant;
class FamilyShape;   // engine/src/model/family_shape.h: the sizes of one problem kind and their limits
class CpuFamily;     // engine/src/cpu/cpu_family.h: its buffers, reference and validation on the CPU run
class Family;        // engine/src/gpu_worker/family.h: its buffers, reference and validation on the GPU

struct FamilyRegistration {
    std::string name;                         // what variants name in Variant::family
    std::unique_ptr<FamilyShape> (*make)();   // a fresh instance
};

struct CpuFamilyRegistration {
    std::string name;                         // the same name as the family's shape
    std::unique_ptr<CpuFamily> (*make)();     // a fresh instance
};

struct DeviceFamilyRegistration {
    std::string name;                      // the same name as the family's shape
    std::unique_ptr<Family> (*make)();     // a fresh instance
};

}  // namespace tilelab

// Defines tilelab::registered_variant_<factory>(), which the generated table calls.
#define TILELAB_REGISTER_VARIANT(factory) \
    ::tilelab::Variant registered_variant_##factory() { return factory(); }

// Defines `factory` as define_variant<Config>(info) (tilelab/variant.h) and registers it: a lesson's
// whole registration in one place.
#define TILELAB_VARIANT(factory, Config, ...) \
    ::tilelab::Variant factory() { return ::tilelab::define_variant<Config>(__VA_ARGS__); } \
    TILELAB_REGISTER_VARIANT(factory)

// Defines tilelab::registered_family_<factory>(), which the generated table calls.
#define TILELAB_REGISTER_FAMILY(name, factory) \
    ::tilelab::FamilyRegistration registered_family_##factory() { return {name, &factory}; }

// Defines tilelab::registered_cpu_family_<factory>(), which the generated table calls.
#define TILELAB_REGISTER_CPU_FAMILY(name, factory) \
    ::tilelab::CpuFamilyRegistration registered_cpu_family_##factory() { return {name, &factory}; }

// Defines tilelab::registered_device_family_<factory>(), which the generated table calls.
#define TILELAB_REGISTER_DEVICE_FAMILY(name, factory) \
    ::tilelab::DeviceFamilyRegistration registered_device_family_##factory() { return {name, &factory}; }
