// The CPU run's tensor-core instructions (cpu_machine.h), as the PTX ISA defines them for sm_80:
//  - ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16: lanes 8i..8i+7 name the eight
//    16-byte rows of matrix i; lane l receives from each matrix the 32 bits of row l/4, elements
//    2(l%4) and 2(l%4)+1 (with .trans: column l/4, rows 2(l%4) and 2(l%4)+1), the lower element in
//    the lower half.
//  - mma.sync.aligned.m16n8k16 (FP16, BF16) and m16n8k8 (TF32) .row.col.f32, FP32 accumulators:
//    D = A·B + C in the ISA's fragment layouts (lane = 4·g + t: A rows g and g+8, B column g, C
//    rows g and g+8 at columns 2t, 2t+1). Products and sums are taken in double and rounded once
//    to FP32; the hardware's order and rounding differ within the tolerance every tensor-core check
//    allows. A TF32 operand's low 13 bits are ignored,
//    as the tensor cores ignore them.
//  - WMMA load, mma and store (m16n16k16 FP16, BF16; m16n16k8 TF32), in a layout of its own
//    (wmma_warp below).
//  - cp.async: the copy's source is read when it is issued; its bytes reach shared memory when the
//    thread waits for its group (cp.async.wait_group N completes every committed group but the
//    newest N; wait_all commits and completes all), the latest moment the ISA allows. A kernel
//    that reads a stage before waiting for it reads what was there before (NaN bytes at first),
//    and a barrier alone does not complete a copy, as on the GPU.
// Both warp-wide instructions need the whole warp at the same instruction (.aligned); the warp is
// released only when all 32 lanes are there.
#include <fmt/format.h>
#include <bit>
#include <cstring>

#include "cpu/cpu_machine.h"
#include "cpu/ptx_addresses.h"
#include "tilelab/i18n.h"

