#include "plot_math.h"
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tilelab::gui::plot {

double Normalize(double v, Range r, Scale s) {
    if (s == Scale::Log10) {
        if (v <= 0 || r.min <= 0 || r.max <= 0) return -std::numeric_limits<double>::infinity();
        double lo = std::log10(r.min), hi = std::log10(r.max);
        return hi == lo ? 0.5 : (std::log10(v) - lo) / (hi - lo);
    }
    return r.max == r.min ? 0.5 : (v - r.min) / (r.max - r.min);
}

double Denormalize(double t, Range r, Scale s) {
    if (s == Scale::Log10) {
        double lo = std::log10(r.min), hi = std::log10(r.max);
        return std::pow(10.0, lo + t * (hi - lo));
    }
    return r.min + t * (r.max - r.min);
}

double NiceStep(double span, int target_count) {
    if (!(span > 0) || !std::isfinite(span)) return 1;
    double raw = span / std::max(1, target_count);
    double decade = std::pow(10.0, std::floor(std::log10(raw)));
    double fraction = raw / decade;   // 1 <= fraction < 10
    double nice = fraction < 1.5 ? 1 : fraction < 3.5 ? 2 : fraction < 7.5 ? 5 : 10;
    return nice * decade;
}

double PowerOfTwoStep(double span, int target_count, double unit) {
    double step = unit > 0 ? unit : 1;
    if (!(span > 0) || !std::isfinite(span)) return step;
    while (span / step > std::max(1, target_count)) step *= 2;
    return step;
}

std::vector<Tick> LinearTicks(Range r, int target_count) {
    std::vector<Tick> ticks;
    double lo = std::min(r.min, r.max), hi = std::max(r.min, r.max);
    double step = NiceStep(hi - lo, target_count);
    // A small tolerance keeps ends that are tick multiples up to rounding.
    double eps = step * 1e-9;
    for (double k = std::ceil((lo - eps) / step); k * step <= hi + eps; k += 1) {
        double v = k * step;
        if (std::fabs(v) < eps) v = 0;   // no "-0"
        ticks.push_back({v, FormatTick(v, step), true});
    }
    return ticks;
}

std::vector<Tick> LogTicks(Range r) {
    std::vector<Tick> ticks;
    if (!(r.min > 0) || !(r.max > r.min)) return ticks;
    double lo = std::log10(r.min), hi = std::log10(r.max);
    int first = int(std::floor(lo + 1e-9)), last = int(std::ceil(hi - 1e-9));
    // Under one decade there may be no power of ten inside: label linearly instead.
    if (hi - lo < 1.0 - 1e-9) {
        ticks = LinearTicks(r, 4);
        ticks.erase(std::remove_if(ticks.begin(), ticks.end(), [](const Tick& t) { return t.value <= 0; }),
                    ticks.end());
        return ticks;
    }
    bool label_minor = hi - lo <= 2.0 + 1e-9;
    for (int e = first; e <= last; ++e) {
        double decade = std::pow(10.0, e);
        for (int m = 1; m <= 9; ++m) {
            double v = m * decade;
            if (v < r.min * (1 - 1e-9) || v > r.max * (1 + 1e-9)) continue;
            bool major = m == 1;
            bool labelled = major || (label_minor && (m == 2 || m == 5));
            ticks.push_back({v, labelled ? FormatTick(v, major ? v : decade) : "", major});
        }
    }
    return ticks;
}

std::vector<Tick> Ticks(Range r, Scale s, int target_count) {
    return s == Scale::Log10 ? LogTicks(r) : LinearTicks(r, target_count);
}

Range FitRange(const std::vector<double>& values, Scale s, bool include_zero) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (double v : values) {
        if (!std::isfinite(v) || (s == Scale::Log10 && v <= 0)) continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    if (s == Scale::Log10) {
        if (!(lo <= hi)) return {1, 10};
        double a = std::pow(10.0, std::floor(std::log10(lo) + 1e-9));
        double b = std::pow(10.0, std::ceil(std::log10(hi) - 1e-9));
        if (b <= a) b = a * 10;
        return {a, b};
    }
    if (!(lo <= hi)) return {0, 1};
    if (include_zero) {
        lo = std::min(lo, 0.0);
        hi = std::max(hi, 0.0);
    }
    if (hi == lo) {
        if (lo == 0) return {0, 1};
        double pad = std::fabs(lo) * 0.1;
        lo -= pad;
        hi += pad;
    }
    double step = NiceStep(hi - lo, 5);
    return {std::floor(lo / step + 1e-9) * step, std::ceil(hi / step - 1e-9) * step};
}

namespace {

// Decimals needed to tell apart values `step` apart: 1 -> 0, 0.5 -> 1, 0.05 -> 2.
int DecimalsFor(double step) {
    if (!(step > 0) || step >= 1) return 0;
    return std::clamp(int(std::ceil(-std::log10(step) - 1e-9)), 0, 9);
}

}  // namespace

std::string FormatTick(double v, double step) {
    char buf[48];
    double a = std::fabs(v);
    if (v == 0) return "0";
    if (a < 1e-3 || a >= 1e15) {
        std::snprintf(buf, sizeof buf, "%.3g", v);
        return buf;
    }
    // Thousands get a suffix once the number would be long, or when ticks are that far apart.
    static constexpr std::array<const char*, 5> suffixes = {"", "k", "M", "G", "T"};
    int power = 0;
    double unit = 1;
    while (power < 4 && (a >= unit * 1e4 || (a >= unit * 1e3 && step >= unit * 1e3))) {
        unit *= 1e3;
        ++power;
    }
    int decimals = step > 0 ? DecimalsFor(step / unit) : (a / unit == std::floor(a / unit) ? 0 : 2);
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v / unit);
    // "1.0" and "0.50" read as more precise than the axis is: drop trailing zeros.
    std::string text = buf;
    if (text.find('.') != std::string::npos) {
        text.erase(text.find_last_not_of('0') + 1);
        if (text.back() == '.') text.pop_back();
    }
    return text + suffixes[power];
}

