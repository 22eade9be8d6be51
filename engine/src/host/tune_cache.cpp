// The autotuner's results kept per GPU, variant and size (tilelab/tune.h): one JSON file each,
// written atomically, read carefully (a corrupt or foreign file is refused with a reason).
#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdio>
#include <filesystem>

#include "tilelab/i18n.h"
#include "tilelab/input_policy.h"
#include "tilelab/safe_file.h"
#include "tilelab/tune.h"

namespace tilelab {

namespace {

using json = nlohmann::ordered_json;

constexpr const char* kFormat = "tilelab-tune/1";
constexpr size_t kMaxCacheBytes = 8u << 20;

// The search's own version, part of every key: a ranking made by an earlier search is not the
// answer to this one, and is not looked up. 2: the lessons' steps among the candidates, the full
// runs' share of the budget, PREC not searched unless named (2026-12-02).
constexpr int kSearchVersion = 2;

// What identifies a report: the same key, the same search.
json key_json(const TuneReport& r) {
    return json{{"search", kSearchVersion}, {"target", r.target},   {"arch", r.arch},       {"variant", r.variant},
                {"problem", format_problem(r.problem)}, {"searched", r.searched}, {"fixed", r.fixed},
                {"seed", r.seed}, {"shortlist", r.shortlist}, {"sample", r.sample}, {"budget_s", r.budget_s}};
}

std::string slug(const std::string& text) {
    std::string s;
    for (const char ch : text) s += std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' ? ch : '_';
    return s;
}

uint64_t fnv1a(const std::string& text) {
    uint64_t h = 1469598103934665603ull;
    for (const char ch : text) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
    return h;
}

json candidate_json(const TuneCandidate& c) {
    return json{{"params", c.params},         {"origin", c.origin},       {"score_ms", c.score_ms},
                {"intensity", c.intensity},   {"analysed", c.analysed},   {"pruned", c.pruned},
                {"registers", c.registers},   {"spill_bytes", c.spill_bytes}, {"smem_bytes", c.smem_bytes},
                {"threads", c.threads},       {"blocks_per_sm", c.blocks_per_sm}, {"occupancy", c.occupancy},
                {"measured", c.measured},     {"phase", c.phase},         {"valid", c.valid},
                {"error", c.error},           {"median_ms", c.median_ms}, {"pct_of_reference", c.pct_of_reference}};
}

TuneCandidate candidate_from(const json& j) {
    TuneCandidate c;
    c.params = j.at("params").get<ParamValues>();
    c.origin = j.at("origin").get<std::string>();
    c.score_ms = j.at("score_ms").get<double>();
    c.intensity = j.at("intensity").get<double>();
    c.analysed = j.at("analysed").get<bool>();
    c.pruned = j.at("pruned").get<std::string>();
    c.registers = j.at("registers").get<int>();
    c.spill_bytes = j.at("spill_bytes").get<int>();
    c.smem_bytes = j.at("smem_bytes").get<int>();
    c.threads = j.at("threads").get<int>();
    c.blocks_per_sm = j.at("blocks_per_sm").get<int>();
    c.occupancy = j.at("occupancy").get<double>();
    c.measured = j.at("measured").get<bool>();
    c.phase = j.at("phase").get<std::string>();
    c.valid = j.at("valid").get<bool>();
    c.error = j.at("error").get<std::string>();
    c.median_ms = j.at("median_ms").get<double>();
    c.pct_of_reference = j.at("pct_of_reference").get<double>();
    return c;
}

}  // namespace

std::string tune_cache_path(const std::string& cache_root, const TuneReport& key) {
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a(key_json(key).dump())));
    return cache_root + "/tune/" + slug(key.target) + "_" + slug(key.variant) + "_" + slug(format_problem(key.problem)) +
           "_" + hash + ".json";
}

