// [SECTION] Parameters panel: one control per ParamSpec of the current variant (sliders for long
// ranges, a row of buttons for short ones, a checkbox for switches), each with a (?) saying what
// it trades. A value the engine would refuse is shown disabled with its reason as the tooltip.
// Below: the problem size, reset, and in model mode the target the numbers are modelled for.
#include <imgui.h>
#include <imgui_stdlib.h>
#include <algorithm>
#include <cmath>
#include <cctype>
#include <cfloat>
#include <string>
#include "actions.h"
#include "tilelab/i18n.h"
#include "tilelab/variant_text.h"
#include "fonts.h"
#include "panels.h"
#include "ui_common.h"
#include "engine_thread.h"
#include "text_wrap.h"

namespace tilelab::gui {

namespace {

// Ranges with at most this many values get a row of buttons: every choice visible at once, and
// each invalid one greyed with its reason.
constexpr size_t kMaxButtons = 8;

std::string reason_for(const AppState& state, const std::string& name, int value) {
    if (!state.engine_thread) return "";
    RunRequest candidate = state.request;
    candidate.params[name] = value;
    return state.engine_thread->invalid_reason(candidate);
}

void tooltip_when_hovered(const std::string& text) {
    if (text.empty() || !ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) return;
    WrappedTooltip(text.c_str());
}

// The (?) first, then the label wrapped to the column: long labels take two lines, not the
// controls' width.
void label_with_help(const char* label, const char* help) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("(?)");
    tooltip_when_hovered(help);
    ImGui::SameLine(0, ImGui::GetStyle().ItemSpacing.x * 0.5f);
    WrappedText(label);
}

void draw_buttons(AppState& state, const ParamSpec& spec, int& value, const std::vector<int>& values) {
    const float gap = ImGui::GetStyle().ItemSpacing.x * 0.4f;
    const float right_edge = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
    for (size_t i = 0; i < values.size(); ++i) {
        const int v = values[i];
        const float width = std::max(ImGui::GetFrameHeight() * 1.25f, ButtonWidth(spec.value_text(v).c_str()));
        // Wrap onto the next line rather than run past the column.
        if (i > 0) {
            ImGui::SameLine(0, gap);
            if (ImGui::GetCursorScreenPos().x + width > right_edge) ImGui::NewLine();
        }
        const std::string reason = v == value ? "" : reason_for(state, spec.name, v);
        const bool current = v == value;
        if (current) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        ImGui::BeginDisabled(!reason.empty());
        ImGui::PushID(v);
        if (ImGui::Button(spec.value_text(v).c_str(), ImVec2(width, 0)) && !current) {
            value = v;
            SubmitRequest(state, spec.name, Change::Click);
        }
        ImGui::PopID();
        ImGui::EndDisabled();
        if (current) ImGui::PopStyleColor();
        tooltip_when_hovered(reason);
    }
}

void draw_slider(AppState& state, const ParamSpec& spec, int& value, const std::vector<int>& values) {
    // The slider moves over positions in values() so Pow2 and stepped ranges land only on legal values.
    const auto it = std::lower_bound(values.begin(), values.end(), value);
    int index = int(std::min<size_t>(values.size() - 1, size_t(it - values.begin())));
    const std::string shown = spec.value_text(value);
    ImGui::SetNextItemWidth(-1);
    if (ImGui::SliderInt("##slider", &index, 0, int(values.size()) - 1, shown.c_str(), ImGuiSliderFlags_AlwaysClamp)) {
        value = values[size_t(index)];
        SubmitRequest(state, spec.name, Change::Drag);
    }
    if (ImGui::IsItemDeactivatedAfterEdit()) SubmitRequest(state, spec.name, Change::Release);
    // The neighbours' reasons tell the user where the wall is before they drag into it.
    if (ImGui::IsItemHovered()) {
        std::string lines;
        for (int step : {-1, +1}) {
            const int j = index + step;
            if (j < 0 || j >= int(values.size())) continue;
            const std::string reason = reason_for(state, spec.name, values[size_t(j)]);
            if (!reason.empty()) lines += spec.value_text(values[size_t(j)]) + ": " + reason + "\n";
        }
        if (!lines.empty()) {
            lines.pop_back();
            tooltip_when_hovered(lines);
        }
    }
}

// True when `reason` names the parameter as a word ("TILE=7 ...", "... than TILE"): the sentence
// then belongs under that control, and not under every other one of the same configuration.
bool names_param(const std::string& reason, const std::string& name) {
    auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (size_t at = reason.find(name); at != std::string::npos; at = reason.find(name, at + 1)) {
        const size_t end = at + name.size();
        if ((at == 0 || !is_word(reason[at - 1])) && (end == reason.size() || !is_word(reason[end]))) return true;
    }
    return false;
}

void show_reason(const std::string& reason) {
    WrappedTextColored(StatusColorVec(false), reason);
}

// How strongly (1 .. 0) the rows of the parameters the step just set are marked: held for a while,
// then fading, so the eye is led to them without the colour staying on.
float step_mark(const StepHighlight& h) {
    constexpr double kHold = 2.5, kFade = 1.5;
    const double age = ImGui::GetTime() - h.since;
    return age < kHold ? 1.0f : float(std::max(0.0, 1.0 - (age - kHold) / kFade));
}

// Where the rows of the step's parameters lie in the panel's content (window coordinates).
struct MarkedRows {
    float top = FLT_MAX, bottom = -FLT_MAX;
    bool any() const { return bottom >= top; }
};

// The names' share of the panel's width, beside the controls.
constexpr float kNameShare = 0.42f;

// Whether every name's widest word fits its column beside the controls, after the (?) before it.
bool NamesFitBeside(const Variant& variant) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const float columns = ImGui::GetContentRegionAvail().x - 4 * style.CellPadding.x - 1;
    const float room = kNameShare * columns - ImGui::CalcTextSize("(?)").x - style.ItemSpacing.x * 0.5f;
    float widest = std::max(WidestUnbreakable(tr("params.problem_size")), WidestUnbreakable(tr("params.target_gpu")));
    for (const ParamSpec& spec : variant.params) widest = std::max(widest, WidestUnbreakable(spec.shown_label()));
    return widest <= room;
}