std::string FormatValue(double v) {
    char buf[48];
    if (!std::isfinite(v)) return "-";
    double a = std::fabs(v);
    if (a == 0) return "0";
    if (a < 1e-3) {
        std::snprintf(buf, sizeof buf, "%.2e", v);
        return buf;
    }
    static constexpr std::array<const char*, 5> suffixes = {"", "k", "M", "G", "T"};
    int power = 0;
    while (power < 4 && a >= 1000.0) {
        a /= 1000.0;
        v /= 1000.0;
        ++power;
    }
    if (power == 0 && v == std::floor(v)) {
        std::snprintf(buf, sizeof buf, "%.0f", v);
        return buf;
    }
    int decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
    std::snprintf(buf, sizeof buf, "%.*f%s", decimals, v, suffixes[power]);
    return buf;
}

Rgb ColorMap(double t) {
    // Five stops, light increasing monotonically from a dark violet to a bright yellow.
    static constexpr std::array<Rgb, 5> stops = {{
        {0.27f, 0.05f, 0.35f},
        {0.23f, 0.32f, 0.55f},
        {0.13f, 0.57f, 0.55f},
        {0.37f, 0.79f, 0.38f},
        {0.99f, 0.91f, 0.14f},
    }};
    if (!std::isfinite(t)) t = 0;
    t = std::clamp(t, 0.0, 1.0) * double(stops.size() - 1);
    size_t i = std::min(size_t(t), stops.size() - 2);
    float f = float(t - double(i));
    const Rgb& a = stops[i];
    const Rgb& b = stops[i + 1];
    return {a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f};
}

double RooflineAttainable(double peak_gflops, double bandwidth_gbps, double intensity) {
    return std::min(peak_gflops, bandwidth_gbps * intensity);
}

double RooflineRidge(double peak_gflops, double bandwidth_gbps) {
    return bandwidth_gbps > 0 ? peak_gflops / bandwidth_gbps : 0;
}

}  // namespace tilelab::gui::plot
