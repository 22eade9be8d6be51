// The PTX reader of the CPU run (ptx.h). One statement per line, as NVRTC writes it: directives,
// labels, instructions ending in ';'. Unknown directives outside kernels are skipped (debug
// sections, .version, .target); an unknown instruction inside a kernel is an error of the parser,
// a known one the CPU run does not model marks the kernel as needing a GPU.
#include "cpu/ptx.h"
#include "cpu/ptx_addresses.h"
#include "cpu/ptx_text.h"

#include <fmt/format.h>
#include <algorithm>
#include <cstring>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace tilelab::cpu {

namespace {

const std::unordered_map<std::string, Ty> kTypes = {
    {"pred", Ty::pred}, {"b8", Ty::b8},   {"b16", Ty::b16}, {"b32", Ty::b32},   {"b64", Ty::b64}, {"u8", Ty::u8},
    {"u16", Ty::u16},   {"u32", Ty::u32}, {"u64", Ty::u64}, {"s8", Ty::s8},     {"s16", Ty::s16}, {"s32", Ty::s32},
    {"s64", Ty::s64},   {"f16", Ty::f16}, {"bf16", Ty::bf16}, {"f32", Ty::f32}, {"f64", Ty::f64},
    {"tf32", Ty::tf32}, {"f16x2", Ty::f16x2}, {"bf16x2", Ty::bf16x2},
};
const std::unordered_map<std::string, Op> kOps = {
    {"mov", Op::mov},   {"ld", Op::ld},       {"ldu", Op::ld},     {"st", Op::st},     {"cvta", Op::cvta},
    {"add", Op::add},   {"sub", Op::sub},     {"mul", Op::mul},    {"mad", Op::mad},   {"fma", Op::fma},
    {"div", Op::div},   {"rem", Op::rem},     {"min", Op::min},    {"max", Op::max},   {"abs", Op::abs},
    {"neg", Op::neg},   {"and", Op::and_},    {"or", Op::or_},     {"xor", Op::xor_},  {"not", Op::not_},
    {"cnot", Op::cnot}, {"shl", Op::shl},     {"shr", Op::shr},    {"setp", Op::setp}, {"selp", Op::selp},
    {"cvt", Op::cvt},   {"bra", Op::bra},     {"bar", Op::bar},    {"barrier", Op::bar}, {"ret", Op::ret},
    {"exit", Op::ret},  {"atom", Op::atom},   {"red", Op::red},    {"rcp", Op::rcp},   {"sqrt", Op::sqrt},
    {"rsqrt", Op::rsqrt}, {"ex2", Op::ex2},   {"lg2", Op::lg2},    {"sin", Op::sin},   {"cos", Op::cos},
    {"popc", Op::popc}, {"clz", Op::clz},     {"brev", Op::brev},  {"bfe", Op::bfe},   {"bfi", Op::bfi},   {"copysign", Op::copysign},
    {"membar", Op::nop}, {"fence", Op::nop},  {"prefetch", Op::nop}, {"prefetchu", Op::nop}, {"pmevent", Op::nop},
    {"trap", Op::nop},  {"shfl", Op::shfl},   {"ldmatrix", Op::ldmatrix}, {"mma", Op::mma},
};
// Instructions whose meaning depends on the hardware the CPU run does not model, each with what it is.
const std::unordered_map<std::string, const char*> kNeedsGpu = {
    {"stmatrix", "stmatrix"},
    {"wgmma", "wgmma (tensor cores)"},
    {"vote", "warp votes"},                      {"redux", "warp reductions"},
    {"activemask", "__activemask"},              {"match", "warp match"},         {"mbarrier", "mbarrier"},
    {"call", "a call of a function that was not inlined"}, {"tcgen05", "tcgen05 (tensor cores)"},
    {"setmaxnreg", "setmaxnreg"},                {"elect", "elect.sync"},         {"tensormap", "tensor maps (TMA)"},
    {"griddepcontrol", "griddepcontrol"},        {"prmt", "prmt"},                {"lop3", "lop3"},
    {"dp4a", "dp4a"},                            {"dp2a", "dp2a"},
    {"sad", "sad"},                              {"mul24", "mul24"},              {"mad24", "mad24"},
    {"vabsdiff", "video instructions"},          {"tanh", "tanh.approx"},         {"testp", "testp"},
    {"fns", "fns"},                              {"bmsk", "bmsk"},                {"szext", "szext"},
    {"nanosleep", "nanosleep"},
};
const std::unordered_map<std::string, Cmp> kCmps = {
    {"eq", Cmp::eq},   {"ne", Cmp::ne},   {"lt", Cmp::lt},   {"le", Cmp::le},   {"gt", Cmp::gt},   {"ge", Cmp::ge},
    {"lo", Cmp::lo},   {"ls", Cmp::ls},   {"hi", Cmp::hi},   {"hs", Cmp::hs},   {"equ", Cmp::equ}, {"neu", Cmp::neu},
    {"ltu", Cmp::ltu}, {"leu", Cmp::leu}, {"gtu", Cmp::gtu}, {"geu", Cmp::geu}, {"num", Cmp::num}, {"nan", Cmp::nan},
};
const std::unordered_map<std::string, Round> kRounds = {
    {"rn", Round::rn},   {"rz", Round::rz},   {"rm", Round::rm},   {"rp", Round::rp},
    {"rni", Round::rni}, {"rzi", Round::rzi}, {"rmi", Round::rmi}, {"rpi", Round::rpi}, {"rna", Round::rna},
};
const std::unordered_map<std::string, AtomOp> kAtoms = {
    {"add", AtomOp::add}, {"min", AtomOp::min}, {"max", AtomOp::max}, {"exch", AtomOp::exch}, {"cas", AtomOp::cas},
    {"and", AtomOp::and_}, {"or", AtomOp::or_}, {"xor", AtomOp::xor_}, {"inc", AtomOp::inc}, {"dec", AtomOp::dec},
};
const std::unordered_map<std::string, Special> kSpecials = {
    {"%tid.x", Special::tid_x},       {"%tid.y", Special::tid_y},       {"%tid.z", Special::tid_z},
    {"%ntid.x", Special::ntid_x},     {"%ntid.y", Special::ntid_y},     {"%ntid.z", Special::ntid_z},
    {"%ctaid.x", Special::ctaid_x},   {"%ctaid.y", Special::ctaid_y},   {"%ctaid.z", Special::ctaid_z},
    {"%nctaid.x", Special::nctaid_x}, {"%nctaid.y", Special::nctaid_y}, {"%nctaid.z", Special::nctaid_z},
    {"%laneid", Special::laneid},     {"%warpid", Special::warpid},     {"%smid", Special::zero},
};

// "" where the CPU run models this cp, ldmatrix, mma or wmma instruction (cpu_tensor.cpp), else
// what it is: cp.async (not .bulk, TMA), ldmatrix of 8×8 16-bit matrices, mma.sync m16n8k16 with
// FP16 or BF16 and m16n8k8 with TF32 operands, WMMA m16n16k16 and m16n16k8, FP32 accumulators.
std::string tensor_unsupported(const std::string& op) {
    const auto has = [&](const char* part) { return op.find(part) != std::string::npos; };
    if (op.rfind("cp.", 0) == 0)
        return op.rfind("cp.async.", 0) == 0 && !has(".bulk") && !has("mbarrier") ? "" : "cp.async.bulk (TMA) and other bulk copies";
    if (op.rfind("ldmatrix", 0) == 0) return has(".m8n8.") && has(".b16") ? "" : "ldmatrix of this shape";
    const auto ends = [&](const char* tail) {
        const size_t n = std::strlen(tail);
        return op.size() >= n && op.compare(op.size() - n, n, tail) == 0;
    };
    if (op.rfind("wmma.mma.", 0) == 0)   // FP32 accumulators: m16n16k16 FP16 or BF16, m16n16k8 TF32
        return ends(".m16n16k16.f32.f32") || ends(".m16n16k16.f32.bf16.bf16.f32") || ends(".m16n16k8.f32.tf32.tf32.f32")
                   ? ""
                   : "WMMA of this shape or type";
    if (op.rfind("wmma.", 0) == 0)
        return (has(".m16n16k16.") || has(".m16n16k8.")) && (ends(".f16") || ends(".bf16") || ends(".tf32") || ends(".f32"))
                   ? ""
                   : "WMMA of this shape or type";
    // The forms the lessons' kernels use, whose layouts their validated runs confirm.
    const bool k16 = has(".m16n8k16.") && (has(".bf16.bf16.") || has(".f16.f16."));
    const bool tf32 = has(".m16n8k8.") && has(".tf32.tf32.");
    const bool types = has(".row.col.f32.") && ends(".f32");
    return op.rfind("mma.sync.aligned.", 0) == 0 && (k16 || tf32) && types ? "" : "mma.sync of this shape or type";
}

struct Parser {
    Module module;
    std::unordered_map<std::string, uint64_t> module_symbols;   // name -> virtual address
    uint64_t module_bytes = 0;
    int line_no = 0;

