// A cubin's DWARF line table for one function (line_table.h). The cubin is an ELF64
// little-endian file; its .debug_line holds DWARF 2-4 line programs whose DW_LNE_set_address
// operands are relocated (.rela.debug_line) against the symbol of the function's .text section.
// NVIDIA adds extended opcodes of its own (inlining context) and zero-length extended opcodes:
// both are skipped by their length. Every read is bounds-checked: a damaged cubin gives an empty
// table, never a read past the bytes.
#include "gpu_worker/line_table.h"
#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>

namespace tilelab {
namespace {

// Little-endian reads at `pos`, which fail (bad = true, zero values) rather than run past `end`.
struct Reader {
    std::string_view bytes;
    size_t pos = 0, end = 0;
    bool bad = false;

    Reader(std::string_view b, size_t from, size_t to) : bytes(b), pos(from), end(std::min(to, b.size())) {
        if (from > end) bad = true;
    }
    bool has(size_t n) const { return !bad && pos <= end && end - pos >= n; }
    template <class T>
    T get() {
        T v{};
        if (!has(sizeof(T))) {
            bad = true;
            return v;
        }
        std::memcpy(&v, bytes.data() + pos, sizeof(T));
        pos += sizeof(T);
        return v;
    }
    // A LEB128 number: its value, and in `sign_bit` where the sign bit of a signed one is.
    uint64_t leb(int& sign_bit) {
        uint64_t v = 0;
        for (int shift = 0;; shift += 7) {
            const auto c = get<uint8_t>();
            if (bad || shift > 63) {
                bad = true;
                return 0;
            }
            v |= uint64_t(c & 0x7f) << shift;
            if (!(c & 0x80)) {
                sign_bit = (c & 0x40) && shift + 7 < 64 ? shift + 7 : -1;
                return v;
            }
        }
    }
    uint64_t uleb() {
        int unused = 0;
        return leb(unused);
    }
    int64_t sleb() {
        int sign_bit = -1;
        const uint64_t v = leb(sign_bit);
        return int64_t(sign_bit >= 0 ? v | ~uint64_t(0) << sign_bit : v);
    }
    std::string_view cstr() {
        const size_t stop = bad ? std::string_view::npos : bytes.substr(0, end).find('\0', pos);
        if (stop == std::string_view::npos) {
            bad = true;
            return {};
        }
        const std::string_view s = bytes.substr(pos, stop - pos);
        pos = stop + 1;
        return s;
    }
};

struct Section {
    std::string_view name;
    uint32_t type = 0, link = 0, info = 0;
    uint64_t offset = 0, size = 0;
};

// The section headers, or none when the header or a section lies outside the bytes.
std::vector<Section> sections(std::string_view b) {
    if (b.size() < 64 || b.substr(0, 4) != std::string_view("\x7f" "ELF", 4) || b[4] != 2 || b[5] != 1) return {};
    Reader h(b, 0x28, b.size());
    const auto shoff = h.get<uint64_t>();
    h.pos = 0x3A;
    const auto entsize = h.get<uint16_t>(), count = h.get<uint16_t>(), names_index = h.get<uint16_t>();
    if (h.bad || entsize < 64 || names_index >= count || shoff > b.size() || (b.size() - shoff) / entsize < count) return {};
    std::vector<Section> out(count);
    std::vector<uint32_t> name_at(count);
    for (size_t i = 0; i < count; ++i) {
        Reader r(b, shoff + i * entsize, b.size());
        name_at[i] = r.get<uint32_t>();
        out[i].type = r.get<uint32_t>();
        r.pos += 16;   // flags, address
        out[i].offset = r.get<uint64_t>();
        out[i].size = r.get<uint64_t>();
        out[i].link = r.get<uint32_t>();
        out[i].info = r.get<uint32_t>();
        if (r.bad || out[i].offset > b.size() || out[i].size > b.size() - out[i].offset) {
            if (out[i].type != 8) return {};   // SHT_NOBITS (.nv.shared.*) occupies no bytes
            out[i].size = 0;
        }
    }
    const Section& names = out[names_index];
    for (size_t i = 0; i < count; ++i) {
        Reader r(b, names.offset + name_at[i], names.offset + names.size);
        out[i].name = r.cstr();
    }
    return out;
}

int find(const std::vector<Section>& s, std::string_view name) {
    for (size_t i = 0; i < s.size(); ++i)
        if (s[i].name == name) return int(i);
    return -1;
}

// Where each relocated 8-byte operand of .debug_line points: operand offset → (section, value).
std::map<uint64_t, std::pair<uint32_t, uint64_t>> relocations(std::string_view b, const std::vector<Section>& s, int line) {
    std::map<uint64_t, std::pair<uint32_t, uint64_t>> out;
    for (const Section& rela : s) {
        if (rela.type != 4 || int(rela.info) != line || rela.link >= s.size()) continue;   // SHT_RELA
        const Section& symtab = s[rela.link];
        for (uint64_t at = 0; at + 24 <= rela.size; at += 24) {
            Reader r(b, rela.offset + at, rela.offset + rela.size);
            const auto where = r.get<uint64_t>(), info = r.get<uint64_t>();
            const auto addend = r.get<int64_t>();
            Reader sym(b, symtab.offset + (info >> 32) * 24, symtab.offset + symtab.size);
            sym.pos += 6;   // name, info, other
            const auto shndx = sym.get<uint16_t>();
            const auto value = sym.get<uint64_t>();
            if (!r.bad && !sym.bad) out[where] = {shndx, value + uint64_t(addend)};
        }
    }
    return out;
}

}  // namespace

// One pass over .debug_line's units, keeping the rows of the function's section.
struct LineProgram {
    std::string_view b;
    uint64_t lines_offset = 0;   // .debug_line's offset in the cubin
    const std::map<uint64_t, std::pair<uint32_t, uint64_t>>& relocated;
    int text = -1;   // the function's section; with no relocations at all, every sequence is its
    CubinLineTable& table;

