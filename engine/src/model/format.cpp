// The counts and sizes of tilelab/format.h.
#include "tilelab/format.h"
#include <fmt/format.h>
#include <cmath>
#include "tilelab/i18n.h"

namespace tilelab {

std::string format_count(double v) {
    if (!std::isfinite(v)) return fmt::format("{}", v);
    if (v != std::floor(v) || std::fabs(v) >= 1e18) return fmt::format("{:.4g}", v);
    // Integral: group the digits in threes so 2147483648 reads as 2,147,483,648.
    const std::string digits = fmt::format("{}", static_cast<long long>(std::fabs(v)));
    std::string grouped;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
        grouped += digits[i];
    }
    return v < 0 ? "-" + grouped : grouped;
}

std::string format_bytes(double bytes) {
    if (!std::isfinite(bytes)) return "-";
    // Small sizes stay exact in bytes (shared memory per block, spills); larger ones scale.
    if (std::fabs(bytes) < 10 * 1024.0) return fmt::format("{:.0f} B", bytes);
    const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
    double v = bytes / 1024.0;
    int u = 0;
    while (std::fabs(v) >= 1024.0 && u < 3) {
        v /= 1024.0;
        ++u;
    }
    return fmt::format("{:.4g} {}", v, units[u]);
}

std::string format_element_sizes(const Precision& p) {
    const auto size = [](ElementType t) { return trf("units.element_size", element_name(t), element_bytes(t)); };
    if (p.input == p.output) return size(p.input);
    return trf("units.element_sizes_load_store", size(p.input), size(p.output));
}

}  // namespace tilelab