    // Per kernel
    Kernel* k = nullptr;
    std::unordered_map<std::string, uint32_t> regs;
    std::unordered_set<std::string> named_regs;   // registers declared without '%' (inline asm's "low, high")
    std::unordered_map<std::string, uint32_t> labels;
    std::vector<std::pair<uint32_t, std::string>> pending_branches;
    std::unordered_map<std::string, uint64_t> kernel_symbols;     // shared/local name -> offset
    std::unordered_map<std::string, uint32_t> param_offsets;
    std::vector<Symbol> extern_shared;                             // extern .shared (module scope)
    uint32_t cur_file = 0, cur_line = 0;

    [[noreturn]] void fail(const std::string& why) const {
        throw PtxError(fmt::format("PTX line {}: {}", line_no, why));
    }

    uint32_t reg(const std::string& name) {
        const auto [it, added] = regs.emplace(name, uint32_t(regs.size()));
        return it->second;
    }

    // A variable declaration: ".shared .align 4 .b8 name[1024];", ".global .align 4 .u32 x = 16;"
    Symbol declare(const std::string& text) {
        Symbol s;
        std::string rest = text;
        std::string init;
        if (const size_t eq = rest.find('='); eq != std::string::npos) init = trim(rest.substr(eq + 1)), rest = trim(rest.substr(0, eq));
        std::istringstream words(rest);
        std::string w, ty = "b8", name;
        while (words >> w) {
            if (w == ".shared") s.space = Space::shared;
            else if (w == ".local") s.space = Space::local;
            else if (w == ".global") s.space = Space::global;
            else if (w == ".const") s.space = Space::constant;
            else if (w == ".align") words >> s.align;
            else if (w == ".extern" || w == ".visible" || w == ".weak" || w == ".common") continue;
            else if (w[0] == '.') ty = w.substr(1);
            else name = w;
        }
        const auto t = kTypes.find(ty);
        if (t == kTypes.end()) fail("a variable of type ." + ty);
        uint64_t count = 1;
        if (const size_t br = name.find('['); br != std::string::npos) {
            const std::string n = name.substr(br + 1, name.find(']') - br - 1);
            s.dynamic = n.empty();
            count = n.empty() ? 0 : std::stoull(n);
            name = name.substr(0, br);
        }
        s.name = name;
        s.bytes = count * uint64_t(ty_bytes(t->second));
        if (!init.empty()) {
            if (init.front() == '{') init = init.substr(1, init.size() - 2);
            for (const std::string& v : split(init, ',')) {
                bool ok = false;
                const uint64_t bits = parse_immediate(v, ok);
                if (!ok) fail("an initialiser '" + v + "'");
                for (int b = 0; b < ty_bytes(t->second); ++b) s.init.push_back(uint8_t(bits >> (8 * b)));
            }
        }
        return s;
    }