void draw_param(AppState& state, const ParamSpec& spec, MarkedRows& marked) {
    auto [slot, inserted] = state.request.params.try_emplace(spec.name, spec.def);
    int& value = slot->second;
    ImGui::TableNextRow();
    const StepHighlight& h = state.step_highlight;
    const bool is_marked = std::find(h.params.begin(), h.params.end(), spec.name) != h.params.end();
    const float mark = is_marked ? step_mark(h) : 0.0f;
    const auto mark_row = [mark] {
        if (mark > 0) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(64, 130, 220, int(90 * mark)));
    };
    mark_row();
    ImGui::TableNextColumn();
    const float row_top = ImGui::GetCursorScreenPos().y;
    if (is_marked) marked.top = std::min(marked.top, ImGui::GetCursorPosY());
    const std::string& text = spec.shown_help();
    const std::string help = text + (text.empty() ? "" : "\n\n") +
                             trf("params.on_the_command_line", spec.name, value, spec.def);
    label_with_help(spec.shown_label().c_str(), help.c_str());
    ImGui::TableNextColumn();   // beside the name, or (one column) the row below it, marked as well
    if (ImGui::TableGetColumnCount() == 1) mark_row();
    ImGui::PushID(spec.name.c_str());
    const std::vector<int> values = spec.values();
    if (spec.kind == ParamKind::Bool) {
        const int other = value ? 0 : 1;
        const std::string reason = reason_for(state, spec.name, other);
        bool on = value != 0;
        ImGui::BeginDisabled(!reason.empty());
        if (ImGui::Checkbox((tr(on ? "params.on" : "params.off") + "##bool").c_str(), &on)) {
            value = on ? 1 : 0;
            SubmitRequest(state, spec.name, Change::Click);
        }
        ImGui::EndDisabled();
        tooltip_when_hovered(reason);
    } else if (values.empty()) {
        ImGui::TextDisabled("%s", trf("params.no_legal_values", value).c_str());
    } else if (values.size() <= kMaxButtons) {
        draw_buttons(state, spec, value, values);
    } else {
        draw_slider(state, spec, value, values);
    }
    // The current value itself may be invalid (a preset, --set, or another parameter moved): the
    // sentence shows under the parameter it names (DrawParamsPanel shows one that names none).
    const std::string current = reason_for(state, spec.name, value);
    if (!current.empty() && names_param(current, spec.name)) show_reason(current);
    ImGui::PopID();
    if (!is_marked) return;
    const bool first = !marked.any();
    const float row_bottom = ImGui::GetItemRectMax().y;
    marked.bottom = std::max(marked.bottom, row_bottom - ImGui::GetWindowPos().y + ImGui::GetScrollY());
    // Once scrolled (scroll_to_marked), the first of the step's parameters must be in view, and
    // every one of them when they fit the panel together.
    const float window_top = ImGui::GetWindowPos().y, window_bottom = window_top + ImGui::GetWindowHeight();
    const bool all_fit = h.span + 2 * ImGui::GetStyle().ItemSpacing.y <= ImGui::GetWindowHeight();
    // While they are marked: once the mark has faded the user may scroll them away.
    const bool outside = row_top < window_top - 0.5f || row_bottom > window_bottom + 0.5f;
    if (h.settling == 0 && step_mark(h) > 0 && (first || all_fit) && outside)
        ReportLayoutProblem("the step's parameter " + spec.name + std::string(kOutOfView));
}

