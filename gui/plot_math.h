// The pure arithmetic behind gui/plot.h: axis mapping (linear and log10), tick generation,
// range fitting, number labels, the colour map and the roofline bound. No ImGui here, so the
// tests can check every function without a window.
#pragma once
#include <string>
#include <vector>

namespace tilelab::gui::plot {

enum class Scale { Linear, Log10 };

struct Range {
    double min = 0, max = 1;
    bool operator==(const Range&) const = default;
};

// Where `v` sits in `r` on scale `s`, as a fraction: r.min -> 0, r.max -> 1 (values outside `r`
// give fractions outside 0..1). On a log scale non-positive values map to -infinity.
double Normalize(double v, Range r, Scale s);
// The inverse of Normalize: the value at fraction `t` of `r`.
double Denormalize(double t, Range r, Scale s);

struct Tick {
    double value = 0;
    std::string label;   // empty for minor ticks
    bool major = true;
};

// About `target_count` ticks at 1, 2 or 5 times a power of ten, inside `r` (ends included when
// they fall on a tick). Labels come from FormatTick with the step.
std::vector<Tick> LinearTicks(Range r, int target_count = 6);
// Major ticks at each power of ten inside `r`, minor ticks at 2..9 times them. When `r` spans
// less than a decade the ticks are LinearTicks instead, so a narrow log axis is still labelled.
// When it spans at most two decades the 2 and 5 minors get labels too.
std::vector<Tick> LogTicks(Range r);
std::vector<Tick> Ticks(Range r, Scale s, int target_count = 6);

// The step LinearTicks uses: 1, 2 or 5 times a power of ten giving about `target_count` ticks.
double NiceStep(double span, int target_count);

// The smallest `unit` · 2^k (k >= 0) that cuts `span` into at most `target_count` steps: ticks
// for quantities that come in powers of two (bytes: unit 1024 gives 16 KiB, 32 KiB ...).
double PowerOfTwoStep(double span, int target_count, double unit = 1);

// A range holding every finite value of `values` (on a log scale only the positive ones),
// widened to nice bounds: tick steps on a linear scale (from 0 when `include_zero` and the data
// are all of one sign), whole decades on a log scale. Empty or degenerate data give a small
// range around the value (or 0..1).
Range FitRange(const std::vector<double>& values, Scale s, bool include_zero = false);

// A tick label: 64, 0.25, 1.5k, 2M, 1e-05. `step` (the distance between ticks; 0 = unknown)
// decides how many decimals are needed so neighbouring ticks differ.
std::string FormatTick(double v, double step = 0);
// A value for a tooltip or a bar label: three significant digits with k/M/G/T suffixes.
std::string FormatValue(double v);

struct Rgb {
    float r = 0, g = 0, b = 0;
};
// The heatmap colour map: dark violet (t = 0) through blue and green to yellow (t = 1),
// monotone in lightness so it reads on a projector and in grey. `t` is clamped to 0..1.
Rgb ColorMap(double t);

// What a kernel of arithmetic intensity `intensity` (FLOP/byte) can reach at most:
// min(peak, bandwidth · intensity), in GFLOP/s when peak is GFLOP/s and bandwidth GB/s.
double RooflineAttainable(double peak_gflops, double bandwidth_gbps, double intensity);
// The intensity where the memory roof meets the compute roof: peak / bandwidth.
double RooflineRidge(double peak_gflops, double bandwidth_gbps);

}  // namespace tilelab::gui::plot
