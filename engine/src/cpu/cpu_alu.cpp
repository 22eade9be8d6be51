// The CPU run's arithmetic (cpu_machine.h): one PTX instruction on one thread's registers, with
// PTX's rules — integer widths and signedness from the type, IEEE round-to-nearest FP32/FP64
// (fma fused, as the hardware does), saturating float-to-integer conversions, predicates as 0/1.
// Registers hold 64 bits; a read takes the type's width (sign-extended for signed types).
#include "cpu/cpu_machine.h"
#include "cpu/ptx_addresses.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace tilelab::cpu {
namespace {

float as_f32(uint64_t v) { return std::bit_cast<float>(uint32_t(v)); }
double as_f64(uint64_t v) { return std::bit_cast<double>(v); }
uint64_t bits(float f) { return std::bit_cast<uint32_t>(f); }
uint64_t bits(double d) { return std::bit_cast<uint64_t>(d); }

float flush(float f, bool ftz) { return ftz && std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f; }

}  // namespace

namespace {

double read_float(uint64_t v, Ty t) {
    switch (t) {
    case Ty::f16: return half_to_float(uint16_t(v));
    case Ty::bf16: return bf16_to_float(uint16_t(v));
    case Ty::f32: return as_f32(v);
    default: return as_f64(v);
    }
}
uint64_t write_float(double d, Ty t) {
    switch (t) {
    case Ty::f16: return float_to_half(float(d));
    case Ty::bf16: return float_to_bf16(float(d));
    case Ty::f32: return bits(float(d));
    default: return bits(d);
    }
}

double round_as(double v, Round r) {
    switch (r) {
    case Round::rzi: case Round::rz: return std::trunc(v);
    case Round::rmi: case Round::rm: return std::floor(v);
    case Round::rpi: case Round::rp: return std::ceil(v);
    default: return std::nearbyint(v);   // rni / rn: to nearest even (the default mode)
    }
}

// Float to integer as cvt does: rounded as asked, NaN to 0, out of range to the nearest limit.
uint64_t float_to_int(double v, Ty to, Round r) {
    if (std::isnan(v)) return 0;
    v = round_as(v, r == Round::none ? Round::rzi : r);
    const int bytes = ty_bytes(to);
    if (ty_signed(to)) {
        const double lo = -std::ldexp(1.0, 8 * bytes - 1), hi = std::ldexp(1.0, 8 * bytes - 1) - 1;
        const int64_t i = v <= lo ? int64_t(lo) : v >= hi ? (bytes == 8 ? std::numeric_limits<int64_t>::max() : int64_t(hi)) : int64_t(v);
        return mask(uint64_t(i), bytes);
    }
    const double hi = std::ldexp(1.0, 8 * bytes) - 1;
    if (v <= 0) return 0;
    if (v >= hi) return bytes == 8 ? std::numeric_limits<uint64_t>::max() : uint64_t(hi);
    return uint64_t(v);
}

uint64_t convert(uint64_t v, Ty to, Ty from, Round r, bool sat) {
    const int tb = ty_bytes(to), fb = ty_bytes(from);
    if (ty_float(from) && ty_float(to)) {
        double x = read_float(v, from);
        if (r >= Round::rni && r <= Round::rpi) x = round_as(x, r);
        if (sat) x = std::isnan(x) ? 0 : std::clamp(x, 0.0, 1.0);
        return write_float(x, to);
    }
    if (ty_float(from)) return float_to_int(read_float(v, from), to, r);
    if (ty_float(to)) {
        const double x = ty_signed(from) ? double(sign_extend(v, fb)) : double(mask(v, fb));
        if (to == Ty::f32) {
            // Integers beyond 2^24 round once, to nearest (the default), not through double.
            const float f = ty_signed(from) ? float(sign_extend(v, fb)) : float(mask(v, fb));
            return bits(f);
        }
        return write_float(x, to);
    }
    // Integer to integer: extend by the source's signedness, then truncate (or saturate).
    const int64_t s = ty_signed(from) ? sign_extend(v, fb) : int64_t(mask(v, fb));
    if (sat && tb < 8) {
        const int64_t lo = ty_signed(to) ? -(int64_t(1) << (8 * tb - 1)) : 0;
        const int64_t hi = ty_signed(to) ? (int64_t(1) << (8 * tb - 1)) - 1 : (int64_t(1) << (8 * tb)) - 1;
        return mask(uint64_t(std::clamp(s, lo, hi)), tb);
    }
    return mask(uint64_t(s), tb);
}

bool compare(Cmp c, uint64_t a, uint64_t b, Ty t) {
    if (ty_float(t)) {
        const double x = read_float(a, t), y = read_float(b, t);
        const bool unordered = std::isnan(x) || std::isnan(y);
        switch (c) {
        case Cmp::eq: return !unordered && x == y;
        case Cmp::ne: return !unordered && x != y;
        case Cmp::lt: return !unordered && x < y;
        case Cmp::le: return !unordered && x <= y;
        case Cmp::gt: return !unordered && x > y;
        case Cmp::ge: return !unordered && x >= y;
        case Cmp::equ: return unordered || x == y;
        case Cmp::neu: return unordered || x != y;
        case Cmp::ltu: return unordered || x < y;
        case Cmp::leu: return unordered || x <= y;
        case Cmp::gtu: return unordered || x > y;
        case Cmp::geu: return unordered || x >= y;
        case Cmp::num: return !unordered;
        case Cmp::nan: return unordered;
        default: return false;
        }
    }
    const int n = ty_bytes(t);
    if (ty_signed(t) && c != Cmp::lo && c != Cmp::ls && c != Cmp::hi && c != Cmp::hs) {
        const int64_t x = sign_extend(a, n), y = sign_extend(b, n);
        switch (c) {
        case Cmp::eq: return x == y;
        case Cmp::ne: return x != y;
        case Cmp::lt: return x < y;
        case Cmp::le: return x <= y;
        case Cmp::gt: return x > y;
        case Cmp::ge: return x >= y;
        default: return false;
        }
    }
    const uint64_t x = mask(a, n), y = mask(b, n);
    switch (c) {
    case Cmp::eq: return x == y;
    case Cmp::ne: return x != y;
    case Cmp::lt: case Cmp::lo: return x < y;
    case Cmp::le: case Cmp::ls: return x <= y;
    case Cmp::gt: case Cmp::hi: return x > y;
    case Cmp::ge: case Cmp::hs: return x >= y;
    default: return false;
    }
}

// The high half of a full product.
uint64_t mul_hi(uint64_t a, uint64_t b, int bytes, bool is_signed) {
    if (bytes == 8) {
        if (is_signed) return uint64_t((__int128(int64_t(a)) * __int128(int64_t(b))) >> 64);
        return uint64_t((unsigned __int128)a * b >> 64);
    }
    const int shift = 8 * bytes;
    if (is_signed) return mask(uint64_t((sign_extend(a, bytes) * sign_extend(b, bytes)) >> shift), bytes);
    return mask((mask(a, bytes) * mask(b, bytes)) >> shift, bytes);
}

// Float arithmetic of one instruction in T (float for FP32: one rounding per operation, as the
// hardware; double for FP64, and for FP16/BF16, rounded to the type once at the end).
template <class T>
T float_math(const Instr& in, T x, T y, T z) {
    T r = 0;
    switch (in.op) {
    case Op::add: r = x + y; break;
    case Op::sub: r = x - y; break;
    case Op::mul: r = x * y; break;
    case Op::fma: case Op::mad: r = std::fma(x, y, z); break;
    case Op::div: r = x / y; break;
    case Op::min: r = std::fmin(x, y); break;
    case Op::max: r = std::fmax(x, y); break;
    case Op::abs: r = std::fabs(x); break;
    case Op::neg: r = -x; break;
    case Op::rcp: r = T(1) / x; break;
    case Op::sqrt: r = std::sqrt(x); break;
    case Op::rsqrt: r = T(1) / std::sqrt(x); break;
    case Op::ex2: r = std::exp2(x); break;
    case Op::lg2: r = std::log2(x); break;
    case Op::sin: r = std::sin(x); break;
    case Op::cos: r = std::cos(x); break;
    case Op::copysign: r = std::copysign(y, x); break;
    default: break;
    }
    return in.sat ? (std::isnan(r) ? T(0) : std::clamp(r, T(0), T(1))) : r;
}

uint64_t float_op(const Instr& in, uint64_t a, uint64_t b, uint64_t c) {
    if (in.type == Ty::f32) {
        const float r = float_math<float>(in, flush(as_f32(a), in.ftz), flush(as_f32(b), in.ftz), flush(as_f32(c), in.ftz));
        return bits(flush(r, in.ftz));
    }
    return write_float(float_math<double>(in, read_float(a, in.type), read_float(b, in.type), read_float(c, in.type)), in.type);
}

uint64_t int_op(const Instr& in, uint64_t a, uint64_t b, uint64_t c) {
    const int n = ty_bytes(in.type);
    const bool s = ty_signed(in.type);
    const int64_t sa = sign_extend(a, n), sb = sign_extend(b, n);
    const uint64_t ua = mask(a, n), ub = mask(b, n);
    switch (in.op) {
    case Op::add:
        if (in.sat && s && n == 4) return mask(uint64_t(std::clamp<int64_t>(sa + sb, INT32_MIN, INT32_MAX)), 4);
        return mask(ua + ub, n);
    case Op::sub:
        if (in.sat && s && n == 4) return mask(uint64_t(std::clamp<int64_t>(sa - sb, INT32_MIN, INT32_MAX)), 4);
        return mask(ua - ub, n);
    case Op::mul: case Op::mad: {
        uint64_t p = 0;
        int out = n;
        if (in.width == Width::wide) p = s ? uint64_t(sa * sb) : ua * ub, out = 2 * n;
        else if (in.width == Width::hi) p = mul_hi(a, b, n, s);
        else p = ua * ub;
        if (in.op == Op::mad) p += c;
        return mask(p, out);
    }
    case Op::div:
        if (ub == 0) return mask(~uint64_t(0), n);
        if (s) return (sb == -1 && sa == std::numeric_limits<int64_t>::min() >> (64 - 8 * n)) ? mask(uint64_t(sa), n) : mask(uint64_t(sa / sb), n);
        return ua / ub;
    case Op::rem:
        if (ub == 0) return ua;
        if (s) return sb == -1 ? 0 : mask(uint64_t(sa % sb), n);
        return ua % ub;
    case Op::min: return s ? mask(uint64_t(std::min(sa, sb)), n) : std::min(ua, ub);
    case Op::max: return s ? mask(uint64_t(std::max(sa, sb)), n) : std::max(ua, ub);
    case Op::abs: return mask(uint64_t(sa < 0 ? -sa : sa), n);
    case Op::neg: return mask(uint64_t(-sa), n);
    case Op::and_: return ua & ub;
    case Op::or_: return ua | ub;
    case Op::xor_: return ua ^ ub;
    case Op::not_: return mask(~ua, n);
    case Op::cnot: return ua == 0 ? 1 : 0;
    case Op::shl: return mask(b >= uint64_t(8 * n) ? 0 : ua << mask(b, 4), n);
    case Op::shr: {
        const uint64_t k = mask(b, 4);
        if (s) return mask(uint64_t(sa >> std::min<uint64_t>(k, 63)), n);
        return k >= uint64_t(8 * n) ? 0 : ua >> k;
    }
    case Op::popc: return uint64_t(std::popcount(ua));
    case Op::clz: return uint64_t(n == 8 ? std::countl_zero(ua) : std::countl_zero(uint32_t(ua)));
    case Op::brev: {
        uint64_t r = 0;
        for (int i = 0; i < 8 * n; ++i) r |= ((ua >> i) & 1) << (8 * n - 1 - i);
        return r;
    }
    case Op::bfe: {
        const uint64_t pos = b & 0xFF, len = c & 0xFF, width = uint64_t(8 * n);
        if (len == 0) return 0;
        const uint64_t field = pos >= width ? 0 : ua >> pos;
        const uint64_t l = std::min(len, width);
        uint64_t r = l >= 64 ? field : field & ((uint64_t(1) << l) - 1);
        if (s) {
            const uint64_t sign_bit = std::min(pos + len - 1, width - 1);
            if ((ua >> sign_bit) & 1) r |= l >= 64 ? 0 : ~((uint64_t(1) << l) - 1);
        }
        return mask(r, n);
    }
    default: return 0;
    }
}

}  // namespace

