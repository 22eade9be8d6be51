// The CPU run's PTX types and names (ptx.h) and the text helpers of its reader (ptx_text.h).
#include "cpu/ptx.h"
#include "cpu/ptx_text.h"

#include <cctype>
#include <exception>

namespace tilelab::cpu {

int ty_bytes(Ty t) {
    switch (t) {
    case Ty::b8: case Ty::u8: case Ty::s8: return 1;
    case Ty::b16: case Ty::u16: case Ty::s16: case Ty::f16: case Ty::bf16: return 2;
    case Ty::b64: case Ty::u64: case Ty::s64: case Ty::f64: return 8;
    case Ty::none: case Ty::pred: return 0;
    default: return 4;
    }
}
bool ty_float(Ty t) { return t == Ty::f16 || t == Ty::bf16 || t == Ty::f32 || t == Ty::f64; }
bool ty_signed(Ty t) { return t == Ty::s8 || t == Ty::s16 || t == Ty::s32 || t == Ty::s64; }

const Kernel* Module::kernel(const std::string& name) const {
    for (const Kernel& k : kernels)
        if (k.name == name) return &k;
    return nullptr;
}

std::string plain_name(const std::string& mangled) {
    // Local statics end in "E<length><name>": the rightmost 'E' whose digits give the rest's length.
    if (mangled.rfind("_ZZ", 0) != 0) return mangled;
    for (size_t e = mangled.size(); e-- > 3;) {
        if (mangled[e] != 'E') continue;
        size_t d = e + 1;
        while (d < mangled.size() && std::isdigit(static_cast<unsigned char>(mangled[d]))) ++d;
        if (d == e + 1 || d - e > 4) continue;
        if (std::stoul(mangled.substr(e + 1, d - e - 1)) == mangled.size() - d) return mangled.substr(d);
    }
    return mangled;
}

std::string trim(std::string s) {
    const size_t a = s.find_first_not_of(" \t\r\n");
    if (a == std::string::npos) return "";
    const size_t b = s.find_last_not_of(" \t\r\n");
    return s.substr(a, b - a + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    int depth = 0;
    for (char c : s) {
        if (c == '[' || c == '{') ++depth;
        if (c == ']' || c == '}') --depth;
        if (c == sep && depth == 0) {
            out.push_back(trim(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!trim(cur).empty()) out.push_back(trim(cur));
    return out;
}

std::string strip_comment(const std::string& line, bool& in_block) {
    std::string out;
    for (size_t i = 0; i < line.size(); ++i) {
        if (in_block) {
            if (line.compare(i, 2, "*/") == 0) in_block = false, ++i;
            continue;
        }
        if (line.compare(i, 2, "/*") == 0) {
            in_block = true, ++i;
            continue;
        }
        if (line.compare(i, 2, "//") == 0) break;
        if (line[i] == '"') {   // strings (.file names) keep their slashes
            const size_t close = line.find('"', i + 1);
            const size_t to = close == std::string::npos ? line.size() : close + 1;
            out += line.substr(i, to - i);
            i = to - 1;
            continue;
        }
        out += line[i];
    }
    return out;
}

uint64_t parse_immediate(const std::string& t, bool& ok) {
    ok = true;
    if (t.size() == 10 && (t[0] == '0') && (t[1] == 'f' || t[1] == 'F')) return std::stoull(t.substr(2), nullptr, 16);
    if (t.size() == 18 && (t[0] == '0') && (t[1] == 'd' || t[1] == 'D')) return std::stoull(t.substr(2), nullptr, 16);
    try {
        size_t used = 0;
        const bool neg = !t.empty() && t[0] == '-';
        const std::string body = neg ? t.substr(1) : t;
        uint64_t v = 0;
        if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X'))
            v = std::stoull(body.substr(2), &used, 16), used += 2;
        else
            v = std::stoull(body, &used, 10);
        if (used < body.size() && !(used + 1 == body.size() && body.back() == 'U')) ok = false;
        return neg ? uint64_t(-int64_t(v)) : v;
    } catch (const std::exception&) {
        ok = false;
        return 0;
    }
}

}  // namespace tilelab::cpu
