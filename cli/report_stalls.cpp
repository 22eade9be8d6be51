// The "Where the warps wait" section of `tilelab-cli run --stalls`: the kernel's PC samples by
// reason, then the source lines with most samples, each with its own top reason and its text.
#include <fmt/format.h>
#include "format_table.h"
#include "report.h"
#include "tilelab/i18n.h"
#include "tilelab/stalls.h"
#include "tilelab/util.h"

namespace tilelab::cli {
namespace {

constexpr size_t kTopLines = 5;

}  // namespace

void render_stalls(std::string& out, const RunResult& r) {
    const StallSamples& s = r.stalls;
    if (s.status == stall_status::skipped) return;   // not asked for (no --stalls)
    out += "\n" + tr("stallreport.title") + "\n";
    if (!s.has_samples()) {
        out += trf("stallreport.none", s.status, s.reason) + "\n";
        return;
    }
    out += trf("stallreport.header", format_count(double(s.total)), s.launches, stall_periods_text(s), fmt_ms(s.collect_ms)) + "\n";
    if (!s.reason.empty()) out += "  " + s.reason + "\n";
    Table groups({{tr("stallreport.col_reason"), Align::Left}, {tr("stallreport.col_share"), Align::Right},
                  {tr("stallreport.col_samples"), Align::Right}});
    for (int g = 0; g < kStallGroups; ++g) {
        const uint64_t n = s.counts.n[size_t(g)];
        if (n == 0) continue;
        groups.add_row({stall_group_name(StallGroup(g)), fmt_pct(stall_share(n, s.total) / 100.0), format_count(double(n))});
    }
    out += groups.render(2);

    Table lines({{tr("stallreport.col_line"), Align::Right}, {tr("stallreport.col_share"), Align::Right},
                 {tr("stallreport.col_top"), Align::Left}, {tr("stallreport.col_source"), Align::Left}});
    for (size_t i = 0; i < s.lines.size() && i < kTopLines; ++i) {
        const StallLine& l = s.lines[i];
        const StallGroup top = l.counts.top();
        const bool own = stall_file_matches(l.file, r.kernel_file);
        lines.add_row({own ? std::to_string(l.line) : fmt::format("{}:{}", l.file, l.line),
                       fmt_pct(stall_share(l.counts.total(), s.total) / 100.0),
                       fmt::format("{} {}", stall_group_name(top), fmt_pct(stall_share(l.counts[top], l.counts.total()) / 100.0)),
                       own ? trim(text_line(r.kernel_source, l.line)) : ""});
    }
    out += "\n" + lines.render(2);
    out += "  " + stall_summary(s, r.kernel_file) + "\n";
}

}  // namespace tilelab::cli
