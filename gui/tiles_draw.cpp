// The Tiles panel's drawing pieces (tiles_draw.h).
#include "tiles_draw.h"
#include <algorithm>
#include "plot.h"
#include "tilelab/i18n.h"
#include "text_wrap.h"
#include "ui_common.h"

namespace tilelab::gui::tiles {

void Rect(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 fill, ImU32 edge, float thickness) {
    // Keep tiny tiles visible: at least 3 px on each side.
    float min_side = 3.0f;
    if (b.x - a.x < min_side) b.x = a.x + min_side;
    if (b.y - a.y < min_side) b.y = a.y + min_side;
    if (fill) dl->AddRectFilled(a, b, fill);
    if (edge) dl->AddRect(a, b, edge, 0, 0, thickness);
}

void GridLines(ImDrawList* dl, ImVec2 a, ImVec2 b, int64_t cols, int64_t rows, ImU32 color) {
    float cw = (b.x - a.x) / float(cols), ch = (b.y - a.y) / float(rows);
    if (cw >= 4)
        for (int64_t i = 1; i < cols; ++i) dl->AddLine(ImVec2(a.x + cw * float(i), a.y), ImVec2(a.x + cw * float(i), b.y), color);
    if (ch >= 4)
        for (int64_t i = 1; i < rows; ++i) dl->AddLine(ImVec2(a.x, a.y + ch * float(i)), ImVec2(b.x, a.y + ch * float(i)), color);
}

void Caption(ImDrawList* dl, ImVec2 at, const std::string& text, ImU32 color) { dl->AddText(at, color, text.c_str()); }

void Caption(ImDrawList* dl, ImVec2 at, const std::string& text) { Caption(dl, at, text, plot::kTextColor); }

void Swatch(ImU32 color, const char* text) {
    float h = ImGui::GetTextLineHeight();
    ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(h, h));
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x + 2, p.y + 2), ImVec2(p.x + h - 2, p.y + h - 2), color);
    ImGui::SameLine();
    WrappedText(text);   // long captions wrap at the panel's edge instead of running past it
}

// The k-step slider with a play button that advances it twice a second.
void StepControls(AppState& state, const char* what, int64_t steps) {
    int last = int(std::max<int64_t>(1, steps) - 1);
    state.tile_k_step = std::clamp(state.tile_k_step, 0, last);
    if (ImGui::Button(state.tile_playing ? tr("tiles.pause").c_str() : tr("tiles.play").c_str())) state.tile_playing = !state.tile_playing;
    // The slider beside the button where at least 8 em are left there, else under it; 16 em or
    // what the line has.
    SameLineIfFits(ImGui::GetFontSize() * 8);
    ImGui::SetNextItemWidth(FieldWidth(ImGui::GetFontSize() * 16));
    const std::string format = trf("tiles.step_format", what, last + 1);   // "k-step %d of 8"
    int shown = state.tile_k_step + 1;
    if (ImGui::SliderInt("##kstep", &shown, 1, last + 1, format.c_str())) {
        state.tile_k_step = shown - 1;
        state.tile_playing = false;
    }
    if (state.tile_playing) {
        const double period_s = 0.5;
        state.tile_play_accum += ImGui::GetIO().DeltaTime;
        while (state.tile_play_accum >= period_s) {
            state.tile_play_accum -= period_s;
            state.tile_k_step = state.tile_k_step >= last ? 0 : state.tile_k_step + 1;
        }
    }
}

}  // namespace tilelab::gui::tiles