    static uint64_t align_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

    void module_variable(const std::string& text) {
        Symbol s = declare(text);
        s.offset = align_up(module_bytes, std::max<uint32_t>(s.align, 8));
        module_bytes = s.offset + std::max<uint64_t>(s.bytes, 1);
        if (module_bytes > kRegionBytes) fail("module variables larger than a region");
        module_symbols[s.name] = kModuleBase + s.offset;
        module.globals.push_back(std::move(s));
    }

    void kernel_variable(const std::string& text) {
        Symbol s = declare(text);
        if (s.space == Space::local) {
            s.offset = align_up(k->local_bytes, s.align);
            k->local_bytes = s.offset + s.bytes;
            kernel_symbols[s.name] = s.offset;
            k->local.push_back(std::move(s));
        } else if (s.space == Space::shared) {
            if (s.dynamic) fail("dynamic shared memory declared inside a kernel");
            s.offset = align_up(k->static_shared, s.align);
            k->static_shared = s.offset + s.bytes;
            kernel_symbols[s.name] = s.offset;
            k->shared.push_back(std::move(s));
        } else {
            fail("a kernel-scope variable in this state space");
        }
    }

    bool symbol_address(const std::string& name, uint64_t& address) const {
        if (const auto it = kernel_symbols.find(name); it != kernel_symbols.end()) return address = it->second, true;
        if (const auto it = module_symbols.find(name); it != module_symbols.end()) return address = it->second, true;
        if (const auto it = param_offsets.find(name); it != param_offsets.end()) return address = it->second, true;
        // Dynamic shared memory follows the kernel's static variables, which are declared first.
        for (const Symbol& s : extern_shared)
            if (s.name == name) return address = align_up(k ? k->static_shared : 0, 16), true;
        return false;
    }

