// The stall groups (tilelab/stalls.h): keys, the device names each group gathers, sentences.
#include "tilelab/stalls.h"
#include <fmt/format.h>
#include <algorithm>
#include <cstdlib>
#include "tilelab/i18n.h"

namespace tilelab {
namespace {

constexpr std::string_view kPrefix = "smsp__pcsamp_warps_issue_stalled_";
constexpr std::string_view kNotIssued = "_not_issued";

struct GroupInfo {
    StallGroup group;
    const char* key;
    // The device's reason names (without kPrefix) that belong here.
    std::initializer_list<std::string_view> reasons;
};

// Names as CUPTI reports them on Volta to Blackwell; anything else is `other`.
const GroupInfo kGroups[kStallGroups] = {
    {StallGroup::issuing, "issuing", {"selected"}},
    {StallGroup::global_memory, "global_memory", {"long_scoreboard"}},
    {StallGroup::shared_memory, "shared_memory", {"short_scoreboard"}},
    {StallGroup::barrier, "barrier", {"barrier"}},
    {StallGroup::math_pipe, "math_pipe", {"math_pipe_throttle", "tensor_pipe_throttle"}},
    {StallGroup::memory_throttle, "memory_throttle", {"mio_throttle", "lg_throttle", "tex_throttle"}},
    {StallGroup::not_selected, "not_selected", {"not_selected"}},
    {StallGroup::branch, "branch", {"branch_resolving", "no_instructions", "imc_miss"}},
    {StallGroup::wait, "wait", {"wait"}},
    {StallGroup::other, "other", {}},
};

std::string_view bare_name(std::string_view name) {
    if (name.substr(0, kPrefix.size()) == kPrefix) name.remove_prefix(kPrefix.size());
    return name;
}

}  // namespace

const char* stall_group_key(StallGroup g) {
    const int i = int(g);
    return i >= 0 && i < kStallGroups ? kGroups[i].key : "other";
}

std::string stall_group_name(StallGroup g) { return tr(fmt::format("stall.{}.name", stall_group_key(g))); }

bool is_not_issued_duplicate(std::string_view name) {
    return name.size() > kNotIssued.size() && name.substr(name.size() - kNotIssued.size()) == kNotIssued;
}

StallGroup stall_group_of(std::string_view cupti_name) {
    const std::string_view bare = bare_name(cupti_name);
    for (const GroupInfo& g : kGroups)
        for (std::string_view r : g.reasons)
            if (bare == r) return g.group;
    return StallGroup::other;
}

uint64_t StallCounts::total() const {
    uint64_t t = 0;
    for (uint64_t v : n) t += v;
    return t;
}

StallGroup StallCounts::top() const {
    return StallGroup(std::max_element(n.begin(), n.end()) - n.begin());
}

StallCounts& StallCounts::operator+=(const StallCounts& o) {
    for (size_t i = 0; i < n.size(); ++i) n[i] += o.n[i];
    return *this;
}

bool stall_file_matches(const std::string& file, const std::string& kernel_file) {
    // One ends with the other at a folder boundary: NVRTC's line table names an included header
    // by its last component ("smem_tiled.cuh" for "matmul/smem_tiled.cuh").
    const auto ends_with = [](const std::string& a, const std::string& b) {
        return !b.empty() && a.size() >= b.size() && a.compare(a.size() - b.size(), b.size(), b) == 0 &&
               (a.size() == b.size() || a[a.size() - b.size() - 1] == '/');
    };
    return ends_with(file, kernel_file) || ends_with(kernel_file, file);
}

void charge_stall_lines(const std::vector<SampledPc>& sampled, StallSamples& s) {
    using Key = std::pair<std::string, int>;
    // Each instruction's lines once, in order (its own line last), those without a number left out.
    std::vector<std::vector<Key>> distinct(sampled.size());
    std::map<Key, StallCounts> by_line;
    for (size_t i = 0; i < sampled.size(); ++i) {
        s.counts += sampled[i].counts;
        for (const Key& where : sampled[i].lines)
            if (where.second > 0 && std::find(distinct[i].begin(), distinct[i].end(), where) == distinct[i].end()) {
                distinct[i].push_back(where);
                by_line[where] += sampled[i].counts;
            }
    }
    for (const auto& [where, counts] : by_line) s.lines.push_back(StallLine{where.first, where.second, counts});
    std::stable_sort(s.lines.begin(), s.lines.end(),
                     [](const StallLine& a, const StallLine& b) { return a.counts.total() > b.counts.total(); });
    std::map<Key, int> index;
    for (size_t i = 0; i < s.lines.size(); ++i) index[{s.lines[i].file, s.lines[i].line}] = int(i);
    for (size_t i = 0; i < sampled.size(); ++i) {
        StallPc pc{sampled[i].offset, -1, sampled[i].counts, {}, {}};
        for (const Key& where : distinct[i]) pc.calls.push_back(index.at(where));
        if (!pc.calls.empty()) {
            pc.line = pc.calls.back();
            pc.calls.pop_back();
        }
        s.pcs.push_back(std::move(pc));
    }
    std::stable_sort(s.pcs.begin(), s.pcs.end(), [](const StallPc& a, const StallPc& b) { return a.offset < b.offset; });
    s.total = s.counts.total();
}

const StallLine* stall_hottest_line(const StallSamples& s, const std::string& kernel_file) {
    for (const StallLine& l : s.lines)
        if (stall_file_matches(l.file, kernel_file)) return &l;
    return nullptr;
}

bool parse_stall_claim(const std::string& text, double& percent, StallGroup& group) {
    const size_t sign = text.find("% ");
    if (sign == std::string::npos || sign == 0) return false;
    char* end = nullptr;
    const std::string number = text.substr(0, sign);
    percent = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size() || !(percent >= 0 && percent <= 100)) return false;
    const std::string key = text.substr(sign + 2);
    for (int g = 0; g < kStallGroups; ++g)
        if (key == stall_group_key(StallGroup(g))) {
            group = StallGroup(g);
            return true;
        }
    return false;
}

