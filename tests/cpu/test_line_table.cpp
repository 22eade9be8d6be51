// A cubin's line table (engine/src/gpu_worker/line_table.h): a hand-made cubin whose rows are
// known, every truncation and damaged byte of it, and a cubin NVRTC makes. No GPU needed.
#include <gtest/gtest.h>
#include <cstring>
#include <string>
#include "gpu_worker/line_table.h"
#include "tilelab/compile.h"

namespace tilelab {
namespace {

template <class T>
void put(std::string& b, T v) {
    b.append(reinterpret_cast<const char*>(&v), sizeof v);
}
void uleb(std::string& b, uint64_t v) {
    do {
        const uint8_t c = v & 0x7f;
        v >>= 7;
        b.push_back(char(c | (v ? 0x80 : 0)));
    } while (v);
}
void sleb(std::string& b, int64_t v) {
    for (bool more = true; more;) {
        uint8_t c = v & 0x7f;
        v >>= 7;
        more = !((v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40)));
        b.push_back(char(c | (more ? 0x80 : 0)));
    }
}

// A line program of one unit: two sequences, the first relocated against symbol 1 (the section of
// .text.k), the second against symbol 2 (.text.other). `operands` gets the set-address operands'
// offsets in the section, for the relocations.
std::string line_program(std::vector<uint64_t>& operands) {
    std::string p;
    const auto set_address = [&] {
        p += std::string("\0\x09\x02", 3);
        operands.push_back(p.size());
        put<uint64_t>(p, 0);
    };
    p += std::string("\0\0", 2);   // a zero-length extended opcode, as NVRTC writes after the header
    set_address();
    p += '\x03', sleb(p, 9), p += '\x01';                                 // line 10 at 0x0
    p += '\x02', uleb(p, 16), p += '\x03', sleb(p, 10), p += '\x01';     // line 20 at 0x10 ...
    p += std::string("\0\x03\x90\xaa\xbb", 5);                            // (a vendor's opcode)
    p += '\x04', uleb(p, 2), p += '\x03', sleb(p, -15), p += '\x01';     // ... then helper.cuh:5
    p += '\x04', uleb(p, 1), p += '\x02', uleb(p, 32), p += '\x03', sleb(p, 25), p += '\x01';   // 30 at 0x30
    p += char(10 + 6);                                                    // special: 31 at 0x30
    p += std::string("\0\x01\x01", 3);                                    // end of sequence
    set_address();
    p += '\x03', sleb(p, 98), p += '\x01';                                // other's line 99
    p += std::string("\0\x01\x01", 3);
    return p;
}

// A minimal ELF64 cubin: a line table for .text.k and .text.other, relocations, symbols.
std::string hand_made_cubin() {
    std::vector<uint64_t> operands;
    const std::string program = line_program(operands);
    std::string header;   // DWARF 2: min inst 1, is_stmt 1, line base -5, range 14, opcode base 10
    header += std::string("\x01\x01\xfb\x0e\x0a", 5) + std::string("\x00\x01\x01\x01\x01\x00\x00\x00\x01", 9);
    header += std::string("dir\0\0", 5) + std::string("k.cuh\0\x01\0\0", 9) + std::string("helper.cuh\0\x01\0\0", 14) + '\0';
    std::string line;
    put<uint32_t>(line, uint32_t(2 + 4 + header.size() + program.size()));
    put<uint16_t>(line, 2);
    put<uint32_t>(line, uint32_t(header.size()));
    const size_t program_at = line.size() + header.size();
    line += header + program;
    std::string rela;
    for (size_t i = 0; i < operands.size(); ++i) {
        put<uint64_t>(rela, program_at + operands[i]);
        put<uint64_t>(rela, (uint64_t(i + 1) << 32) | 2);
        put<int64_t>(rela, 0);
    }
    std::string symtab(24, '\0');
    for (uint16_t section : {3, 6}) {
        put<uint32_t>(symtab, 0), put<uint8_t>(symtab, 3), put<uint8_t>(symtab, 0), put<uint16_t>(symtab, section);
        put<uint64_t>(symtab, 0), put<uint64_t>(symtab, 0);
    }
    const std::string names = std::string("\0.shstrtab\0.symtab\0.text.k\0.debug_line\0.rela.debug_line\0.text.other\0", 68);
    const std::string text(0x40, '\0');
    struct S { uint32_t name, type; const std::string* bytes; uint32_t link, info; };
    const S s[] = {{0, 0, nullptr, 0, 0},  {1, 3, &names, 0, 0},  {11, 2, &symtab, 0, 0}, {19, 1, &text, 0, 0},
                   {27, 1, &line, 0, 0}, {39, 4, &rela, 2, 4}, {56, 1, &text, 0, 0}};
    std::string b(64, '\0');
    std::memcpy(b.data(), "\x7f" "ELF\x02\x01\x01", 7);
    std::vector<uint64_t> at;
    for (const S& x : s) {
        at.push_back(b.size());
        if (x.bytes) b += *x.bytes;
    }
    const uint64_t shoff = b.size();
    for (size_t i = 0; i < std::size(s); ++i) {
        put<uint32_t>(b, s[i].name), put<uint32_t>(b, s[i].type), put<uint64_t>(b, 0), put<uint64_t>(b, 0);
        put<uint64_t>(b, at[i]), put<uint64_t>(b, s[i].bytes ? s[i].bytes->size() : 0);
        put<uint32_t>(b, s[i].link), put<uint32_t>(b, s[i].info), put<uint64_t>(b, 1), put<uint64_t>(b, 0);
    }
    std::memcpy(b.data() + 0x28, &shoff, 8);
    const uint16_t e[] = {64, 64, uint16_t(std::size(s)), 1};   // ehsize, shentsize, shnum, shstrndx
    std::memcpy(b.data() + 0x34, &e[0], 2);
    std::memcpy(b.data() + 0x3A, &e[1], 6);
    return b;
}

std::string lines_at(const CubinLineTable& t, uint64_t offset) {
    std::string out;
    for (const SourceLine& l : t.lines_at(offset)) out += (out.empty() ? "" : " ") + l.file + ":" + std::to_string(l.line);
    return out.empty() ? "none" : out;
}

TEST(CubinLineTable, GivesEveryRowAtAnInstructionsAddressAsNsightComputeListsIt) {
    const std::string cubin = hand_made_cubin();
    const CubinLineTable t = CubinLineTable::read(cubin, "k");
    ASSERT_EQ(t.size(), 5u) << "rows at 0x0, 0x10 (two), 0x30 (two); the other function's left out";
    EXPECT_EQ(lines_at(t, 0x0), "k.cuh:10");
    EXPECT_EQ(lines_at(t, 0x8), "k.cuh:10");
    EXPECT_EQ(lines_at(t, 0x10), "k.cuh:20 helper.cuh:5") << "the call, then the inlined helper's own line";
    EXPECT_EQ(lines_at(t, 0x20), "k.cuh:20 helper.cuh:5") << "an address without rows: the rows before it";
    EXPECT_EQ(lines_at(t, 0x30), "k.cuh:30 k.cuh:31");
    const CubinLineTable other = CubinLineTable::read(cubin, "other");
    ASSERT_EQ(other.size(), 1u);
    EXPECT_EQ(lines_at(other, 0x0), "k.cuh:99");
    EXPECT_TRUE(CubinLineTable::read(cubin, "missing").empty());
}

TEST(CubinLineTable, DamagedBytesGiveAnEmptyOrSmallerTableNeverAReadPastThem) {
    const std::string cubin = hand_made_cubin();
    for (size_t n = 0; n < cubin.size(); ++n) {
        const std::string cut = cubin.substr(0, n);   // its own allocation: a read past it is caught by ASan
        EXPECT_LE(CubinLineTable::read(cut, "k").size(), 5u) << n;
    }
    for (size_t i = 0; i < cubin.size(); ++i)
        for (char v : {'\0', '\x7f', '\xff'}) {
            std::string damaged = cubin;
            damaged[i] = v;
            const CubinLineTable t = CubinLineTable::read(damaged, "k");
            for (uint64_t o = 0; o < 0x40; o += 0x10) (void)t.lines_at(o);
        }
    EXPECT_TRUE(CubinLineTable::read("", "k").empty());
    EXPECT_TRUE(CubinLineTable::read("not an ELF file at all, but long enough to have a header.........", "k").empty());
}

TEST(CubinLineTable, ReadsTheLinesOfAKernelNvrtcCompiled) {
    CompileService service("");
    const auto r = service.compile({.source_file = "test/scale.cuh", .name_expression = "tilelab_test_scale<128>", .arch = 90});
    ASSERT_TRUE(r->ok) << r->error;
    const CubinLineTable t = CubinLineTable::read(std::string_view(r->cubin.data(), r->cubin.size()), r->lowered_name);
    ASSERT_FALSE(t.empty()) << "NVRTC compiles with -lineinfo";
    const auto first = t.lines_at(0);
    ASSERT_FALSE(first.empty());
    EXPECT_EQ(first[0].file, "scale.cuh");
    for (uint64_t o = 0; o < 0x400; o += 0x10)
        for (const SourceLine& l : t.lines_at(o)) {
            if (l.file == "scale.cuh") {
                EXPECT_TRUE(l.line >= 1 && l.line <= 16) << o;
            }
        }
}

}  // namespace
}  // namespace tilelab