namespace tilelab::cpu {
namespace {

constexpr uint32_t kWarp = 32;

float f32_of(uint32_t bits) { return std::bit_cast<float>(bits); }

// One operand element as a double: the 16-bit half `part` (0 low, 1 high) of a register of
// FP16 or BF16, or a whole TF32 register (its low 13 bits ignored).
double element(uint64_t reg, Ty type, int part) {
    if (type == Ty::tf32) return double(f32_of(uint32_t(reg) & 0xFFFFE000u));
    const uint16_t h = uint16_t(reg >> (16 * part));
    return type == Ty::bf16 ? double(bf16_to_float(h)) : double(half_to_float(h));
}

// A float's bits rounded to TF32 (rna: to nearest, ties away; rn: ties to even; rz), NaN and ±∞ kept.
uint32_t tf32_bits(uint32_t f, Round r) {
    const uint32_t exponent = f & 0x7F800000u;
    if (exponent == 0x7F800000u) return (f & 0x007FFFFFu) ? 0x7FFFFFFFu : f;   // NaN (canonical), ±∞
    if (r == Round::rz) return f & 0xFFFFE000u;
    if (r == Round::rn) {   // to nearest, ties to even
        const uint32_t lsb = (f >> 13) & 1u;
        return (f + 0x0FFFu + lsb) & 0xFFFFE000u;
    }
    return (f + 0x1000u) & 0xFFFFE000u;   // rna: to nearest, ties away from zero (on the magnitude)
}

}  // namespace

bool convert_packed(const Instr& in, uint64_t a, uint64_t b, uint64_t& out) {
    if (in.type == Ty::tf32) {   // cvt.{rna,rn,rz}.tf32.f32
        out = tf32_bits(uint32_t(a), in.round == Round::none ? Round::rna : in.round);
        return true;
    }
    if (in.type != Ty::f16x2 && in.type != Ty::bf16x2) return false;
    // cvt.rn.{f16x2,bf16x2}.f32 d, a, b: a to the upper half, b to the lower.
    const auto half = [&](uint64_t v) -> uint64_t {
        const float f = f32_of(uint32_t(v));
        return in.type == Ty::bf16x2 ? float_to_bf16(f) : float_to_half(f);
    };
    out = (half(a) << 16) | half(b);
    return true;
}

void Machine::collective_warp(uint32_t first, uint32_t lanes) {
    const Instr& in = k_.code[threads_[first].pc];
    for (uint32_t l = 0; l < lanes; ++l)
        if (lanes != kWarp || threads_[first + l].pc != threads_[first].pc)
            fail("warp-wide",
                 say("lanes of warp {} reach different warp-wide instructions (or the warp is not whole): {} needs all 32 "
                     "lanes at the same one (.aligned)",
                     "线程束 {} 的各 lane 到达了不同的整束指令（或线程束不完整）：{} 要求全部 32 个 lane 位于同一条指令（.aligned）",
                     first / kWarp, in.op == Op::ldmatrix ? "ldmatrix" : in.op == Op::mma ? "mma.sync" : "wmma"),
                 first + l, k_.code[threads_[first + l].pc]);
    if (in.op == Op::ldmatrix) ldmatrix_warp(first, in);
    else if (in.op == Op::mma) mma_warp(first, in);
    else wmma_warp(first, in);
    for (uint32_t l = 0; l < lanes; ++l) {
        ++threads_[first + l].pc;
        threads_[first + l].state = Thread::State::running;
    }
}

void Machine::ldmatrix_warp(uint32_t first, const Instr& in) {
    auto regs = [&](uint32_t l) { return regs_of(first + l); };
    uint16_t m[4][8][8];   // matrix, row, element
    for (int i = 0; i < in.vec; ++i)
        for (int row = 0; row < 8; ++row) {
            const uint32_t l = uint32_t(8 * i + row);
            const uint64_t address = operand_address(in.a, first + l) & ~kWindowMask;
            std::memcpy(m[i][row], shared_address(address, 16, false, first + l, in), 16);
        }
    for (uint32_t l = 0; l < kWarp; ++l)
        for (int i = 0; i < in.vec; ++i) {
            const int r = int(l / 4), c = 2 * int(l % 4);
            const uint16_t lo = in.trans ? m[i][c][r] : m[i][r][c], hi = in.trans ? m[i][c + 1][r] : m[i][r][c + 1];
            regs(l)[in.d.regs[i]] = uint64_t(lo) | uint64_t(hi) << 16;
        }
}

// mma.sync m16n8kK: A (16×K), B (K×8) and C (16×8) gathered from the lanes' fragments.
void Machine::mma_warp(uint32_t first, const Instr& in) {
    auto regs = [&](uint32_t l) { return regs_of(first + l); };
    const int K = in.shape_k;
    const bool tf32 = in.type2 == Ty::tf32;
    const int per_reg = tf32 ? 1 : 2, a_regs = tf32 ? 4 : K / 4, b_regs = tf32 ? 2 : K / 8;
    double A[16][16] = {}, B[16][8] = {}, C[16][8] = {};
    for (uint32_t l = 0; l < kWarp; ++l) {
        const int g = int(l / 4), t = int(l % 4);
        const uint64_t* r = regs(l);
        // A: register v holds row g + 8·(v & 1); columns 2t, 2t+1 (+8 for v ≥ 2), TF32 column t (+4).
        for (int v = 0; v < a_regs; ++v)
            for (int p = 0; p < per_reg; ++p) {
                const int row = g + 8 * (v & 1), col = tf32 ? t + 4 * (v >> 1) : 2 * t + p + 8 * (v >> 1);
                A[row][col] = element(r[in.a.regs[v]], in.type2, p);
            }
        // B: register v holds column g, rows 2t, 2t+1 (+8 for v = 1), TF32 row t (+4).
        for (int v = 0; v < b_regs; ++v)
            for (int p = 0; p < per_reg; ++p) {
                const int row = tf32 ? t + 4 * v : 2 * t + p + 8 * v;
                B[row][g] = element(r[in.b.regs[v]], in.type2, p);
            }
        for (int v = 0; v < 4; ++v) C[g + 8 * (v >> 1)][2 * t + (v & 1)] = double(f32_of(uint32_t(r[in.c.regs[v]])));
    }
    for (uint32_t l = 0; l < kWarp; ++l) {
        const int g = int(l / 4), t = int(l % 4);
        for (int v = 0; v < 4; ++v) {
            const int row = g + 8 * (v >> 1), col = 2 * t + (v & 1);
            double sum = C[row][col];
            for (int k = 0; k < K; ++k) sum += A[row][k] * B[k][col];
            regs(l)[in.d.regs[v]] = std::bit_cast<uint32_t>(float(sum));
        }
    }
}

// WMMA fragments are opaque (the ISA leaves their layout to the implementation), so the CPU run
// picks one: lane l holds elements (l·E + i) mod (rows·cols) of the row-major fragment, i < E,
// E = registers × elements a register (FP16 fragments of A and B hold each element twice, in
// lanes l and l + 16; every other fragment once), a 16-bit register's lower half first. A load
// reads each element once (by its first holder), the memory layout (row, col) and the stride as
// the instruction says; the product gathers A, B and C from those places and scatters D.
void Machine::wmma_warp(uint32_t first, const Instr& in) {
    auto regs = [&](uint32_t l) { return regs_of(first + l); };
    const int K = in.shape_k;
    const auto dims = [&](char matrix) { return matrix == 'a' ? std::pair{16, K} : matrix == 'b' ? std::pair{K, 16} : std::pair{16, 16}; };
    const auto bytes_of = [](Ty t) { return t == Ty::f16 || t == Ty::bf16 ? 2 : 4; };
    struct Place {
        uint32_t lane;
        int reg, part;
    };
    // Where element e of a fragment of `type` with `count` registers a lane first lives.
    const auto place = [&](int e, Ty type, int count) {
        const int per = 4 / bytes_of(type), E = count * per;
        return Place{uint32_t(e / E), (e % E) / per, (e % E) % per};
    };
    // A fragment too small for its matrix would place elements past the warp's lanes.
    const auto check = [&](const Operand& o, Ty type, char matrix) {
        const auto [rows, cols] = dims(matrix);
        if (o.count * (4 / bytes_of(type)) * int(kWarp) < rows * cols)
            fail("warp-wide",
                 say("a WMMA fragment of {} registers a lane cannot hold a {}×{} matrix", "{} 个寄存器/lane 的 WMMA 片段装不下 {}×{} 矩阵",
                     int(o.count), rows, cols),
                 first, in);
    };
    if (in.op == Op::wmma_mma) {
        double A[16][16] = {}, B[16][16] = {}, C[16][16] = {};
        const auto gather = [&](double (*m)[16], char matrix, const Operand& o, Ty type) {
            const auto [rows, cols] = dims(matrix);
            for (int e = 0; e < rows * cols; ++e) {
                const Place p = place(e, type, o.count);
                const uint64_t reg = regs(p.lane)[o.regs[p.reg]];
                m[e / cols][e % cols] = type == Ty::f32 ? double(f32_of(uint32_t(reg))) : element(reg, type, p.part);
            }
        };
        check(in.a, in.type2, 'a'), check(in.b, in.type2, 'b'), check(in.c, Ty::f32, 'c'), check(in.d, Ty::f32, 'd');
        gather(A, 'a', in.a, in.type2), gather(B, 'b', in.b, in.type2), gather(C, 'c', in.c, Ty::f32);
        for (int e = 0; e < 256; ++e) {
            const int row = e / 16, col = e % 16;
            double sum = C[row][col];
            for (int k = 0; k < K; ++k) sum += A[row][k] * B[k][col];
            const Place p = place(e, Ty::f32, in.d.count);
            regs(p.lane)[in.d.regs[p.reg]] = std::bit_cast<uint32_t>(float(sum));
        }
        return;
    }
    const bool load = in.op == Op::wmma_load;
    const Operand& frag = in.d;   // the parser put the fragment in d and the address in a
    check(frag, in.type, in.matrix);
    const auto [rows, cols] = dims(in.matrix);
    const int size = bytes_of(in.type), per = 4 / size, E = frag.count * per, total = rows * cols;
    const uint64_t base = operand_address(in.a, first), stride = operand_value(in.b, first);
    for (int e = 0; e < total; ++e) {
        const int row = e / cols, col = e % cols;
        const uint64_t at = base + uint64_t(size) * ((in.col_major & 1) ? uint64_t(col) * stride + uint64_t(row)
                                                                         : uint64_t(row) * stride + uint64_t(col));
        const Place p = place(e, in.type, frag.count);
        uint8_t* memory = address_of(in, at, size, !load, first + p.lane);
        if (!load) {
            std::memcpy(memory, &regs(p.lane)[frag.regs[p.reg]], size_t(size));
            continue;
        }
        uint32_t value = 0;
        std::memcpy(&value, memory, size_t(size));
        for (uint32_t l = p.lane; l < kWarp; l += uint32_t(total / E > 0 ? total / E : 32)) {   // every holder
            uint64_t& reg = regs(l)[frag.regs[p.reg]];
            reg = per == 1 ? value : (reg & ~(uint64_t(0xFFFF) << (16 * p.part))) | uint64_t(value) << (16 * p.part);
        }
    }
}

void Machine::async_copy(const Instr& in, uint32_t t) {
    std::vector<PendingCopy>& mine = copies_[t];
    const auto complete = [&](uint32_t before_group) {   // every copy of a group older than before_group
        size_t kept = 0;
        for (PendingCopy& c : mine) {
            if (c.group < before_group) std::memcpy(shared_address(c.offset, c.size, true, t, *c.in), c.bytes, c.size);
            else mine[kept++] = c;
        }
        mine.resize(kept);
    };
    switch (in.op) {
    case Op::cp_async: {
        PendingCopy c;
        c.offset = operand_address(in.d, t) & ~kWindowMask;
        c.size = uint8_t(operand_value(in.b, t));
        const uint64_t src_size = in.c.kind == Operand::Kind::none ? c.size : operand_value(in.c, t);
        const uint64_t from = operand_address(in.a, t);
        const int read = int(std::min<uint64_t>(src_size, c.size));
        if (c.size != 4 && c.size != 8 && c.size != 16)
            fail("misaligned", say("a cp.async of {} bytes (4, 8 or 16)", "{} 字节的 cp.async（应为 4、8 或 16）", int(c.size)), t, in);
        if (read > 0) std::memcpy(c.bytes, global_address(from, read, false, t, in), size_t(read));
        c.group = copy_groups_[t];
        c.in = &in;
        mine.push_back(c);
        return;
    }
    case Op::cp_commit: ++copy_groups_[t]; return;
    case Op::cp_wait_all: complete(++copy_groups_[t]); return;
    case Op::cp_wait: {
        const uint64_t newest = operand_value(in.a, t);
        complete(copy_groups_[t] >= newest ? copy_groups_[t] - uint32_t(newest) : 0);
        return;
    }
    default: return;
    }
}

}  // namespace tilelab::cpu