    void unit(Reader& r) {
        uint64_t length = r.get<uint32_t>();
        const bool wide = length == 0xffffffffu;
        if (wide) length = r.get<uint64_t>();
        if (r.bad || length > r.end - r.pos) return void(r.bad = true);
        const size_t end = r.pos + length;
        const auto version = r.get<uint16_t>();
        const uint64_t header = wide ? r.get<uint64_t>() : r.get<uint32_t>();
        if (r.bad || version < 2 || version > 4 || header > end - r.pos) return void(r.pos = end);
        const size_t program = r.pos + header;
        const auto min_inst = r.get<uint8_t>();
        if (version >= 4) r.get<uint8_t>();   // maximum operations per instruction
        r.get<uint8_t>();                     // default is_stmt
        const auto line_base = r.get<int8_t>();
        const auto line_range = r.get<uint8_t>(), opcode_base = r.get<uint8_t>();
        if (r.bad || line_range == 0 || opcode_base == 0) return void(r.pos = end);
        std::vector<uint8_t> arguments(opcode_base);
        for (int i = 1; i < opcode_base; ++i) arguments[i] = r.get<uint8_t>();
        while (!r.bad && !r.cstr().empty()) {}   // include directories
        const auto first_file = uint32_t(table.files_.size());
        for (std::string_view name; !r.bad && !(name = r.cstr()).empty();) {
            table.files_.emplace_back(name);
            for (int i = 0; i < 3; ++i) r.uleb();   // directory, time, length
        }
        if (r.bad) return;
        Reader p(b, program, end);
        run(p, first_file, min_inst, line_base, line_range, opcode_base, arguments);
        r.pos = end;
    }

    void run(Reader& p, uint32_t first_file, uint8_t min_inst, int8_t line_base, uint8_t line_range, uint8_t opcode_base,
             const std::vector<uint8_t>& arguments) {
        uint64_t address = 0;
        uint64_t file = 1;
        int64_t line = 1;
        bool ours = relocated.empty();
        const auto emit = [&] {
            if (ours && file >= 1 && first_file + file - 1 < table.files_.size() && line > 0 && line < (1 << 30))
                table.rows_.push_back({address, uint32_t(first_file + file - 1), int(line)});
        };
        while (!p.bad && p.pos < p.end) {
            const auto op = p.get<uint8_t>();
            if (op >= opcode_base) {
                const int adjusted = op - opcode_base;
                address += uint64_t(adjusted / line_range) * min_inst;
                line += line_base + adjusted % line_range;
                emit();
                continue;
            }
            switch (op) {
                case 0: {   // extended: length, sub-opcode, operands
                    const uint64_t length = p.uleb();
                    if (p.bad || length > p.end - p.pos) return;
                    const size_t next = p.pos + length;
                    if (length > 0) {
                        const auto sub = p.get<uint8_t>();
                        if (sub == 1) {   // end of sequence
                            address = 0, file = 1, line = 1, ours = relocated.empty();
                        } else if (sub == 2 && length == 9) {   // set address (8 bytes)
                            const uint64_t operand = p.pos - lines_offset;
                            address = p.get<uint64_t>();
                            if (const auto it = relocated.find(operand); it != relocated.end()) {
                                ours = int(it->second.first) == text;
                                address = it->second.second;
                            }
                        }
                    }
                    p.pos = next;
                    break;
                }
                case 1: emit(); break;                                       // copy
                case 2: address += p.uleb() * min_inst; break;               // advance pc
                case 3: line += p.sleb(); break;                             // advance line
                case 4: file = p.uleb(); break;                              // set file
                case 8: address += uint64_t((255 - opcode_base) / line_range) * min_inst; break;   // const add pc
                case 9: address += p.get<uint16_t>(); break;                 // fixed advance pc
                default:   // set column, negate stmt, basic block, and any other: their operands
                    for (int i = 0; i < arguments[op]; ++i) p.uleb();
            }
        }
    }
};

CubinLineTable CubinLineTable::read(std::string_view cubin, std::string_view function) {
    CubinLineTable table;
    const std::vector<Section> s = sections(cubin);
    const int line = find(s, ".debug_line");
    const int text = find(s, ".text." + std::string(function));
    if (line < 0 || text < 0) return table;
    const auto relocated = relocations(cubin, s, line);
    LineProgram program{cubin, s[size_t(line)].offset, relocated, text, table};
    Reader r(cubin, s[size_t(line)].offset, s[size_t(line)].offset + s[size_t(line)].size);
    while (!r.bad && r.pos < r.end) program.unit(r);
    // By address; rows at one address keep the program's order (the outermost call first).
    std::stable_sort(table.rows_.begin(), table.rows_.end(), [](const Row& a, const Row& b) { return a.address < b.address; });
    return table;
}

std::vector<SourceLine> CubinLineTable::lines_at(uint64_t offset) const {
    const auto end = std::upper_bound(rows_.begin(), rows_.end(), offset, [](uint64_t o, const Row& r) { return o < r.address; });
    if (end == rows_.begin()) return {};
    const auto begin = std::lower_bound(rows_.begin(), end, std::prev(end)->address,
                                        [](const Row& r, uint64_t a) { return r.address < a; });
    std::vector<SourceLine> out;
    for (auto it = begin; it != end; ++it) out.push_back(SourceLine{files_[it->file], it->line});
    return out;
}

}  // namespace tilelab
