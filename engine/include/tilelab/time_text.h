// The clock as text: one strftime() for the stamps TileLab writes (a tune report's UTC time, a
// settings file's backup name in local time).
#pragma once
#include <ctime>
#include <string>

namespace tilelab {

enum class TimeZone { Utc, Local };

// Now, formatted with strftime's `format` ("%Y-%m-%dT%H:%M:%SZ"); at most 63 characters.
inline std::string time_text(const char* format, TimeZone zone) {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    if (zone == TimeZone::Utc) gmtime_r(&now, &tm);
    else localtime_r(&now, &tm);
    char text[64];
    const size_t n = std::strftime(text, sizeof text, format, &tm);
    return std::string(text, n);
}

}  // namespace tilelab
