// Internal to the engine, no CUDA: runs one kernel's PTX (ptx.h) on the CPU, the way the
// exercises need it to be run — a verdict, not speed.
//
// Blocks run one after another. Within a block, the threads between two barriers run one at a
// time, each to its next bar.sync, warp shuffle (or its end), in an order drawn from the seed for
// every block and every interval: a kernel whose result depends on that order (a missing
// __syncthreads) gives a wrong result, and in any order its shared accesses are checked for races
// — a word one thread wrote and another read or wrote between the same two barriers — so the race
// is reported every time, not by luck. A shuffle completes once every lane its mask names has
// reached it (cpu_warp.cpp); lanes that never do are reported as the hang they would be. Shared memory starts each block filled with NaN bytes (0xFF): reading what no
// thread wrote poisons the result. Every global, shared and local access is checked against its
// buffer's bounds and reported with the thread, the block, the source line and the element. A
// launch that runs past its time limit is stopped and says where its threads were.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>
#include "cpu/ptx.h"
#include "model/element_bits.h"

namespace tilelab::cpu {

// One buffer of the family (A, B, C, in, out): what a kernel argument points to.
struct Buffer {
    std::string name;             // "A", "C", "in"
    std::vector<uint8_t> bytes;
    int element_bytes = 4;        // for the element index in messages
};

struct Launch {
    std::array<unsigned, 3> grid{1, 1, 1}, block{1, 1, 1};
    unsigned dynamic_shared = 0;
    std::vector<uint8_t> params;  // the kernel's parameter block, laid out as Kernel::params says
    uint64_t seed = 1;
    double time_limit_s = 5;
    // The whole run's limit where this launch is one of several sharing it (what a stopped run
    // says it was given; 0: time_limit_s).
    double run_limit_s = 0;
};

// Bytes the kernel moved to and from the family's buffers and shared memory (module variables,
// constants, parameters and local memory are not counted).
struct MovedBytes {
    uint64_t global_loads = 0, global_stores = 0, shared_loads = 0, shared_stores = 0;
    // The global ones in elements of the buffers they touched (Buffer::element_bytes): exact where
    // a kernel's operands differ in size.
    double global_load_elements = 0, global_store_elements = 0;
};

struct LaunchReport {
    bool completed = false;       // ran to the end without a fault
    std::string fault;            // when not: what happened, where, which thread (one paragraph)
    std::string fault_kind;       // "out of bounds", "race", "time limit", "misaligned", "barrier", "shuffle"
    MovedBytes moved;
    uint64_t instructions = 0;
    double seconds = 0;
};

class Machine {
public:
    Machine(const Module& module, const Kernel& kernel);
    // Adds a buffer; returns the address a kernel argument gives for it.
    uint64_t add_buffer(Buffer b);
    Buffer& buffer(size_t i) { return buffers_.at(i); }
    // The buffers, for the next kernel of a launch of several (cpu_run.cpp): a machine made
    // for it and given them sees them at the same addresses.
    std::vector<Buffer> take_buffers() { return std::move(buffers_); }
    void give_buffers(std::vector<Buffer> buffers) { buffers_ = std::move(buffers); }
    // A module variable's bytes by its name in the PTX (set before the launch, read after); nullptr
    // and 0 bytes if the module has none of that name.
    uint8_t* module_variable(const std::string& name, size_t& bytes);
    LaunchReport launch(const Launch& launch);

private:
    struct Shadow {   // per 4-byte shared word: the last writer and reader(s) in their intervals
        uint32_t write_epoch = 0, writer = 0, write_line = 0;
        uint32_t read_epoch = 0, reader = 0, read_line = 0;
        uint32_t reader2 = 0, read_line2 = 0;   // a second reader in the same interval, if any
        // The accessing warp's __syncwarp count at each access: lanes of one warp with a __syncwarp
        // between their accesses are ordered, even between the same two block barriers.
        uint32_t write_sync = 0, read_sync = 0, read_sync2 = 0;
    };
    struct PendingCopy {   // a cp.async not yet complete (cpu_tensor.cpp)
        uint64_t offset = 0;   // in shared memory
        uint32_t group = 0;    // the thread's commit count when it was issued
        uint8_t size = 0;
        uint8_t bytes[16] = {};
        const Instr* in = nullptr;
    };
    struct Thread {
        uint32_t pc = 0;
        enum class State : uint8_t { running, barrier, shuffle, done } state = State::running;
    };
    class Fault;   // thrown inside a block, caught by launch()