double stall_share(uint64_t part, uint64_t total) { return total == 0 ? 0.0 : 100.0 * double(part) / double(total); }

std::string stall_reason(const std::string& status, const std::string& detail) {
    namespace ss = stall_status;
    std::string s;
    if (status == ss::ok || status == ss::skipped) return "";
    if (status == ss::no_gpu)
        s = say("No stall samples in model mode: they are taken on a GPU.", "模型模式下没有停顿采样：它们要在 GPU 上采集。");
    else if (status == ss::overflow)
        s = say("The GPU dropped samples (its sampling buffer overflowed): the shares shown come from the samples kept "
                "and may lean towards the kernel's start; a longer sampling period avoids it.",
                "GPU 丢弃了部分采样（采样缓冲区溢出）：显示的比例来自保留下来的采样，可能偏向内核的开头；"
                "加长采样周期可以避免。");
    else if (status == ss::insufficient_privileges)
        s = say("PC sampling needs access to the GPU's performance counters (ERR_NVGPUCTRPERM): run as root or with "
                "CAP_SYS_ADMIN, or set the nvidia module option NVreg_RestrictProfilingToAdminUsers=0.",
                "PC 采样需要访问 GPU 的性能计数器（ERR_NVGPUCTRPERM）：以 root 或带 CAP_SYS_ADMIN 运行，"
                "或设置 nvidia 模块选项 NVreg_RestrictProfilingToAdminUsers=0。");
    else if (status == ss::unsupported)
        s = say("This GPU, driver or libcupti cannot take PC samples (CUPTI's PC Sampling API needs compute capability "
                "7.0 or newer and a matching libcupti).",
                "这块 GPU、驱动或 libcupti 无法做 PC 采样（CUPTI 的 PC Sampling API 需要计算能力 7.0 或更新，"
                "以及匹配的 libcupti）。");
    else if (status == ss::off)
        s = say("Stall samples are off for the rest of this session: sampling lost the GPU's context and the GPU worker "
                "had to start again, which would happen at every full run. Restart TileLab to try them again.",
                "本次会话余下的时间里不再做停顿采样：一次采样让 GPU 上下文丢失，GPU worker 只得重新启动，"
                "而每次完整运行都会如此。重新启动 TileLab 可再试。");
    else
        s = say("Stall sampling failed; the run itself is unaffected.", "停顿采样失败；运行本身不受影响。");
    if (!detail.empty()) s += " (" + detail + ")";
    return s;
}

std::string stall_summary(const StallSamples& s, const std::string& kernel_file) {
    if (!s.has_samples()) return "";
    const StallGroup g = s.counts.top();
    // The line holding most of the top group's samples.
    const StallLine* where = nullptr;
    for (const StallLine& l : s.lines)
        if (!where || l.counts[g] > where->counts[g]) where = &l;
    const double share = stall_share(s.counts[g], s.total);
    const std::string name = stall_group_name(g);
    if (!where || where->counts[g] == 0) return say("{:.0f}% of samples: {}", "{:.0f}% 的采样：{}", share, name);
    if (stall_file_matches(where->file, kernel_file))
        return say("{:.0f}% of samples: {}, most on line {}", "{:.0f}% 的采样：{}，最多在第 {} 行", share, name, where->line);
    return say("{:.0f}% of samples: {}, most at {}:{}", "{:.0f}% 的采样：{}，最多在 {}:{}", share, name, where->file, where->line);
}

std::map<uint64_t, std::string> parse_sass_listing(const std::string& listing, const std::string& function) {
    std::map<uint64_t, std::string> out;
    // A function's code starts at its section, ".text.<name>" (nvdisasm prints the section line,
    // then "<name>:" and ".text.<name>:"), and runs to the next .section.
    const std::string section = ".text." + function;
    bool inside = false;
    size_t start = 0;
    while (start < listing.size()) {
        size_t end = listing.find('\n', start);
        if (end == std::string::npos) end = listing.size();
        const std::string_view line(listing.data() + start, end - start);
        start = end + 1;
        const size_t first = line.find_first_not_of(" \t");
        if (first == std::string_view::npos) continue;
        const std::string_view text = line.substr(first);
        if (text.rfind(".section", 0) == 0 && text.size() > 8 && (text[8] == ' ' || text[8] == '\t')) {
            const size_t name = text.find(section);
            const size_t after = name + section.size();
            inside = name != std::string_view::npos && (after == text.size() || text[after] == ',' || text[after] == '"' ||
                                                      text[after] == ' ' || text[after] == '\t');
            continue;
        }
        // "/*0080*/   INSTR ... ;   /* 0x... */": the offset in hex between /* */, the
        // instruction up to its ';'.
        if (!inside || text.rfind("/*", 0) != 0) continue;
        const size_t close = text.find("*/");
        if (close == std::string_view::npos || close <= 2) continue;
        const std::string_view hex = text.substr(2, close - 2);
        if (hex.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos) continue;
        const size_t semi = text.find(';', close);
        if (semi == std::string_view::npos) continue;
        std::string_view instr = text.substr(close + 2, semi - close - 2);
        const size_t b = instr.find_first_not_of(" \t"), e = instr.find_last_not_of(" \t");
        if (b == std::string_view::npos) continue;
        instr = instr.substr(b, e - b + 1);
        out[std::stoull(std::string(hex), nullptr, 16)] = std::string(instr);
    }
    return out;
}

}  // namespace tilelab
