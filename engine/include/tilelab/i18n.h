// The language of everything a person reads: English or Simplified Chinese (简体中文).
//
// One process-wide setting (the app's View menu, `--lang` for the app and the CLI, the locale as
// the default). Three ways a sentence gets translated:
//   - the string tables strings/en.json and strings/zh.json (embedded at build time): menus,
//     labels, tooltips, status and error messages, the CLI's messages, formula labels; merged with
//     them, each lesson's and each family's strings.json / strings.zh.json (a variant's title,
//     parameters, constraint sentences; a family's shared sentences). tr("key") gives the current
//     language's text; trf("key", args...) formats it ({} as fmt does). tests/cpu/test_i18n.cpp
//     fails when a key is missing in either table, the two tables' placeholders differ, or a
//     trf() call passes a different number of arguments than its pattern asks for.
//   - the engine's own sentences (occupancy arithmetic, range errors, the worker's messages) carry
//     both languages where they are written: say("English {}", "中文 {}", args...).
//   - the lessons: lessons/NN_slug/lesson.zh.md beside lesson.md (tilelab/lesson.h).
// The engine's default is English; only the app and the CLI read the locale, so tests do not
// depend on the environment they run in.
#pragma once
#include <fmt/format.h>
#include <map>
#include <string>
#include <string_view>

namespace tilelab {

enum class Language { English, Chinese };

Language language();
void set_language(Language lang);
// "en" / "zh".
const char* language_code(Language lang);
// "en", "zh" (also "zh_CN", "zh-CN", "chinese", "english"); false for anything else.
bool parse_language(std::string_view text, Language& out);
// Chinese when LC_ALL, else LC_MESSAGES, else LANG starts with "zh"; English otherwise.
Language language_from_locale();

// The current language's text for `key`: English where the Chinese table lacks it, the key itself
// where both do (never an empty string, so a missing key shows and a test names it).
const std::string& tr(std::string_view key);
const std::string& tr(std::string_view key, Language lang);
// A formula's or extra's label ("global loads / thread", as the cost models declare it in
// English): its translation from the table ("quantity.global loads / thread"), else the English.
const std::string& quantity_label(const std::string& english);
// A formula's expression ("4·(global loads + global stores)"), or another text of a cost model (a
// shared-memory access site's name, formula and caveat), in the current language. In Chinese:
// the table's "formula.<English expression>" where there is one (a lesson's strings.zh.json, for
// an expression that is a sentence), else the expression with each word or phrase the table names
// as "formula_term.<English>" replaced, longest first, whole words only. Symbols stay symbols.
std::string formula_expression(const std::string& english);

// An occupancy limiter ("registers and shared memory", as tilelab/occupancy.h names it) in the
// current language.
std::string limiter_label(const std::string& limiter);

// Every key and its text in one table (the tests, the font's glyph list).
const std::map<std::string, std::string>& string_table(Language lang);
// Problems found while reading the tables (a file that does not parse); empty when all is well.
const std::string& string_table_problems();

namespace detail {
std::string format_or_key(std::string_view key, const std::string& pattern, fmt::format_args args);
}

// tr(key) formatted with `args`. A pattern that does not fit the arguments (a translation
// error the tests catch) falls back to the English pattern, then to the key.
template <class... Args>
std::string trf(std::string_view key, const Args&... args) {
    return detail::format_or_key(key, tr(key), fmt::make_format_args(args...));
}

// A sentence declared in both languages next to its data; both patterns are checked against the
// arguments at compile time.
template <class... Args>
std::string say(fmt::format_string<Args...> en, fmt::format_string<Args...> zh, Args&&... args) {
    const fmt::string_view pattern = language() == Language::Chinese ? fmt::string_view(zh) : fmt::string_view(en);
    return fmt::vformat(pattern, fmt::make_format_args(args...));
}

}  // namespace tilelab