// In the frames after a step opens, the panel scrolls so that all of its parameters show (the
// first of them at the top when they cannot all fit), and says how tall they are: the centre
// column gives the parameters more of its height while they need it (App::draw_columns).
void scroll_to_marked(StepHighlight& h, const MarkedRows& marked) {
    const float span = marked.any() ? marked.bottom - marked.top : 0;
    // Moved, or grown (a sentence under one of them: a value out of range), while marked: again.
    const bool moved = std::abs(marked.top - h.top) > 0.5f || std::abs(span - h.span) > 0.5f;
    h.span = span;
    if (marked.any() && moved && step_mark(h) > 0) h.settling = std::max(h.settling, 3);
    h.top = marked.any() ? marked.top : 0;
    if (h.settling == 0) return;
    --h.settling;
    if (!marked.any()) return;
    const float pad = ImGui::GetStyle().ItemSpacing.y, visible = ImGui::GetWindowHeight();
    const float scroll = ImGui::GetScrollY();
    float target = scroll;
    if (h.span + 2 * pad > visible) target = marked.top - pad;
    else if (marked.top - pad < scroll) target = marked.top - pad;
    else if (marked.bottom + pad > scroll + visible) target = marked.bottom + pad - visible;
    if (target != scroll) ImGui::SetScrollY(std::max(0.0f, target));
}

void draw_problem_size(AppState& state) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    std::string help = tr("params.one_number_for_a_cube_4096_means_4096_in_every_d").c_str();
    if (const Variant* variant = CurrentVariant(state)) {
        if (const auto dims = family_dim_names(variant->family); !dims[0].empty())
            help += trf("params.size_here", dims[0], dims[1], dims[2]);
    }
    label_with_help(tr("params.problem_size").c_str(), (help + tr("params.press_enter")).c_str());
    ImGui::TableNextColumn();
    const float button_w = ImGui::GetFrameHeight() * 1.6f;
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float min_input_w = ImGui::CalcTextSize("4096x4096x4096").x;
    const bool buttons_beside = ImGui::GetContentRegionAvail().x - 2 * (button_w + spacing) >= min_input_w;
    ImGui::SetNextItemWidth(buttons_beside ? ImGui::GetContentRegionAvail().x - 2 * (button_w + spacing) : -1);
    if (ImGui::InputText("##size", &state.size_text, ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_CharsNoBlank))
        SubmitRequest(state, "size");
    if (ImGui::IsItemDeactivatedAfterEdit()) SubmitRequest(state, "size");
    auto scale = [&](double factor) {
        Problem p;
        std::string error;
        if (!parse_problem(state.size_text, p, error)) return;
        for (auto& d : p.dim) d = std::max<int64_t>(1, int64_t(double(d) * factor));
        state.size_text = format_problem(p);
        SubmitRequest(state, "size");
    };
    if (buttons_beside) ImGui::SameLine();
    if (ImGui::Button("\xc3\xb7" "2", ImVec2(button_w, 0))) scale(0.5);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("params.halve_every_dimension").c_str());
    ImGui::SameLine();
    if (ImGui::Button("\xc3\x97" "2", ImVec2(button_w, 0))) scale(2.0);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("params.double_every_dimension").c_str());
    if (!state.size_error.empty()) ImGui::TextColored(StatusColorVec(false), "%s", state.size_error.c_str());
}

}  // namespace

