// Internal to the engine, no CUDA: a kernel's PTX as data, for the CPU run (cpu_machine.h). The
// parser reads what NVRTC writes for the lessons' kernels (compute_80 PTX: integer and FP32/FP64
// arithmetic, predicates and branches, ld/st on the global, shared, local, const and param spaces,
// atomics, bar.sync, inline asm blocks with registers of their own) into instructions whose
// operands are resolved to register numbers, immediates, symbols and branch targets, and the
// warp-wide ones whose lanes the machine gathers: shfl.sync, bar.warp.sync, ldmatrix, mma.sync,
// WMMA; and cp.async with its groups. An instruction the CPU run cannot execute the way the
// hardware would (votes, bulk copies, wgmma, ...) is not an error of the kernel: Kernel::needs_gpu
// names it and the kernel is not run.
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tilelab::cpu {

// tf32: a float's 32 bits with the low 13 mantissa bits unused; f16x2, bf16x2: two halves in 32 bits.
enum class Ty : uint8_t { none, pred, b8, b16, b32, b64, u8, u16, u32, u64, s8, s16, s32, s64, f16, bf16, f32, f64,
                         tf32, f16x2, bf16x2 };
int ty_bytes(Ty t);
bool ty_float(Ty t);
bool ty_signed(Ty t);
// A register's value as `bytes` wide: its low bytes, zero- or sign-extended to 64 bits.
inline uint64_t mask(uint64_t v, int bytes) { return bytes >= 8 ? v : v & ((uint64_t(1) << (8 * bytes)) - 1); }
inline int64_t sign_extend(uint64_t v, int bytes) {
    return bytes >= 8 ? int64_t(v) : int64_t(v << (64 - 8 * bytes)) >> (64 - 8 * bytes);
}

enum class Space : uint8_t { generic, global, shared, local, param, constant };

enum class Op : uint8_t {
    mov, ld, st, cvta, cvta_to, add, sub, mul, mad, fma, div, rem, min, max, abs, neg, and_, or_, xor_, not_,
    cnot, shl, shr, setp, selp, cvt, bra, bar, ret, atom, red, rcp, sqrt, rsqrt, ex2, lg2, sin, cos, popc,
    clz, brev, bfe, bfi, copysign, shfl, nop,
    ldmatrix, mma, wmma_load, wmma_mma, wmma_store,   // warp-wide (cpu_tensor.cpp): the whole warp at one instruction
    warp_sync,                      // bar.warp.sync (__syncwarp): the lanes of its mask (e) wait for each other
    cp_async, cp_commit, cp_wait, cp_wait_all,   // cp.async and its groups (cpu_tensor.cpp)
};

enum class Width : uint8_t { none, lo, hi, wide };   // mul and mad
enum class Cmp : uint8_t { eq, ne, lt, le, gt, ge, lo, ls, hi, hs, equ, neu, ltu, leu, gtu, geu, num, nan };
enum class BoolOp : uint8_t { none, and_, or_, xor_ };
enum class Round : uint8_t { none, rn, rz, rm, rp, rni, rzi, rmi, rpi, rna };   // rna: cvt to tf32
enum class AtomOp : uint8_t { add, min, max, exch, cas, and_, or_, xor_, inc, dec };
enum class Shfl : uint8_t { up, down, bfly, idx };   // shfl.sync's modes
enum class Special : uint8_t { tid_x, tid_y, tid_z, ntid_x, ntid_y, ntid_z, ctaid_x, ctaid_y, ctaid_z,
                               nctaid_x, nctaid_y, nctaid_z, laneid, warpid, zero };

struct Operand {
    enum class Kind : uint8_t { none, reg, imm, special, mem, vec };
    Kind kind = Kind::none;
    bool negate = false;        // !%p
    bool has_base = false;      // mem: [%rd+8] (else [symbol+8] or [8])
    uint8_t count = 0;          // vec: {%f1, %f2, ...}
    Special special = Special::zero;
    uint32_t reg = 0;           // reg; mem base
    uint32_t regs[8] = {};       // vec: up to 8 (a WMMA fragment)
    uint64_t imm = 0;           // immediate bits; mem: offset plus the symbol's address
};

struct Instr {
    Op op = Op::nop;
    Ty type = Ty::none, type2 = Ty::none;   // the type (setp: the compared one); cvt: destination, source
    Space space = Space::generic;
    Width width = Width::none;
    Cmp cmp = Cmp::eq;
    BoolOp bool_op = BoolOp::none;
    Round round = Round::none;
    AtomOp atom = AtomOp::add;
    Shfl shfl = Shfl::idx;
    bool sat = false, ftz = false, approx = false;
    bool trans = false;                // ldmatrix .trans
    uint8_t shape_k = 0;               // mma: K of m16n8kK; wmma: K of m16n16kK
    char matrix = 0;                   // wmma.load/store: 'a', 'b', 'c' or 'd'
    uint8_t col_major = 0;             // wmma: bit 0 the (first) layout is col, bit 1 the second (mma's B)
    uint8_t vec = 1;                   // ld/st .v2 / .v4; ldmatrix .x1 / .x2 / .x4
    int32_t guard = -1;                // predicate register, -1 = always
    bool guard_negate = false;
    Operand d, d2, a, b, c;            // d2: setp's and shfl's second destination (%r|%p)
    Operand e;                         // shfl: the member mask; bfi: the length (their fifth operand)
    uint32_t target = 0;               // bra: instruction index
    uint32_t line = 0, file = 0;       // from .loc
};

// A variable in a state space: shared and local ones of a kernel, global and const ones of the module.
struct Symbol {
    std::string name;          // as in the PTX (mangled)
    Space space = Space::shared;
    uint64_t bytes = 0;
    uint32_t align = 1;
    uint64_t offset = 0;       // shared/local: offset in the block's (thread's) window; module: in its region
    bool dynamic = false;      // extern .shared [] (the launch's dynamic bytes)
    std::vector<uint8_t> init; // module variables with an initialiser
};

struct Param {
    std::string name;
    uint32_t bytes = 0, offset = 0;
};

struct Kernel {
    std::string name;              // mangled
    std::vector<Param> params;
    uint32_t param_bytes = 0;
    std::vector<Instr> code;
    uint32_t registers = 0;        // virtual registers, numbered 0..registers-1
    std::vector<Symbol> shared;    // static ones at their offsets, then a dynamic one (if any) at static_shared
    uint64_t static_shared = 0;
    std::vector<Symbol> local;
    uint64_t local_bytes = 0;
    std::string needs_gpu;         // the first instruction the CPU run does not model ("" = none)
};

struct Module {
    std::vector<Kernel> kernels;
    std::vector<Symbol> globals;                // .global and .const variables, offsets within their region
    std::map<uint32_t, std::string> files;      // .file numbers
    const Kernel* kernel(const std::string& name) const;
};

// A PTX text the parser does not understand (a bug of the parser or a directive it lacks): says
// which line and why.
struct PtxError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

Module parse_ptx(const std::string& text);

// The variable's source name from its mangled name: "_ZZ17smem_tiled_matmul...E6a_tile" → "a_tile".
std::string plain_name(const std::string& mangled);

}  // namespace tilelab::cpu
