// The greeting's and the replies' fields checked before they are read (worker_replies.h).
#include "host/worker_replies.h"
#include <fmt/format.h>
#include <cmath>
#include <initializer_list>
#include <set>
#include "tilelab/result_json.h"
#include "tilelab/util.h"

namespace tilelab {
namespace {

using worker::json;

std::string quoted(const std::string& path) { return "\"" + path + "\""; }

std::string joined(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

// A reply compared with the JSON of the struct its reader fills: the same keys (except
// `optional` ones, which may be missing, and `nullable` ones, which may be null), of the same
// kinds; a list's elements like the reference list's first; a null in the reference takes
// anything (the reader drops what it cannot use). Recursion follows the reference, a few levels.
struct ShapeRules {
    std::set<std::string> optional, nullable;
};

std::string shape_problem(const json& value, const json& ref, const std::string& path, const ShapeRules& rules) {
    if (ref.is_null()) return "";
    if (ref.is_object()) {
        if (!value.is_object()) return quoted(path) + " is not an object";
        for (const auto& [key, sub] : ref.items()) {
            const std::string at = joined(path, key);
            if (!value.contains(key)) {
                if (rules.optional.count(key)) continue;
                return quoted(at) + " is missing";
            }
            const json& v = value.at(key);
            if (v.is_null() && rules.nullable.count(key)) continue;
            if (std::string p = shape_problem(v, sub, at, rules); !p.empty()) return p;
        }
        return "";
    }
    if (ref.is_array()) {
        if (!value.is_array()) return quoted(path) + " is not a list";
        for (size_t i = 0; !ref.empty() && i < value.size(); ++i)
            if (std::string p = shape_problem(value[i], ref[0], fmt::format("{}[{}]", path, i), rules); !p.empty()) return p;
        return "";
    }
    if (ref.is_boolean()) return value.is_boolean() ? "" : quoted(path) + " is not true or false";
    if (ref.is_string()) return value.is_string() ? "" : quoted(path) + " is not a string";
    if (ref.is_binary()) return value.is_binary() ? "" : quoted(path) + " is not bytes";
    if (ref.is_number_integer()) return value.is_number_integer() ? "" : quoted(path) + " is not an integer";
    return value.is_number() ? "" : quoted(path) + " is not a number";
}

// An integer field within [lo, hi]; `required` or else optional.
std::string int_problem(const json& j, const std::string& path, const char* key, int64_t lo, int64_t hi, bool required) {
    const std::string at = joined(path, key);
    if (!j.contains(key)) return required ? quoted(at) + " is missing" : "";
    const json& v = j.at(key);
    if (!v.is_number_integer()) return quoted(at) + " is not an integer";
    const bool in = v.is_number_unsigned() ? (lo <= 0 || v.get<uint64_t>() >= uint64_t(lo)) && v.get<uint64_t>() <= uint64_t(hi)
                                           : v.get<int64_t>() >= lo && v.get<int64_t>() <= hi;
    if (in) return "";
    if (lo == hi) return fmt::format("{} is {}, not {}", quoted(at), v.dump(), lo);
    return fmt::format("{} is {}, outside {} to {}", quoted(at), v.dump(), lo, hi);
}

std::string number_problem(const json& j, const std::string& path, const char* key, double hi) {
    if (!j.contains(key)) return "";
    const json& v = j.at(key);
    if (!v.is_number()) return quoted(joined(path, key)) + " is not a number";
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < 0 || x > hi) return fmt::format("{} is {}, outside 0 to {:g}", quoted(joined(path, key)), v.dump(), hi);
    return "";
}

std::string string_problem(const json& j, const std::string& path, const char* key, bool required = false) {
    if (!j.contains(key)) return required ? quoted(joined(path, key)) + " is missing" : "";
    return j.at(key).is_string() ? "" : quoted(joined(path, key)) + " is not a string";
}

std::string first_of(std::initializer_list<std::string> problems) {
    for (const std::string& p : problems)
        if (!p.empty()) return p;
    return "";
}

// A list of `count` integers within [lo, hi] (max_block_dim, max_grid_dim, resident_clusters).
std::string list_problem(const json& t, const char* key, size_t count, int64_t lo, int64_t hi) {
    if (!t.contains(key)) return "";
    const json& v = t.at(key);
    const std::string at = joined("target", key);
    if (!v.is_array() || v.size() != count) return fmt::format("{} is not a list of {} integers", quoted(at), count);
    for (size_t i = 0; i < count; ++i) {
        const json one = {{"d", v[i]}};
        if (std::string p = int_problem(one, "", "d", lo, hi, true); !p.empty())
            return fmt::format("{}[{}] is not an integer from {} to {}", quoted(at), i, lo, hi);
    }
    return "";
}
// max_block_dim, max_grid_dim: three integers, each at least `lo[i]` (the least any CUDA GPU has had).
std::string dims_problem(const json& t, const char* key, const int64_t (&lo)[3], int64_t hi) {
    if (std::string p = list_problem(t, key, 3, 1, hi); !p.empty() || !t.contains(key)) return p;
    for (size_t i = 0; i < 3; ++i)
        if (t.at(key)[i].get<int64_t>() < lo[i])
            return fmt::format("{}[{}] is {}, less than any CUDA GPU's {}", quoted(joined("target", key)), i,
                               t.at(key)[i].get<int64_t>(), lo[i]);
    return "";
}

}  // namespace

std::string resident_clusters_problem(const json& holder) { return list_problem(holder, "resident_clusters", 9, 0, 100000); }

namespace {

// Every field of the target a Target is read from (result_json.cpp's from_json), within what a
// CUDA GPU can have: the compile, the occupancy rules and the models divide by several of them.
// The limits a launch is checked against are at least what every CUDA GPU has had (compute
// capability 1.0: 512 threads and 8192 registers a block, 768 threads and 8 blocks an SM, 16 KiB
// of shared memory): a worker claiming less is broken (exit 1, naming the field), not a request
// that does not fit (exit 2). Found by fuzz campaigns (scripts/fuzz_campaign.sh).
std::string target_problem(const json& t) {
    if (!t.is_object()) return "\"target\" is not an object";
    const std::string p = first_of({
        int_problem(t, "target", "sm_major", 1, 99, true), int_problem(t, "target", "sm_minor", 0, 9, true),
        int_problem(t, "target", "sm_count", 1, 100000, true), int_problem(t, "target", "warp_size", 32, 32, false),
        int_problem(t, "target", "max_threads_per_block", 512, 65536, false),
        int_problem(t, "target", "max_threads_per_sm", 768, 1 << 20, false),
        int_problem(t, "target", "max_blocks_per_sm", 8, 4096, false),
        int_problem(t, "target", "regs_per_sm", 8192, 1 << 24, false), int_problem(t, "target", "regs_per_block", 8192, 1 << 24, false),
        int_problem(t, "target", "max_regs_per_thread", 63, 1024, false),
        int_problem(t, "target", "smem_per_sm", 16384, 1 << 30, false), int_problem(t, "target", "smem_per_block", 16384, 1 << 30, false),
        int_problem(t, "target", "smem_per_block_optin", 16384, 1 << 30, false),
        int_problem(t, "target", "reserved_smem_per_block", 0, 1 << 30, false),
        int_problem(t, "target", "l2_bytes", 0, 1 << 30, false),
        number_problem(t, "target", "clock_ghz", 100), number_problem(t, "target", "peak_fp32_gflops", 1e9),
        number_problem(t, "target", "dram_gbps", 1e9),
        string_problem(t, "target", "name"), string_problem(t, "target", "preset"), string_problem(t, "target", "source"),
        string_problem(t, "target", "peaks_note"), dims_problem(t, "max_block_dim", {512, 512, 64}, INT32_MAX),
        dims_problem(t, "max_grid_dim", {65535, 65535, 1}, INT64_MAX), resident_clusters_problem(t)});
    return p;
}

const json& reference_for(const std::string& op) {
    static const json run = [] {
        Measurement m;
        m.counted = AccessCounts{};
        m.stalls.lines.emplace_back();   // so that a reply's lines and instructions are checked too
        m.stalls.pcs.emplace_back().calls = {0};
        m.timing.samples_ms = {0.0};
        return json{{"result", m}};
    }();
    static const json ceilings = json{{"ceilings", Ceilings{}}};
    static const json memory = {{"free_bytes", uint64_t(0)}, {"total_bytes", uint64_t(0)}};
    static const json compile = {{"compiled", worker::compile_result_to_json(CompileResult{})}};
    static const json blocks = {{"blocks", 0}, {"error", ""}};
    static const json occupy = {{"handle", 0}, {"error", ""}};
    static const json nothing = json::object();
    if (op == "run") return run;
    if (op == "ceilings") return ceilings;
    if (op == "memory") return memory;
    if (op == "compile") return compile;
    if (op == "blocks_per_sm") return blocks;
    if (op == "occupy") return occupy;
    return nothing;   // release, and the test hook support_sample (its reader checks for itself)
}

}  // namespace

std::string greeting_fields_problem(const json& hello) {
    if (!hello.is_object()) return "the greeting is not an object";
    std::string p = first_of({string_problem(hello, "", "host"), string_problem(hello, "", "nvrtc"),
                              number_problem(hello, "", "hold_limit_s", 1e9)});
    if (!p.empty()) return p;
    if (!hello.contains("device") || !hello.at("device").is_object()) return "\"device\" is missing or not an object";
    const json& d = hello.at("device");
    if (!d.contains("gpu") || !d.at("gpu").is_boolean()) return "\"device.gpu\" is missing or not true or false";
    p = first_of({string_problem(d, "device", "reason"), string_problem(d, "device", "name"),
                  int_problem(d, "device", "total_bytes", 0, INT64_MAX, false), int_problem(d, "device", "index", 0, 1023, false),
                  int_problem(d, "device", "count", 0, 1024, false)});
    if (!p.empty() || !d.at("gpu").get<bool>()) return p;
    if (!hello.contains("target")) return "\"target\" is missing for a device with a GPU";
    return target_problem(hello.at("target"));
}

Target greeting_target(const json& hello) { return nlohmann::ordered_json::parse(hello.at("target").dump()).get<Target>(); }

std::string reply_fields_problem(const std::string& op, const json& reply) {
    static const ShapeRules rules{{"hardware", "stalls", "calls", "last_period_log2", "left_out_period_log2", "period_spread"}, {"counted"}};
    return shape_problem(reply, reference_for(op), "", rules);
}

std::string worker_text(const std::string& text, size_t longest) {
    std::string out;
    size_t chars = 0;
    for (size_t i = 0; i < text.size(); ++chars) {
        if (chars == longest) return out + "…";
        const size_t n = utf8_sequence_length(text, i);
        const auto c = static_cast<unsigned char>(text[i]);
        if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7F))) {
            out += c == '\n' || c == '\t' ? ' ' : '?';
            ++i;
        } else {
            out.append(text, i, n);
            i += n;
        }
    }
    return out;
}

}  // namespace tilelab