void DrawTargetPicker(AppState& state) {
    const auto& presets = target_presets();
    if (presets.empty()) return;
    const int index = std::clamp(state.model_target_index, 0, int(presets.size()) - 1);
    const Target& current = presets[size_t(index)];
    const std::string preview = current.name + " (" + current.arch_name() + ")";
    ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x,
                                     ImGui::CalcTextSize(preview.c_str()).x + ImGui::GetFrameHeight() * 2));
    if (ImGui::BeginCombo("##model_target", preview.c_str())) {
        for (size_t i = 0; i < presets.size(); ++i) {
            const Target& t = presets[i];
            const std::string label = t.name + " (" + t.arch_name() + ")";
            if (ImGui::Selectable(label.c_str(), int(i) == index) && int(i) != index) {
                state.model_target_index = int(i);
                if (state.engine_thread) state.engine_thread->set_model_target(t);
                SubmitRequest(state, "target");
            }
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("%s", trf("params.target_tooltip", t.sm_count, format_bytes(t.smem_per_sm), t.regs_per_sm,
                                            fmt::format("{:.1f}", t.peak_fp32_gflops / 1000.0), fmt::format("{:.0f}", t.dram_gbps), t.source).c_str());
        }
        ImGui::EndCombo();
    }
}

void DrawParamsPanel(AppState& state) {
    const Variant* variant = CurrentVariant(state);
    // In presenter mode a lesson's title is in the navigator and the menu bar already: the two
    // lines its heading takes at a projector's size go to the parameters.
    const bool titled = !state.presenter_mode || !CurrentLesson(state) || !variant;
    if (titled) {
        PushFontOrDefault(AppFonts().h2);
        WrappedText(variant ? variant_title(*variant) : state.request.variant);
        ImGui::PopFont();
    }
    if (!variant) {
        ImGui::TextColored(StatusColorVec(false), "%s", trf("params.variant_not_in_build", state.request.variant).c_str());
        return;
    }
    // In presenter mode the room goes to the parameters and the numbers; the summary is the
    // title's tooltip there, if any (the presenter says it).
    if (!variant->summary.empty()) {
        if (!state.presenter_mode) WrappedTextDisabled(variant_summary(*variant));
        else if (titled && ImGui::IsItemHovered()) WrappedTooltip(variant_summary(*variant).c_str());
    }

    // Names beside their controls; where a name's column would cut one of its words in two (large
    // text in a narrow panel: "Proble|m size"), each name above its control instead.
    const bool beside = NamesFitBeside(*variant);
    if (ImGui::BeginTable("##params", beside ? 2 : 1, ImGuiTableFlags_SizingStretchProp)) {
        if (beside) ImGui::TableSetupColumn("name", ImGuiTableColumnFlags_WidthStretch, kNameShare);   // ui-strings: not shown
        ImGui::TableSetupColumn("control", ImGuiTableColumnFlags_WidthStretch, 1.0f - (beside ? kNameShare : 0.0f));   // ui-strings: not shown
        StepHighlight& highlight = state.step_highlight;
        if (highlight.seen != highlight.entered) {
            highlight.since = ImGui::GetTime();
            highlight.settling = 3;
            highlight.seen = highlight.entered;
        } else if (step_mark(highlight) > 0 && std::abs(ImGui::GetWindowHeight() - highlight.height) > 0.5f) {
            highlight.settling = 3;   // the panel changed height (presenter mode, the window) while they are marked
        }
        highlight.height = ImGui::GetWindowHeight();
        MarkedRows marked;
        for (const ParamSpec& spec : variant->params) draw_param(state, spec, marked);
        draw_problem_size(state);
        if (state.engine_thread && state.engine_thread->ready() && !state.engine_thread->device().gpu) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            label_with_help(tr("params.target_gpu").c_str(), tr("params.target_gpu_help").c_str());
            ImGui::TableNextColumn();
            DrawTargetPicker(state);
        }
        scroll_to_marked(highlight, marked);
        ImGui::EndTable();
    }
    // A configuration refused for a reason that names no single parameter (the block's shared
    // memory, its thread count ...): said once, below all of them.
    if (state.engine_thread) {
        const std::string reason = state.engine_thread->invalid_reason(state.request);
        if (!reason.empty() && std::none_of(variant->params.begin(), variant->params.end(),
                                            [&](const ParamSpec& p) { return names_param(reason, p.name); }))
            show_reason(reason);
    }
    if (ImGui::Button(tr("params.reset_this_step").c_str())) ResetStep(state);
    if (ImGui::IsItemHovered()) WrappedTooltip(tr("params.reset_this_step_help").c_str());
}

}  // namespace tilelab::gui
