// fmt's compiled half, built once for the whole of TileLab (cmake/fmt.cmake). With fmt's
// header-only mode every source file that formats compiles fmt's formatting core again (about 3 s
// a file here, a third of a clean build); Debian's libfmt-dev ships that core only as a shared
// library, which TileLab's binaries must not need (the GPU machine and the .deb carry none). So
// this file compiles the core from fmt's own format-inl.h, and instantiates, for fmt 9, the
// templates format.h declares `extern` (dragonbox for float and double, the locale helpers and the
// buffer appends for char and wchar_t, vformat_to for char).
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
template FMT_API void buffer<char>::append(const char*, const char*);
template FMT_API void buffer<wchar_t>::append(const wchar_t*, const wchar_t*);
template FMT_API void vformat_to(buffer<char>&, string_view, basic_format_args<FMT_BUFFER_CONTEXT(char)>, locale_ref);
}  // namespace detail
FMT_END_NAMESPACE