    Operand operand(const std::string& text) {
        Operand o;
        std::string t = trim(text);
        if (t.empty()) fail("an empty operand");
        if (t[0] == '!') o.negate = true, t = t.substr(1);
        if (t[0] == '[') {
            o.kind = Operand::Kind::mem;
            std::string inner = trim(t.substr(1, t.find(']') - 1));
            std::string base = inner, off;
            if (const size_t plus = inner.find('+'); plus != std::string::npos)
                base = trim(inner.substr(0, plus)), off = trim(inner.substr(plus + 1));
            bool ok = true;
            if (!off.empty()) o.imm = parse_immediate(off, ok);
            if (!ok) fail("an address offset '" + off + "'");
            if (base[0] == '%') {
                o.has_base = true, o.reg = reg(base);
            } else {
                uint64_t address = 0;
                if (symbol_address(base, address)) o.imm += address;
                else if (bool num = true; (address = parse_immediate(base, num)), num) o.imm += address;
                else fail("an address of unknown '" + base + "'");
            }
            return o;
        }
        if (t[0] == '{') {
            o.kind = Operand::Kind::vec;
            const auto parts = split(t.substr(1, t.size() - 2), ',');
            if (parts.empty() || parts.size() > 8) fail("a vector of " + std::to_string(parts.size()));
            o.count = uint8_t(parts.size());
            for (size_t i = 0; i < parts.size(); ++i) o.regs[i] = reg(parts[i] == "_" ? "%_sink" : parts[i]);
            return o;
        }
        if (t[0] == '%') {
            if (const auto s = kSpecials.find(t); s != kSpecials.end()) return o.kind = Operand::Kind::special, o.special = s->second, o;
            if (t.find('.') != std::string::npos || t.rfind("%lanemask", 0) == 0 || t.rfind("%clock", 0) == 0 ||
                t.rfind("%globaltimer", 0) == 0 || t.rfind("%nwarpid", 0) == 0 || t.rfind("%nsmid", 0) == 0)
                fail("the special register " + t);
            o.kind = Operand::Kind::reg, o.reg = reg(t);
            return o;
        }
        if (t == "_") return o.kind = Operand::Kind::reg, o.reg = reg("%_sink"), o;
        if (named_regs.count(t)) return o.kind = Operand::Kind::reg, o.reg = reg(t), o;
        uint64_t address = 0;
        if (symbol_address(t, address)) return o.kind = Operand::Kind::imm, o.imm = address, o;
        bool ok = false;
        o.imm = parse_immediate(t, ok);
        if (!ok) {
            if (labels.count(t) || t.rfind("$L", 0) == 0) return o;   // a branch target: resolved later
            fail("an operand '" + t + "'");
        }
        o.kind = Operand::Kind::imm;
        return o;
    }

