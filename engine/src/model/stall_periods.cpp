// Stall samples taken at more than one sampling period, compared and chosen (tilelab/stalls.h).
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include "tilelab/i18n.h"
#include "tilelab/stalls.h"

namespace tilelab {
namespace {

using LineKey = std::pair<std::string, int>;
constexpr size_t kComparedLines = 5;

uint64_t line_samples(const StallSamples& s, const LineKey& key) {
    for (const StallLine& l : s.lines)
        if (l.file == key.first && l.line == key.second) return l.counts.total();
    return 0;
}

// Calls f(samples in a, samples in b) for each reason group and for each line among the most
// sampled of either.
template <class F>
void each_share(const StallSamples& a, const StallSamples& b, F f) {
    for (int g = 0; g < kStallGroups; ++g) f(a.counts.n[size_t(g)], b.counts.n[size_t(g)]);
    std::set<LineKey> keys;
    for (const StallSamples* s : {&a, &b})
        for (size_t i = 0; i < s->lines.size() && i < kComparedLines; ++i) keys.insert({s->lines[i].file, s->lines[i].line});
    for (const LineKey& k : keys) f(line_samples(a, k), line_samples(b, k));
}

}  // namespace

double stall_period_spread(const StallSamples& a, const StallSamples& b) {
    if (a.total == 0 || b.total == 0) return 0;
    double most = 0;
    each_share(a, b, [&](uint64_t x, uint64_t y) {
        most = std::max(most, std::abs(stall_share(x, a.total) - stall_share(y, b.total)));
    });
    return most;
}

bool stall_periods_agree(const StallSamples& a, const StallSamples& b) {
    if (a.total == 0 || b.total == 0) return true;
    const double na = double(a.total), nb = double(b.total);
    bool agree = true;
    each_share(a, b, [&](uint64_t x, uint64_t y) {
        const double p = std::min(1.0, (double(x) + double(y)) / (na + nb));   // the pooled share
        const double error = 100.0 * std::sqrt(p * (1 - p) * (1 / na + 1 / nb));
        if (std::abs(stall_share(x, a.total) - stall_share(y, b.total)) > std::max(kStallPeriodPoints, 4 * error)) agree = false;
    });
    return agree;
}

StallPeriodChoice choose_stall_periods(const std::vector<StallSamples>& rounds) {
    StallPeriodChoice c;
    const size_t n = rounds.size();
    for (size_t i = 0; i < n; ++i)
        for (size_t j = i + 1; j < n; ++j) c.spread = std::max(c.spread, stall_period_spread(rounds[i], rounds[j]));
    if (n == 2 && !stall_periods_agree(rounds[0], rounds[1])) {
        c.need_third = true;
        return c;
    }
    if (n == 3) {
        // The agreeing pair closest together; the third is left out where it disagrees with either.
        int best = -1;
        double closest = 0;
        for (int k = 0; k < 3; ++k) {
            const StallSamples &a = rounds[size_t((k + 1) % 3)], &b = rounds[size_t((k + 2) % 3)];
            const double spread = stall_period_spread(a, b);
            if (stall_periods_agree(a, b) && (best < 0 || spread < closest)) best = k, closest = spread;
        }
        if (best >= 0) {
            const size_t i = size_t((best + 1) % 3), j = size_t((best + 2) % 3), k = size_t(best);
            if (!stall_periods_agree(rounds[k], rounds[i]) || !stall_periods_agree(rounds[k], rounds[j])) {
                c.shown = {std::min(i, j), std::max(i, j)};
                c.left_out = best;
                c.spread = std::max(stall_period_spread(rounds[k], rounds[i]), stall_period_spread(rounds[k], rounds[j]));
                return c;
            }
        }
    }
    for (size_t i = 0; i < n; ++i) c.shown.push_back(i);
    return c;
}

StallSamplingPlan plan_stall_sampling(double launch_ms, bool forced_period, std::string_view check, std::string_view gap,
                                      std::string_view apart) {
    StallSamplingPlan plan;
    const double ms = std::isfinite(launch_ms) ? std::max(launch_ms, 1e-3) : kStallSampledMs;
    plan.launches = int(std::clamp(std::ceil(kStallSampledMs / ms), 1.0, double(kStallMaxLaunches)));
    plan.check = !forced_period && check != "0" && plan.launches >= 2;
    const std::string text(gap);
    char* end = nullptr;
    const double given = text.empty() ? 0 : std::strtod(text.c_str(), &end);
    if (!text.empty() && end && *end == '\0' && given > 0) plan.gap_ms = std::min(given, 1000.0);
    plan.apart = plan.gap_ms > 0 || apart == "1";
    return plan;
}

namespace {

// The periods' range holds two or three periods (a worker's reply is read as sent).
bool several_periods(const StallSamples& s) {
    const int64_t span = int64_t(s.last_period_log2) - int64_t(s.period_log2);
    return span >= 1 && span <= 2;
}

// The periods whose samples are shown, as "2^11" each: the range but the one left out.
std::vector<std::string> shown_periods(const StallSamples& s) {
    std::vector<std::string> shown;
    for (int p = s.period_log2; p <= s.last_period_log2; ++p)
        if (p != s.left_out_period_log2) shown.push_back(fmt::format("2^{}", p));
    return shown;
}

}  // namespace

std::string stall_periods_text(const StallSamples& s) {
    if (!several_periods(s)) return fmt::format("2^{}", s.period_log2);
    const std::vector<std::string> shown = shown_periods(s);
    if (shown.size() == 1) return shown[0];   // a worker's reply that left out one of two
    if (shown.size() == 2) return say("{} or {}", "{} 或 {}", shown[0], shown[1]);
    return say("{}, {} or {}", "{}、{} 或 {}", shown[0], shown[1], shown[2]);
}

std::string stall_period_note(const StallSamples& s) {
    if (!several_periods(s)) return "";
    if (const std::vector<std::string> shown = shown_periods(s); s.left_out_period_log2 > 0 && shown.size() == 2)
        return say("At a period of 2^{} cycles the shares differed from those at {} and {} by up to {:.0f} points "
                   "(the sampler likely kept step with the kernel's loop): those samples are left out.",
                   "采样周期为 2^{} 个周期时，各份额与 {} 和 {} 时相差最多 {:.0f} 个百分点（采样器很可能与内核的循环"
                   "同步了）：这些采样没有计入。",
                   s.left_out_period_log2, shown[0], shown[1], s.period_spread);
    if (s.last_period_log2 > s.period_log2 + 1)   // a third period, and still no two agreed
        return say("The shares depend on the sampling period: at 2^{}, 2^{} and 2^{} cycles they differ by up to {:.0f} "
                   "points (the sampler likely keeps step with the kernel's loop); read them with care.",
                   "各份额随采样周期而变：在 2^{}、2^{} 和 2^{} 个周期时相差最多 {:.0f} 个百分点（采样器很可能与内核的"
                   "循环同步）；请谨慎解读。",
                   s.period_log2, s.period_log2 + 1, s.period_log2 + 2, s.period_spread);
    return "";
}

}  // namespace tilelab