    void run_block(const std::array<unsigned, 3>& block_index, const Launch& launch);
    // Runs thread t until its next barrier or its end. Throws Fault.
    void run_thread(uint32_t t);
    // Completes every warp shuffle whose lanes have all arrived (cpu_warp.cpp); true if any did.
    bool release_shuffles();
    // After the threads have stopped: a lane still waiting at a shuffle waits for good. Throws Fault.
    void check_no_lane_waits_at_a_shuffle() const;
    void shuffle_warp(uint32_t first, uint32_t lanes);
    // Whether every lane named by the member masks of the `arrived` lanes (at a shuffle, or at a
    // __syncwarp) is among them or has ended.
    bool lanes_arrived(uint32_t first, uint32_t lanes, uint32_t arrived, uint32_t present) const;
    // An operand as thread t sees it: its register, a special register or an immediate.
    uint64_t operand_value(const Operand& o, uint32_t t) const;
    // A memory operand's address for thread t: its base register (if any) plus its offset.
    uint64_t operand_address(const Operand& o, uint32_t t) const {
        return (o.has_base ? regs_[size_t(t) * k_.registers + o.reg] : 0) + o.imm;
    }
    // Thread t's registers.
    uint64_t* regs_of(uint32_t t) { return regs_.data() + size_t(t) * k_.registers; }
    // Bit l: lane l of the warp of `lanes` threads from `first` waits at a shuffle / has not ended.
    struct WarpLanes {
        uint32_t waiting = 0, present = 0;
    };
    WarpLanes warp_lanes(uint32_t first, uint32_t lanes) const;
    // The warp's lanes, all at the same ldmatrix or mma.sync, execute it together (cpu_tensor.cpp).
    void collective_warp(uint32_t first, uint32_t lanes);
    void ldmatrix_warp(uint32_t first, const Instr& in);
    void mma_warp(uint32_t first, const Instr& in);
    void wmma_warp(uint32_t first, const Instr& in);
    // cp.async, commit_group, wait_group, wait_all for thread t (cpu_tensor.cpp).
    void async_copy(const Instr& in, uint32_t t);
    void execute(const Instr& in, uint32_t t, uint64_t* r);
    uint8_t* address_of(const Instr& in, uint64_t address, int bytes, bool store, uint32_t t);
    uint8_t* global_address(uint64_t address, int bytes, bool store, uint32_t t, const Instr& in);
    uint8_t* shared_address(uint64_t offset, int bytes, bool store, uint32_t t, const Instr& in);
    void check_race(uint64_t offset, int bytes, bool store, uint32_t t, const Instr& in);
    void memory(const Instr& in, uint32_t t, uint64_t* r);
    void atomic(const Instr& in, uint32_t t, uint64_t* r);
    [[noreturn]] void fail(const std::string& kind, const std::string& what, uint32_t t, const Instr& in) const;
    std::string where(uint32_t t, const Instr& in) const;
    std::string thread_name(uint32_t t) const;
    std::string shared_place(uint64_t offset) const;
    std::string line_name(uint32_t line) const;
    uint64_t special(Special s, uint32_t t) const;

    const Module& module_;
    const Kernel& k_;
    std::vector<Buffer> buffers_;
    std::vector<uint8_t> module_bytes_;
    // The block being run
    const Launch* launch_ = nullptr;
    std::array<unsigned, 3> block_index_{};
    std::vector<Thread> threads_;
    std::vector<uint64_t> regs_;
    std::vector<uint8_t> shared_, local_;
    std::vector<Shadow> shadow_;
    std::vector<std::vector<PendingCopy>> copies_;   // per thread of the block
    std::vector<uint32_t> copy_groups_;              // per thread: cp.async groups committed
    std::vector<uint32_t> warp_syncs_;               // per warp of the block: __syncwarp()s passed
    uint32_t epoch_ = 0;
    MovedBytes moved_;
    uint64_t instructions_ = 0, next_clock_check_ = 0;
    double deadline_ = 0;
};

// cvt to tf32, f16x2 or bf16x2 (a to the upper half, b to the lower): true and `out` set, else false.
bool convert_packed(const Instr& in, uint64_t a, uint64_t b, uint64_t& out);

// FP16 and BF16 conversions as cvt.rn does them (model/element_bits.h). The families' CPU halves
// round their 16-bit inputs with them, as the GPU's fill does.
using ::tilelab::bf16_to_float;
using ::tilelab::float_to_bf16;
using ::tilelab::float_to_half;
using ::tilelab::half_to_float;

}  // namespace tilelab::cpu