void Machine::execute(const Instr& in, uint32_t t, uint64_t* r) {
    const auto value = [&](const Operand& o) -> uint64_t {
        switch (o.kind) {
        case Operand::Kind::reg: return o.negate ? (r[o.reg] & 1) ^ 1 : r[o.reg];
        case Operand::Kind::imm: return o.imm;
        case Operand::Kind::special: return special(o.special, t);
        default: return 0;
        }
    };
    switch (in.op) {
    case Op::ld: case Op::st: memory(in, t, r); return;
    case Op::atom: case Op::red: atomic(in, t, r); return;
    case Op::nop: return;
    case Op::mov:
        if (in.d.kind == Operand::Kind::vec) {   // unpack: mov.b64 {%r1, %r2}, %rd1
            const uint64_t v = value(in.a);
            const int part = ty_bytes(in.type) / in.d.count;
            for (int i = 0; i < in.d.count; ++i) r[in.d.regs[i]] = mask(v >> (8 * part * i), part);
        } else if (in.a.kind == Operand::Kind::vec) {   // pack: mov.b64 %rd1, {%r1, %r2}
            const int part = ty_bytes(in.type) / in.a.count;
            uint64_t v = 0;
            for (int i = 0; i < in.a.count; ++i) v |= mask(r[in.a.regs[i]], part) << (8 * part * i);
            r[in.d.reg] = v;
        } else {
            r[in.d.reg] = in.type == Ty::pred ? value(in.a) & 1 : mask(value(in.a), ty_bytes(in.type));
        }
        return;
    case Op::cvta: {
        const uint64_t v = value(in.a);
        r[in.d.reg] = in.space == Space::shared ? (v | kSharedWindow) : in.space == Space::local ? (v | kLocalWindow) : v;
        return;
    }
    case Op::cvta_to: {
        const uint64_t v = value(in.a);
        r[in.d.reg] = in.space == Space::shared || in.space == Space::local ? (v & ~kWindowMask) : v;
        return;
    }
    case Op::setp: {
        bool p = compare(in.cmp, value(in.a), value(in.b), in.type);
        bool q = !p;
        if (in.bool_op != BoolOp::none) {
            const bool c = value(in.c) & 1;
            const auto combine = [&](bool x) {
                return in.bool_op == BoolOp::and_ ? x && c : in.bool_op == BoolOp::or_ ? x || c : x != c;
            };
            p = combine(p), q = combine(q);
        }
        r[in.d.reg] = p;
        if (in.d2.kind == Operand::Kind::reg) r[in.d2.reg] = q;
        return;
    }
    case Op::selp: r[in.d.reg] = (value(in.c) & 1) ? value(in.a) : value(in.b); return;
    case Op::bfi: {   // the low `len` bits of a into b at `pos` (bits past the width are dropped)
        const int n = ty_bytes(in.type);
        const uint64_t pos = value(in.c) & 0xFF, len = value(in.e) & 0xFF, width = uint64_t(8 * n);
        const uint64_t base = mask(value(in.b), n);
        if (len == 0 || pos >= width) {
            r[in.d.reg] = base;
            return;
        }
        const uint64_t l = std::min(len, width - pos), field = l >= 64 ? ~uint64_t(0) : (uint64_t(1) << l) - 1;
        r[in.d.reg] = mask((base & ~(field << pos)) | ((value(in.a) & field) << pos), n);
        return;
    }
    case Op::cvt:
        if (uint64_t packed = 0; convert_packed(in, value(in.a), value(in.b), packed)) r[in.d.reg] = packed;
        else r[in.d.reg] = convert(value(in.a), in.type, in.type2, in.round, in.sat);
        return;
    case Op::cp_async: case Op::cp_commit: case Op::cp_wait: case Op::cp_wait_all: async_copy(in, t); return;
    default: break;
    }
    if (in.type == Ty::pred) {   // and/or/xor/not on predicates
        const uint64_t a = value(in.a) & 1, b = value(in.b) & 1;
        r[in.d.reg] = in.op == Op::and_ ? (a & b) : in.op == Op::or_ ? (a | b) : in.op == Op::xor_ ? (a ^ b) : (a ^ 1);
        return;
    }
    const uint64_t a = value(in.a), b = value(in.b), c = value(in.c);
    r[in.d.reg] = ty_float(in.type) ? float_op(in, a, b, c) : int_op(in, a, b, c);
}

