// [SECTION] Code panel: the kernel source exactly as NVRTC compiled it, with the instantiation
// that picked the template arguments, simple syntax colouring, and ptxas's report (registers,
// spills, shared memory, stack) with the compile time and whether the cache answered.
#include <imgui.h>
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>
#include "actions.h"
#include "tilelab/i18n.h"
#include "tilelab/occupancy.h"
#include "fonts.h"
#include "panels.h"
#include "stall_view.h"
#include "ui_common.h"
#include "text_wrap.h"

namespace tilelab::gui {

namespace {

const ImVec4 kKeyword(0.48f, 0.70f, 1.00f, 1.0f);
const ImVec4 kCudaWord(0.85f, 0.55f, 0.95f, 1.0f);
const ImVec4 kComment(0.50f, 0.62f, 0.50f, 1.0f);
const ImVec4 kNumber(0.95f, 0.75f, 0.45f, 1.0f);
const ImVec4 kString(0.90f, 0.60f, 0.50f, 1.0f);
const ImVec4 kPreprocessor(0.75f, 0.60f, 0.85f, 1.0f);
const ImVec4 kPlain(0.88f, 0.89f, 0.91f, 1.0f);
const ImVec4 kLineNumber(0.42f, 0.44f, 0.50f, 1.0f);

bool is_one_of(std::string_view word, std::initializer_list<std::string_view> words) {
    for (std::string_view w : words)
        if (w == word) return true;
    return false;
}

const ImVec4& word_colour(std::string_view w) {
    if (is_one_of(w, {"template", "typename", "const", "constexpr", "static", "inline", "int", "unsigned", "float",
                      "double", "void", "bool", "char", "long", "short", "auto", "struct", "class", "for", "while",
                      "do", "if", "else", "return", "break", "continue", "switch", "case", "default", "namespace",
                      "using", "sizeof", "true", "false", "nullptr", "static_assert", "float2", "float4", "int4",
                      "size_t", "uint32_t", "int64_t"}))
        return kKeyword;
    if (w.rfind("__", 0) == 0 || is_one_of(w, {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"}))
        return kCudaWord;
    return kPlain;
}

// Draws one line token by token. `in_block_comment` carries /* ... */ across lines.
void draw_line(std::string_view line, bool& in_block_comment) {
    bool first = true;
    auto put = [&](std::string_view text, const ImVec4& colour) {
        if (text.empty()) return;
        if (!first) ImGui::SameLine(0, 0);
        first = false;
        ImGui::TextColored(colour, "%.*s", int(text.size()), text.data());
    };
    size_t i = 0;
    const size_t n = line.size();
    if (!in_block_comment) {
        size_t k = line.find_first_not_of(" \t");
        if (k != std::string_view::npos && line[k] == '#') {
            put(line, kPreprocessor);
            return;
        }
    }
    while (i < n) {
        if (in_block_comment) {
            const size_t end = line.find("*/", i);
            const size_t stop = end == std::string_view::npos ? n : end + 2;
            put(line.substr(i, stop - i), kComment);
            if (end != std::string_view::npos) in_block_comment = false;
            i = stop;
            continue;
        }
        const char c = line[i];
        if (c == '/' && i + 1 < n && line[i + 1] == '/') {
            put(line.substr(i), kComment);
            break;
        }
        if (c == '/' && i + 1 < n && line[i + 1] == '*') {
            in_block_comment = true;
            put(line.substr(i, 2), kComment);
            i += 2;
            continue;
        }
        size_t j = i + 1;
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            while (j < n && (std::isalnum(static_cast<unsigned char>(line[j])) || line[j] == '_')) ++j;
            put(line.substr(i, j - i), word_colour(line.substr(i, j - i)));
        } else if (std::isdigit(static_cast<unsigned char>(c))) {
            while (j < n && (std::isalnum(static_cast<unsigned char>(line[j])) || line[j] == '.')) ++j;
            put(line.substr(i, j - i), kNumber);
        } else if (c == '"' || c == '\'') {
            while (j < n && line[j] != c) j += line[j] == '\\' ? 2 : 1;
            j = std::min(n, j + 1);
            put(line.substr(i, j - i), kString);
        } else {
            while (j < n && !std::isalnum(static_cast<unsigned char>(line[j])) && line[j] != '_' && line[j] != '/' &&
                   line[j] != '"' && line[j] != '\'')
                ++j;
            put(line.substr(i, j - i), kPlain);
        }
        i = j;
    }
    if (first) ImGui::NewLine();   // an empty line still takes its height
}

std::vector<std::string_view> split_lines(const std::string& text) {
    std::vector<std::string_view> lines;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        lines.emplace_back(text.data() + start, end - start);
        start = end + 1;
    }
    return lines;
}

// The source with its line numbers and, when the run was sampled, a bar beside each line with
// its share of the kernel's stall samples (stall_view.h).
void draw_source(AppState& state, const RunResult& r) {
    const std::vector<std::string_view> lines = split_lines(r.kernel_source);
    const std::vector<const StallLine*> stalls = StallLinesOf(r, lines.size());
    const uint64_t most = StallMostOf(stalls);
    // Whether each line starts inside a block comment, so the clipper can start anywhere.
    std::vector<char> starts_in_comment(lines.size(), 0);
    bool in_comment = false;
    for (size_t i = 0; i < lines.size(); ++i) {
        starts_in_comment[i] = in_comment;
        for (size_t k = 0; k + 1 < lines[i].size(); ++k) {
            if (!in_comment && lines[i][k] == '/' && lines[i][k + 1] == '/') break;
            if (!in_comment && lines[i][k] == '/' && lines[i][k + 1] == '*') { in_comment = true; ++k; }
            else if (in_comment && lines[i][k] == '*' && lines[i][k + 1] == '/') { in_comment = false; ++k; }
        }
    }
    PushFontOrDefault(AppFonts().mono);
    // A newly sampled result brings its hottest line into view (once per result, only when hidden).
    if (most > 0 && state.code_scrolled_for != &r) {
        state.code_scrolled_for = &r;
        const int hot = stall_hottest_line(r.stalls, r.kernel_file)->line - 1;
        const float lh = ImGui::GetTextLineHeightWithSpacing(), y = float(hot) * lh, view = ImGui::GetWindowHeight();
        if (y < ImGui::GetScrollY() || y + lh > ImGui::GetScrollY() + view) ImGui::SetScrollY(std::max(0.0f, y - view * 0.4f));
    }
    const int digits = int(std::to_string(lines.size()).size());
    ImGuiListClipper clipper;
    clipper.Begin(int(lines.size()));
    while (clipper.Step())
        for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
            if (!stalls.empty()) {
                DrawStallBar(r.stalls, stalls[size_t(i)], most, ImGui::GetFontSize() * 4);
                ImGui::SameLine(0, 0);
            }
            ImGui::TextColored(kLineNumber, "%*d ", digits, i + 1);
            ImGui::SameLine(0, 0);
            bool comment = starts_in_comment[size_t(i)];
            draw_line(lines[size_t(i)], comment);
        }
    clipper.End();
    ImGui::PopFont();
}

struct PtxasCell {
    std::string name, value;
    const ImVec4* colour = nullptr;
    std::string help;   // hover text of the name, "" for none
};

// Name-value pairs, two a row where both fit side by side, else one a row (a narrow column, large text).
void draw_cells(const char* id, const std::vector<PtxasCell>& cells) {
    float column[4] = {0, 0, 0, 0};   // the widest name and value of the left and the right pairs
    for (size_t i = 0; i < cells.size(); ++i) {
        float* pair = column + 2 * (i % 2);
        pair[0] = std::max(pair[0], ImGui::CalcTextSize((cells[i].name + (cells[i].help.empty() ? "" : " (?)")).c_str()).x);
        pair[1] = std::max(pair[1], ImGui::CalcTextSize(cells[i].value.c_str()).x);
    }
    const float two_pairs = column[0] + column[1] + column[2] + column[3] + 8 * ImGui::GetStyle().CellPadding.x;
    const int pairs = two_pairs <= ImGui::GetContentRegionAvail().x ? 2 : 1;
    if (!ImGui::BeginTable(id, 2 * pairs, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) return;
    for (const PtxasCell& c : cells) {
        ImGui::TableNextColumn();
        TextWithHelp(c.name, c.help.empty() ? nullptr : c.help.c_str(), true);
        ImGui::TableNextColumn();
        if (c.colour) WrappedTextColored(*c.colour, c.value);
        else WrappedText(c.value);
    }
    ImGui::EndTable();
}

void draw_ptxas(const RunResult& r, const CompileResult& c) {
    const PtxasInfo& p = c.ptxas;
    std::vector<PtxasCell> cells;
    auto cell = [&](const std::string& name, const std::string& value, const ImVec4* colour = nullptr) {
        cells.push_back({name, value, colour, ""});
    };
    const ImVec4 red = StatusColorVec(false);
    const bool spills = p.spills();
    // ptxas's count, and the count the SM allocates where they differ (occupancy uses the latter);
    // the rule is spelled out under the table.
    const RegisterAllocation regs = allocated_registers(r.target, p.registers);
    const bool rounded = p.parsed && regs.rounded();
    cell(tr("code.registers_thread"), rounded ? trf("code.registers_ptxas_allocated", regs.ptxas, regs.per_thread)
                                              : p.parsed ? std::to_string(p.registers) : "?");
    cell(tr("code.spill_stores_loads"), std::to_string(p.spill_stores) + " B / " + std::to_string(p.spill_loads) + " B",
         spills ? &red : nullptr);
    cell(tr("code.static_shared_memory"), format_bytes(p.smem_bytes));
    cell(tr("code.stack_frame"), format_bytes(p.stack_bytes));
    cell(tr("code.constant_bank_0"), format_bytes(p.cmem_bytes));
    cell(tr("code.target"), r.target.name.empty() ? "?" : r.target.arch_name());
    cell(tr("code.compile_time"), FormatTime(c.compile_ms));
    cell(tr("code.cache"), c.cache_hit ? trf("code.cache_hit", tr("cache." + c.cache_level)) : tr("code.miss_compiled_now"));
    // The allocation rule on the registers' (?): the listing below keeps the room.
    if (rounded)
        cells.front().help = trf("code.registers_allocation_rule", regs.ptxas, regs.unit, r.target.warp_size, regs.thread_multiple,
                                 regs.ptxas * r.target.warp_size, regs.per_warp, regs.per_thread);
    draw_cells("##ptxas", cells);
}

void draw_kernel(AppState& state) {
    const std::shared_ptr<const RunResult> r = state.result;
    if (!r) {
        ImGui::TextDisabled("%s", tr("code.nothing_compiled_yet").c_str());
        return;
    }
    const Variant* variant = find_variant(r->request.variant);
    std::string file;
    if (variant && variant->defined()) file = variant->kernel(r->request.params).source_file;

    TextWithHelp(tr("code.instantiation"), tr("code.instantiation_help").c_str(), true);
    PushFontOrDefault(AppFonts().mono);
    WrappedTextColored(kNumber, r->name_expression.empty() ? tr("code.none") : r->name_expression);
    ImGui::PopFont();
    if (!file.empty()) {   // beside the name where it fits, else under it
        const std::string from = trf("code.from_file", file);
        SameLineIfFits(ImGui::CalcTextSize(from.c_str()).x);
        WrappedTextDisabled(from);
    }
    const CompileResult* c = r->compiled.get();
    if (!c) {
        WrappedTextDisabled(r->error.empty() ? tr("code.not_compiled") : trf("code.not_compiled_because", r->error));
    } else if (!c->ok) {
        WrappedTextColored(StatusColorVec(false), trf("code.compilation_failed", c->error));
    } else {
        draw_ptxas(*r, *c);
    }
    // The compiler's command line and log, folded: the source below gets the room.
    if (c && (!c->log.empty() || !c->options.empty()) &&
        ImGui::CollapsingHeader(tr("code.compiler_log_nvrtc_and_ptxas").c_str())) {
        PushFontOrDefault(AppFonts().mono);
        ImGui::PushTextWrapPos(0);
        if (!c->options.empty()) ImGui::TextDisabled("nvrtc %s", c->options.c_str());   // ui-strings: not shown (the compiler's command line)
        ImGui::TextUnformatted(c->log.c_str());
        ImGui::PopTextWrapPos();
        ImGui::PopFont();
    }
    ImGui::Separator();
    if (r->kernel_source.empty()) {
        WrappedTextDisabled(tr("code.no_source_was_attached_to_this_result"));
        return;
    }
    DrawStallHeader(*r);
    ImGui::BeginChild("##source", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    draw_source(state, *r);
    ImGui::EndChild();
}

}  // namespace

// Two views: the lesson's kernel as compiled, and the exercise (write it yourself).
void DrawCodePanel(AppState& state) {
    if (!ImGui::BeginTabBar("##code_views")) return;
    const char* const views[2] = {"Kernel", "Exercise"};   // ui-strings: not shown (IDs; the labels are code.view_*)
    void (*const draw[2])(AppState&) = {draw_kernel, DrawExercisePanel};
    const std::string select = state.select_code_view;
    for (int i = 0; i < 2; ++i) {
        const ImGuiTabItemFlags flags = select == views[i] ? ImGuiTabItemFlags_SetSelected : 0;
        // The label in the current language, the ID ("###") the same in both.
        const std::string label = tr(std::string("code.view_") + views[i]) + "###" + views[i];
        if (ImGui::BeginTabItem(label.c_str(), nullptr, flags)) {
            state.code_view = views[i];
            draw[i](state);
            ImGui::EndTabItem();
        }
    }
    if (!select.empty() && state.code_view == select) state.select_code_view.clear();
    ImGui::EndTabBar();
}

}  // namespace tilelab::gui