    void modifiers(Instr& in, const std::vector<std::string>& mods) {
        std::vector<Ty> types;
        for (const std::string& m : mods) {
            if (const auto t = kTypes.find(m); t != kTypes.end()) types.push_back(t->second);
            else if (m == "global") in.space = Space::global;
            else if (m == "shared" || m == "shared::cta") in.space = Space::shared;
            else if (m == "local") in.space = Space::local;
            else if (m == "param") in.space = Space::param;
            else if (m == "const") in.space = Space::constant;
            else if (m == "v2") in.vec = 2;
            else if (m == "v4") in.vec = 4;
            else if (m == "lo") in.width = Width::lo, in.cmp = Cmp::lo;
            else if (m == "hi") in.width = Width::hi, in.cmp = Cmp::hi;
            else if (m == "wide") in.width = Width::wide;
            else if (m == "sat") in.sat = true;
            else if (m == "x1" || m == "x2" || m == "x4") in.vec = uint8_t(m[1] - '0');
            else if (m == "trans") in.trans = true;
            else if (m == "m16n8k16" || m == "m16n8k8") in.shape_k = m == "m16n8k16" ? 16 : 8;
            else if (m == "ftz") in.ftz = true;
            else if (m == "approx" || m == "full") in.approx = true;
            else if (m == "to") in.op = in.op == Op::cvta ? Op::cvta_to : in.op;
            else if ((in.op == Op::setp) && (m == "and" || m == "or" || m == "xor"))
                in.bool_op = m == "and" ? BoolOp::and_ : m == "or" ? BoolOp::or_ : BoolOp::xor_;
            else if ((in.op == Op::atom || in.op == Op::red) && kAtoms.count(m)) in.atom = kAtoms.at(m);
            else if (in.op == Op::shfl && (m == "up" || m == "down" || m == "bfly" || m == "idx"))
                in.shfl = m == "up" ? Shfl::up : m == "down" ? Shfl::down : m == "bfly" ? Shfl::bfly : Shfl::idx;
            else if (const auto c = kCmps.find(m); c != kCmps.end()) in.cmp = c->second;
            else if (const auto r = kRounds.find(m); r != kRounds.end()) in.round = r->second;
            // Caching, ordering and scope hints change nothing a single-threaded walk can see.
        }
        if ((in.op == Op::cvt && types.size() == 2) || (in.op == Op::mma && types.size() == 4))
            in.type = types[0], in.type2 = types[1];   // cvt: destination, source; mma: D, A and B
        else if (!types.empty()) in.type = types.back();
    }

    // cp.async.{ca,cg}.shared.global [dst], [src], size{, src-size}; commit_group; wait_group N; wait_all.
    void cp_instruction(Instr& in, const std::string& opcode, const std::string& args) {
        in.line = cur_line, in.file = cur_file;
        if (opcode == "cp.async.commit_group") {
            in.op = Op::cp_commit;
        } else if (opcode == "cp.async.wait_all") {
            in.op = Op::cp_wait_all;
        } else if (opcode == "cp.async.wait_group") {
            in.op = Op::cp_wait, in.a = operand(args);
        } else {
            const std::vector<std::string> ops = split(args, ',');
            if (ops.size() < 3 || ops.size() > 4) fail("a cp.async without 3 or 4 operands");
            in.op = Op::cp_async;
            in.d = operand(ops[0]), in.a = operand(ops[1]), in.b = operand(ops[2]);
            if (ops.size() == 4) in.c = operand(ops[3]);
        }
        k->code.push_back(in);
    }