void Machine::atomic(const Instr& in, uint32_t t, uint64_t* r) {
    const uint64_t address = operand_address(in.a, t);
    const int n = ty_bytes(in.type);
    uint8_t* p = address_of(in, address, n, true, t);
    uint64_t old = 0;
    std::memcpy(&old, p, size_t(n));
    // atom d, [a], b (, c); red [a], b — the parser put red's value in d.
    const uint64_t b = in.op == Op::red ? (in.d.kind == Operand::Kind::imm ? in.d.imm : r[in.d.reg])
                                        : (in.b.kind == Operand::Kind::imm ? in.b.imm : r[in.b.reg]);
    const uint64_t c = in.c.kind == Operand::Kind::imm ? in.c.imm : in.c.kind == Operand::Kind::reg ? r[in.c.reg] : 0;
    uint64_t v = old;
    if (ty_float(in.type)) {
        if (in.atom == AtomOp::add) v = write_float(read_float(old, in.type) + read_float(b, in.type), in.type);
        else if (in.atom == AtomOp::exch) v = b;
    } else {
        const bool s = ty_signed(in.type);
        switch (in.atom) {
        case AtomOp::add: v = old + b; break;
        case AtomOp::min: v = s ? uint64_t(std::min(sign_extend(old, n), sign_extend(b, n))) : std::min(mask(old, n), mask(b, n)); break;
        case AtomOp::max: v = s ? uint64_t(std::max(sign_extend(old, n), sign_extend(b, n))) : std::max(mask(old, n), mask(b, n)); break;
        case AtomOp::exch: v = b; break;
        case AtomOp::cas: v = mask(old, n) == mask(b, n) ? c : old; break;
        case AtomOp::and_: v = old & b; break;
        case AtomOp::or_: v = old | b; break;
        case AtomOp::xor_: v = old ^ b; break;
        case AtomOp::inc: v = mask(old, n) >= mask(b, n) ? 0 : old + 1; break;
        case AtomOp::dec: v = (mask(old, n) == 0 || mask(old, n) > mask(b, n)) ? b : old - 1; break;
        }
    }
    v = mask(v, n);
    std::memcpy(p, &v, size_t(n));
    if (in.op == Op::atom && in.d.kind == Operand::Kind::reg) r[in.d.reg] = mask(old, n);
}

}  // namespace tilelab::cpu
