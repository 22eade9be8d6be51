// `list`, `targets` and `ceilings`: what can be run, on what, and the best the card can do.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>

#include "commands.h"
#include "tilelab/i18n.h"
#include "tilelab/variant_text.h"
#include "format_table.h"
#include "request.h"
#include "tilelab/result_json.h"

namespace tilelab::cli {

using json = nlohmann::ordered_json;

static void print(const std::string& s) { std::fputs(s.c_str(), stdout); }

// [SECTION] list -------------------------------------------------------------------------------

// "4, 8, 16, 32" for short lists; "1..255" or "8..64 in steps of 8" for long ones. The CSV keeps
// the English (`localized` false); the table follows the language.
static std::string values_text(const ParamSpec& p, bool localized) {
    const std::vector<int> values = p.values();
    constexpr size_t kListAtMost = 8;   // longer lists read better as a range
    if (values.size() <= kListAtMost) {
        std::vector<std::string> parts;
        for (int v : values) parts.push_back(p.value_text(v));
        return fmt::format("{}", fmt::join(parts, ", "));
    }
    if (p.kind == ParamKind::Int && p.step > 1)
        return localized ? say("{}..{} in steps of {}", "{}..{}，步长 {}", p.min, p.max, p.step)
                         : fmt::format("{}..{} in steps of {}", p.min, p.max, p.step);
    if (p.kind == ParamKind::Pow2)
        return localized ? say("powers of two {}..{}", "2 的幂 {}..{}", values.front(), values.back())
                         : fmt::format("powers of two {}..{}", values.front(), values.back());
    return fmt::format("{}..{}", p.min, p.max);
}

int cmd_list(const CliOptions& o) {
    const auto& variants = all_variants();
    const auto& lessons = all_lessons();
    if (o.format == OutputFormat::Json) {
        print(json{{"variants", variants}, {"lessons", lessons}}.dump(2) + "\n");
        return kExitOk;
    }
    if (o.format == OutputFormat::Csv) {
        // One row per parameter; a variant without parameters still gets its row.
        print(csv_line({"variant", "family", "title", "param", "label", "kind", "min", "max", "step", "default",
                        "values", "help"}));
        for (const auto& v : variants) {
            if (v.params.empty()) print(csv_line({v.id, v.family, v.title}));
            for (const auto& p : v.params)
                print(csv_line({v.id, v.family, v.title, p.name, p.label, param_kind_name(p.kind),
                                std::to_string(p.min), std::to_string(p.max), std::to_string(p.step),
                                std::to_string(p.def), values_text(p, false), p.help}));
        }
        return kExitOk;
    }

    std::string out = tr("cli.list_variants") + "\n\n";
    for (const auto& v : variants) {
        out += fmt::format("{}  ({})  {}\n", v.id, v.family, variant_title(v));
        if (!v.summary.empty()) out += "  " + variant_summary(v) + "\n";
        if (v.params.empty()) {
            out += "  " + tr("report.no_parameters") + "\n\n";
            continue;
        }
        Table t({{tr("cli.col_param"), Align::Left}, {tr("cli.col_values"), Align::Left}, {tr("cli.col_default"), Align::Right},
                 {tr("cli.col_what_it_trades"), Align::Left}});
        for (const auto& p : v.params) t.add_row({p.name, values_text(p, true), std::to_string(p.def), p.shown_help()});
        out += t.render(2) + "\n";
    }
    out += tr("cli.list_lessons") + "\n\n";
    Table t({{"id", Align::Left}, {tr("cli.col_title"), Align::Left}, {tr("compare.col_variant"), Align::Left}, {tr("cli.col_steps"), Align::Right}});
    for (const auto& l : lessons) t.add_row({l.id, l.title, l.variant, std::to_string(l.steps.size())});
    out += t.empty() ? "  " + tr("code.none") + "\n" : t.render(2);
    print(out);
    return kExitOk;
}

// [SECTION] targets ----------------------------------------------------------------------------

static std::vector<std::string> target_cells(const Target& t) {
    return {t.preset,
            t.name,
            t.arch_name(),
            std::to_string(t.sm_count),
            std::to_string(t.max_threads_per_sm / std::max(t.warp_size, 1)),
            std::to_string(t.max_blocks_per_sm),
            format_count(t.regs_per_sm),
            format_bytes(t.smem_per_sm),
            format_bytes(t.smem_per_block_optin),
            fmt_fixed(t.clock_ghz, 2),
            format_count(t.peak_fp32_gflops),
            format_count(t.dram_gbps),
            t.source};
}

// Each column: its CSV name (English, stable) and the key of its name in the table.
struct TargetColumn {
    const char* csv;
    const char* key;
};
static const std::vector<TargetColumn> kTargetColumns = {
    {"key", "targets.col.key"}, {"name", "targets.col.name"}, {"arch", "targets.col.arch"},
    {"SMs", "targets.col.SMs"}, {"warps/SM", "targets.col.warps/SM"}, {"blocks/SM", "targets.col.blocks/SM"},
    {"regs/SM", "targets.col.regs/SM"}, {"smem/SM", "targets.col.smem/SM"}, {"smem/block", "targets.col.smem/block"},
    {"clock GHz", "targets.col.clock GHz"}, {"FP32 GFLOP/s", "targets.col.FP32 GFLOP/s"},
    {"DRAM GB/s", "targets.col.DRAM GB/s"}, {"source", "targets.col.source"}};

int cmd_targets(const CliOptions& o) {
    auto engine = make_engine(o);
    apply_target(*engine, o.target);
    const DeviceStatus& dev = engine->device();
    const Target current = engine->target();
    std::vector<Target> rows;
    if (dev.gpu) rows.push_back(current);
    for (const auto& t : target_presets()) rows.push_back(t);

    if (o.format == OutputFormat::Json) {
        print(json{{"mode", dev.gpu ? "gpu" : "model"},
                   {"device", dev},
                   {"current", current},
                   {"presets", target_presets()}}.dump(2) + "\n");
        return kExitOk;
    }
    if (o.format == OutputFormat::Csv) {
        std::vector<std::string> header;
        for (const TargetColumn& c : kTargetColumns) header.push_back(c.csv);
        header.push_back("current");
        print(csv_line(header));
        for (const auto& t : rows) {
            auto cells = target_cells(t);
            cells.push_back(t.preset == current.preset && t.name == current.name ? "1" : "0");
            print(csv_line(cells));
        }
        return kExitOk;
    }

    std::string out;
    if (dev.gpu)
        out += trf("cli.gpu_mode_line", dev.name, current.arch_name()) + "\n";
    else
        out += trf("cli.model_mode_line", dev.reason, current.name, current.arch_name()) + "\n";
    out += "\n";
    std::vector<Column> cols = {{"", Align::Left}};
    for (size_t i = 0; i < kTargetColumns.size(); ++i)
        cols.push_back({tr(kTargetColumns[i].key), i >= 3 && i <= 11 ? Align::Right : Align::Left});
    Table t(cols);
    for (const auto& target : rows) {
        auto cells = target_cells(target);
        const bool is_current = target.preset == current.preset && target.name == current.name;
        cells.insert(cells.begin(), is_current ? "*" : "");
        t.add_row(cells);
    }
    out += t.render();
    out += "\n" + tr("cli.targets_footnote") + "\n";
    print(out);
    return kExitOk;
}

// [SECTION] ceilings ---------------------------------------------------------------------------

int cmd_ceilings(const CliOptions& o) {
    auto engine = make_engine(o);
    const DeviceStatus& dev = engine->device();
    const Target t = engine->target();
    if (!dev.gpu) {
        if (o.format == OutputFormat::Json)
            print(json{{"measured", false}, {"no_gpu_reason", dev.reason}}.dump(2) + "\n");
        throw CliError(kExitNoGpu, trf("ceilings.no_gpu", dev.reason));
    }
    const Ceilings c = engine->ceilings();
    const double copy_pct = t.dram_gbps > 0 ? c.copy_gbps / t.dram_gbps : 0;
    const double sgemm_pct = t.peak_fp32_gflops > 0 ? c.sgemm_gflops / t.peak_fp32_gflops : 0;
    if (o.format == OutputFormat::Json) {
        json j = c;
        j["no_gpu_reason"] = "";
        j["device"] = dev.name;
        j["peak_fp32_gflops"] = t.peak_fp32_gflops;
        j["dram_gbps"] = t.dram_gbps;
        print(j.dump(2) + "\n");
    } else if (o.format == OutputFormat::Csv) {
        print(csv_line({"device", "copy_gbps", "sgemm_gflops", "dram_gbps", "peak_fp32_gflops", "note"}));
        print(csv_line({dev.name, fmt::format("{}", c.copy_gbps), fmt::format("{}", c.sgemm_gflops),
                        fmt::format("{}", t.dram_gbps), fmt::format("{}", t.peak_fp32_gflops), c.note}));
    } else {
        Table kv({{"", Align::Left}, {"", Align::Left}}, false);
        kv.add_row({tr("ceilings.device"), dev.name});
        kv.add_row({tr("ceilings.copy"), trf("ceilings.copy_line", fmt_fixed(c.copy_gbps, 0), fmt_pct(copy_pct),
                                             format_count(t.dram_gbps))});
        kv.add_row({"cuBLAS SGEMM", trf("ceilings.sgemm_line", fmt_fixed(c.sgemm_gflops, 0), fmt_pct(sgemm_pct),
                                        format_count(t.peak_fp32_gflops))});
        if (!c.note.empty()) kv.add_row({tr("ceilings.note"), c.note});
        print(kv.render());
    }
    if (!c.measured) throw CliError(kExitRuntime, trf("ceilings.not_measured", c.note));
    return kExitOk;
}

}  // namespace tilelab::cli