    // wmma.load.{a,b,c}.sync.aligned.{row,col}.SHAPE{.space}.TYPE {r...}, [p], stride;
    // wmma.mma.sync.aligned.{row,col}.{row,col}.SHAPE.DTYPE{.ATYPE.BTYPE}.CTYPE d, a, b, c;
    // wmma.store.d.sync.aligned.{row,col}.SHAPE{.space}.TYPE [p], {r...}, stride;
    void wmma_instruction(Instr& in, const std::vector<std::string>& parts, const std::string& args) {
        in.line = cur_line, in.file = cur_file;
        in.op = parts[1] == "load" ? Op::wmma_load : parts[1] == "store" ? Op::wmma_store : Op::wmma_mma;
        std::vector<Ty> types;
        int layouts = 0;
        for (size_t i = 2; i < parts.size(); ++i) {
            const std::string& m = parts[i];
            if (m == "row" || m == "col") in.col_major |= uint8_t((m == "col" ? 1 : 0) << layouts++);
            else if (m == "m16n16k16" || m == "m16n16k8") in.shape_k = m == "m16n16k16" ? 16 : 8;
            else if (m.size() == 1) in.matrix = m[0];
            else if (m == "shared") in.space = Space::shared;
            else if (m == "global") in.space = Space::global;
            else if (const auto t = kTypes.find(m); t != kTypes.end()) types.push_back(t->second);
        }
        if (types.empty()) fail("a wmma instruction without a type");
        in.type = types.front();
        in.type2 = types.size() == 4 ? types[1] : in.op == Op::wmma_mma ? Ty::f16 : types.front();   // "f32.f32": FP16 operands
        const std::vector<std::string> ops = split(args, ',');
        if (in.op == Op::wmma_mma) {
            if (ops.size() != 4) fail("a wmma.mma without 4 operands");
            in.d = operand(ops[0]), in.a = operand(ops[1]), in.b = operand(ops[2]), in.c = operand(ops[3]);
        } else {
            if (ops.size() != 3) fail("a wmma load or store without 3 operands");
            const bool load = in.op == Op::wmma_load;
            in.d = operand(ops[load ? 0 : 1]), in.a = operand(ops[load ? 1 : 0]), in.b = operand(ops[2]);
        }
        k->code.push_back(in);
    }

    void instruction(const std::string& text) {
        Instr in;
        std::string t = text;
        if (t[0] == '@') {
            const size_t sp = t.find_first_of(" \t");
            std::string g = t.substr(1, sp - 1);
            if (g[0] == '!') in.guard_negate = true, g = g.substr(1);
            in.guard = int32_t(reg(g));
            t = trim(t.substr(sp));
        }
        const size_t sp = t.find_first_of(" \t");
        const std::string opcode = t.substr(0, sp);
        const std::string args = sp == std::string::npos ? "" : trim(t.substr(sp));
        std::vector<std::string> parts = split(opcode, '.');
        const std::string head = parts[0];
        if (k->needs_gpu.empty()) {
            if (const auto g = kNeedsGpu.find(head); g != kNeedsGpu.end()) k->needs_gpu = g->second;
            else if ((head == "bar" || head == "barrier") && opcode.find(".sync") == std::string::npos && opcode != "bar")
                k->needs_gpu = "named barriers (bar.arrive, bar.red)";
        }
        if (head == "bar" && opcode.find(".warp") != std::string::npos) {   // bar.warp.sync mask (__syncwarp)
            in.op = Op::warp_sync, in.e = operand(args), in.line = cur_line, in.file = cur_file;
            k->code.push_back(in);
            return;
        }
        if (head == "cp" || head == "ldmatrix" || head == "mma" || head == "wmma") {
            const std::string why = tensor_unsupported(opcode);
            if (!why.empty()) {
                if (k->needs_gpu.empty()) k->needs_gpu = why;
                return;
            }
            if (head == "cp") return cp_instruction(in, opcode, args);
            if (head == "wmma") return wmma_instruction(in, parts, args);
        }
        const auto op = kOps.find(head);
        if (op == kOps.end()) {
            if (kNeedsGpu.count(head) || !k->needs_gpu.empty()) return;   // the kernel will not run on the CPU
            fail("the instruction '" + opcode + "'");
        }
        in.op = op->second;
        modifiers(in, std::vector<std::string>(parts.begin() + 1, parts.end()));
        in.line = cur_line, in.file = cur_file;
        std::vector<std::string> ops = split(args, ',');
        if (in.op == Op::bra) {
            if (ops.size() != 1) fail("a branch without one target");
            pending_branches.emplace_back(uint32_t(k->code.size()), ops[0]);
        } else if (in.op == Op::bar) {
            if (ops.size() > 1) k->needs_gpu = k->needs_gpu.empty() ? "barriers over part of a block" : k->needs_gpu;
        } else if (in.op == Op::shfl) {   // shfl.sync.MODE.b32 d[|p], a, b, c, membermask
            if (opcode.find(".sync") == std::string::npos || ops.size() != 5) fail("a shfl that is not shfl.sync with 5 operands");
            const auto dests = split(ops[0], '|');
            in.d = operand(dests[0]);
            if (dests.size() > 1) in.d2 = operand(dests[1]);
            in.a = operand(ops[1]), in.b = operand(ops[2]), in.c = operand(ops[3]), in.e = operand(ops[4]);
        } else if (in.op == Op::bfi) {   // bfi.bN d, a (the field), b (the base), c (position), e (length)
            if (ops.size() != 5) fail("a bfi without 5 operands");
            in.d = operand(ops[0]), in.a = operand(ops[1]), in.b = operand(ops[2]), in.c = operand(ops[3]), in.e = operand(ops[4]);
        } else if (in.op == Op::setp) {
            if (ops.size() < 3) fail("setp with fewer than 3 operands");
            const auto dests = split(ops[0], '|');
            in.d = operand(dests[0]);
            if (dests.size() > 1) in.d2 = operand(dests[1]);
            in.a = operand(ops[1]), in.b = operand(ops[2]);
            if (ops.size() > 3) in.c = operand(ops[3]);
        } else {
            Operand* slots[] = {&in.d, &in.a, &in.b, &in.c};
            if (ops.size() > 4) fail("more than four operands");
            for (size_t i = 0; i < ops.size(); ++i) *slots[i] = operand(ops[i]);
            if (in.op == Op::st || in.op == Op::red) std::swap(in.d, in.a);   // st [addr], value: d = value, a = addr
        }
        k->code.push_back(in);
    }

