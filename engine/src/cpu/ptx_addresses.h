// Internal to the CPU run: where each state space lives in the 64-bit addresses a kernel computes.
// Global memory is a set of regions (the family's buffers, the module's .global and .const
// variables), each at its own base far from the others, so that an address outside every region
// is caught and the nearest buffer named. Shared and local addresses are offsets in their window
// (as ld.shared and ld.local take them); generic addresses put the window's tag in the top byte.
#pragma once
#include <cstdint>

namespace tilelab::cpu {

inline constexpr uint64_t kRegionBytes = uint64_t(1) << 36;         // 64 GiB between region bases
inline constexpr uint64_t kModuleBase = uint64_t(1) << 40;          // .global/.const variables
inline constexpr uint64_t buffer_base(int i) { return kModuleBase + uint64_t(i + 1) * kRegionBytes; }
inline constexpr uint64_t kSharedWindow = uint64_t(1) << 56;        // generic address of shared offset 0
inline constexpr uint64_t kLocalWindow = uint64_t(2) << 56;         // generic address of local offset 0
inline constexpr uint64_t kWindowMask = uint64_t(0xFF) << 56;

}  // namespace tilelab::cpu