std::string tune_report_to_json(const TuneReport& r) {
    json j = {{"format", kFormat}, {"key", key_json(r)}};
    j["combinations"] = r.combinations;
    j["walked"] = r.walked;
    j["valid"] = r.valid;
    j["gpu"] = r.gpu;
    j["tried"] = r.tried;
    j["budget_hit"] = r.budget_hit;
    j["cancelled"] = r.cancelled;
    j["elapsed_s"] = r.elapsed_s;
    j["measured_at"] = r.measured_at;
    j["reference_name"] = r.reference_name;
    j["reference_ms"] = r.reference_ms;
    j["candidates"] = json::array();
    for (const auto& c : r.candidates) j["candidates"].push_back(candidate_json(c));
    return j.dump(1) + "\n";
}

bool tune_report_from_json(const std::string& text, TuneReport& out, std::string& error) {
    const json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        error = say("it is not JSON", "它不是 JSON");
        return false;
    }
    if (!j.contains("format") || j["format"] != kFormat) {
        error = say("it is not a {} file", "它不是 {} 文件", kFormat);
        return false;
    }
    try {
        TuneReport r;
        const json& k = j.at("key");
        if (k.value("search", 1) != kSearchVersion) {
            error = say("it was made by another version of the search", "它是另一个版本的搜索得出的");
            return false;
        }
        r.target = k.at("target").get<std::string>();
        r.arch = k.at("arch").get<std::string>();
        r.variant = k.at("variant").get<std::string>();
        std::string problem_error;
        if (!parse_problem(k.at("problem").get<std::string>(), r.problem, problem_error)) throw std::runtime_error(problem_error);
        r.searched = k.at("searched").get<std::vector<std::string>>();
        r.fixed = k.at("fixed").get<ParamValues>();
        r.seed = k.at("seed").get<uint64_t>();
        r.shortlist = k.at("shortlist").get<int>();
        r.sample = k.at("sample").get<int>();
        r.budget_s = k.at("budget_s").get<double>();
        r.combinations = j.at("combinations").get<uint64_t>();
        r.walked = j.value("walked", r.combinations);   // rankings cached before sampling walked every combination
        r.valid = j.at("valid").get<uint64_t>();
        r.gpu = j.at("gpu").get<bool>();
        r.tried = j.at("tried").get<int>();
        r.budget_hit = j.at("budget_hit").get<bool>();
        r.cancelled = j.at("cancelled").get<bool>();
        r.elapsed_s = j.at("elapsed_s").get<double>();
        r.measured_at = j.at("measured_at").get<std::string>();
        r.reference_name = j.at("reference_name").get<std::string>();
        r.reference_ms = j.at("reference_ms").get<double>();
        for (const json& c : j.at("candidates")) r.candidates.push_back(candidate_from(c));
        out = std::move(r);
        return true;
    } catch (const std::exception& e) {
        error = say("a field is missing or has the wrong type ({})", "缺少字段或字段类型不对（{}）", one_line(e.what()));
        return false;
    }
}

bool save_tune_cache(const std::string& path, const TuneReport& r, std::string& error) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    if (ec) {
        error = os_error("cannot create the folder of", path, ec.value());
        return false;
    }
    return write_file_atomic(path, tune_report_to_json(r), error);
}

CacheLoad load_tune_cache(const std::string& path, const TuneReport& key, TuneReport& out, std::string& error) {
    std::string text, why;
    switch (read_regular_file(path, kMaxCacheBytes, text, why)) {
    case ReadOutcome::missing: return CacheLoad::missing;
    case ReadOutcome::ok: break;
    default:
        error = say("the tune cache {} was not read: {}", "未读取调优缓存 {}：{}", shortened_path(path), why);
        return CacheLoad::refused;
    }
    TuneReport r;
    if (!tune_report_from_json(text, r, why)) {
        error = say("the tune cache {} is refused: {}", "调优缓存 {} 被拒绝：{}", shortened_path(path), why);
        return CacheLoad::refused;
    }
    if (key_json(r) != key_json(key)) {
        error = say("the tune cache {} is for another GPU, variant, size or search", "调优缓存 {} 属于另一个 GPU、变体、规模或搜索",
                    shortened_path(path));
        return CacheLoad::refused;
    }
    out = std::move(r);
    return CacheLoad::hit;
}

}  // namespace tilelab