    void kernel_header(const std::string& line, std::istream& in) {
        module.kernels.emplace_back();
        k = &module.kernels.back();
        regs.clear(), labels.clear(), pending_branches.clear(), kernel_symbols.clear(), param_offsets.clear();
        const size_t name_start = line.find(".entry") + 6;
        k->name = trim(line.substr(name_start, line.find('(') - name_start));
        std::string l;
        bool closed = line.find(')') != std::string::npos;
        while (!closed && std::getline(in, l)) {
            ++line_no;
            l = trim(l);
            if (l.find(')') != std::string::npos) closed = true;
            if (l.rfind(".param", 0) != 0) continue;
            std::istringstream words(l);
            std::string w, ty, name;
            uint32_t align = 0;
            while (words >> w) {
                if (w == ".param") continue;
                if (w == ".align") words >> align;
                else if (w[0] == '.') ty = w.substr(1);
                else name = w;
            }
            if (!name.empty() && name.back() == ',') name.pop_back();
            Param p;
            uint32_t count = 1;
            if (const size_t br = name.find('['); br != std::string::npos)
                count = uint32_t(std::stoul(name.substr(br + 1))), name = name.substr(0, br);
            const auto t = kTypes.find(ty);
            if (t == kTypes.end()) fail("a parameter of type ." + ty);
            p.name = name;
            p.bytes = count * uint32_t(ty_bytes(t->second));
            const uint32_t a = std::max<uint32_t>(align, uint32_t(ty_bytes(t->second)));
            p.offset = uint32_t(align_up(k->param_bytes, a));
            k->param_bytes = p.offset + p.bytes;
            param_offsets[name] = p.offset;
            k->params.push_back(p);
        }
    }

    void finish_kernel() {
        for (const auto& [at, label] : pending_branches) {
            const auto it = labels.find(label);
            if (it == labels.end()) fail("a branch to unknown label " + label);
            k->code[at].target = it->second;
        }
        k->registers = uint32_t(regs.size());
        k = nullptr;
    }

    void body_line(const std::string& l) {
        if (l.rfind(".reg", 0) == 0) {   // ".reg .b16 low, high;" inside an inline asm block: names without '%'
            std::string names = l.substr(4, l.find(';') - 4);
            std::replace(names.begin(), names.end(), ',', ' ');
            std::istringstream words(names);
            for (std::string w; words >> w;)
                if (w[0] != '.' && w[0] != '%') named_regs.insert(w);
            return;
        }
        if (l.rfind(".maxntid", 0) == 0 || l.rfind(".pragma", 0) == 0) return;
        if (l.rfind(".loc", 0) == 0) {
            std::istringstream words(l.substr(4));
            uint32_t file = 0, line = 0;
            if (words >> file >> line && line != 0) cur_file = file, cur_line = line;
            return;
        }
        if (l.rfind(".shared", 0) == 0 || l.rfind(".local", 0) == 0) return kernel_variable(l.substr(0, l.find(';')));
        if (l[0] == '.') fail("the directive '" + l.substr(0, l.find_first_of(" \t")) + "' in a kernel");
        if (l.back() == ':') {
            labels[l.substr(0, l.size() - 1)] = uint32_t(k->code.size());
            return;
        }
        if (l.back() != ';') fail("a statement without ';'");
        instruction(trim(l.substr(0, l.size() - 1)));
    }

    // A line that opens or closes an inline asm block around its statements (NVRTC copies the
    // braces of `asm("{ ... }")` as written): the braces counted, the statements read.
    void inline_block(std::string l, int& depth) {
        while (!l.empty() && l.front() == '{') ++depth, l = trim(l.substr(1));
        int closes = 0;
        while (!l.empty() && l.back() == '}') {
            const std::string before = trim(l.substr(0, l.size() - 1));
            if (!before.empty() && before.back() != ';' && before.back() != '}') break;   // "{a, b}" of an operand
            ++closes, l = before;
        }
        for (const std::string& statement : split(l, ';'))
            if (!statement.empty()) body_line(statement + ";");
        for (; closes > 0; --closes)
            if (--depth == 0) fail("an inline asm block that closes the kernel");
    }

    void run(const std::string& text) {
        std::istringstream in(text);
        std::string raw;
        bool in_comment = false;
        int depth = 0;          // braces of the kernel being read
        int skip_depth = -1;    // braces of a skipped section
        while (std::getline(in, raw)) {
            ++line_no;
            const std::string l = trim(strip_comment(raw, in_comment));
            if (l.empty()) continue;
            if (skip_depth >= 0) {
                if (l == "{") ++skip_depth;
                if (l == "}" && --skip_depth == 0) skip_depth = -1;
                continue;
            }
            if (k) {
                if (l == "{") { ++depth; continue; }
                if (l == "}") {
                    if (--depth == 0) finish_kernel();
                    continue;
                }
                if (depth == 0) continue;   // .maxntid and other performance directives
                if (l.front() == '{' || l.back() == '}') {   // inline asm: "{.reg .f16 low,high;" ... "mov.b32 %r1, {low,high};}"
                    inline_block(l, depth);
                    continue;
                }
                body_line(l);
                continue;
            }
            if (l.find(".entry") != std::string::npos) {
                kernel_header(l, in);
                depth = 0;
                continue;
            }
            if (l.rfind(".file", 0) == 0) {
                std::istringstream words(l.substr(5));
                uint32_t n = 0;
                std::string name;
                words >> n;
                std::getline(words, name);
                name = trim(name);
                if (const size_t q = name.find('"'); q != std::string::npos) name = name.substr(q + 1, name.find('"', q + 1) - q - 1);
                module.files[n] = name;
                continue;
            }
            if (l.rfind(".section", 0) == 0) { skip_depth = 0; continue; }
            if (l.find(".func") != std::string::npos) fail("a device function that was not inlined");
            if (l == "{" && skip_depth == 0) { skip_depth = 1; continue; }
            if ((l.rfind(".global", 0) == 0 || l.rfind(".const", 0) == 0 || l.rfind(".visible .global", 0) == 0 ||
                 l.rfind(".weak .global", 0) == 0 || l.rfind(".visible .const", 0) == 0 || l.rfind(".extern .shared", 0) == 0)) {
                if (l.find(".shared") != std::string::npos) dynamic_shared(l);
                else module_variable(l.substr(0, l.find(';')));
                continue;
            }
            // .version, .target, .address_size and the like
        }
        if (k) fail("a kernel without its closing brace");
    }

    void dynamic_shared(const std::string& l) { extern_shared.push_back(declare(l.substr(0, l.find(';')))); }
};

}  // namespace

Module parse_ptx(const std::string& text) {
    Parser p;
    p.run(text);
    // Dynamic shared memory starts after each kernel's static variables (aligned as declared).
    for (Kernel& k : p.module.kernels) {
        k.static_shared = Parser::align_up(k.static_shared, 16);
        for (Symbol s : p.extern_shared) {
            s.offset = k.static_shared;
            k.shared.push_back(s);
        }
    }
    return std::move(p.module);
}

}  // namespace tilelab::cpu
