// The Tiles panel's drawing pieces (panel_tiles.cpp, panel_tiles_stream.cpp): its colours, a
// rectangle that stays visible when tiny, grid lines, captions, legend swatches and the step
// slider with its play button.
#pragma once
#include <cstdint>
#include <string>
#include "app_state.h"
#include "imgui.h"
#include "tilelab/result.h"
#include "tilelab/tiles.h"

namespace tilelab::gui::tiles {

inline const ImU32 kMatrixFill = IM_COL32(40, 44, 54, 255);
inline const ImU32 kMatrixEdge = IM_COL32(120, 125, 140, 255);
inline const ImU32 kStripFill = IM_COL32(86, 180, 233, 50);        // the block's whole row/column strip
inline const ImU32 kTileFill = IM_COL32(86, 180, 233, 200);        // the tile loaded at this k-step
inline const ImU32 kSmemFill = IM_COL32(86, 180, 233, 170);        // shared memory
inline const ImU32 kRegisterFill = IM_COL32(230, 159, 0, 210);     // registers
inline const ImU32 kHaloFill = IM_COL32(204, 121, 167, 150);       // halo
inline const ImU32 kOutputFill = IM_COL32(0, 190, 140, 170);       // outputs
inline const ImU32 kClusterEdge = IM_COL32(240, 228, 66, 255);      // a cluster's tiles and the B they share


// A filled and/or outlined rectangle, at least 3 px a side.
void Rect(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 fill, ImU32 edge, float thickness = 1.0f);
// cols × rows cells' inner lines, skipped along an axis where they would fall under 4 px apart.
void GridLines(ImDrawList* dl, ImVec2 a, ImVec2 b, int64_t cols, int64_t rows, ImU32 color);
void Caption(ImDrawList* dl, ImVec2 at, const std::string& text, ImU32 color);
void Caption(ImDrawList* dl, ImVec2 at, const std::string& text);
// A colour square and its meaning, wrapping at the panel's edge.
void Swatch(ImU32 color, const char* text);
// The step slider ("what 3 of 8") with a play button that advances it twice a second.
void StepControls(AppState& state, const char* what, int64_t steps);

// A stencil fusing time steps (TileGeometry::time_steps > 0): its levels across the region's
// columns, the ring each level gets wrong and the tile the last one writes. panel_tiles_levels.cpp.
void DrawTimeLevels(const TileGeometry& t, float width);
// The same levels along z: the planes each computes, the block's own, and the diagonal of the
// iteration that writes the block's output plane `plane` (from 0).
void DrawTimePipeline(const TileGeometry& t, float width, int64_t plane);
// A streamed operand (TileGeometry::stream_tile > 0, attention): panel_tiles_stream.cpp.
void DrawStream(AppState& state, const TileGeometry& t, const RunResult& r);
// A ring of shared-memory stages (TileGeometry::ring_stages > 0, lesson 22): which stage the
// producer and the consumers are on at the panel's k-step. panel_tiles_ring.cpp.
void DrawStageRing(const AppState& state, const TileGeometry& t, const RunResult& r);
// One block's pipeline over time around the panel's k-step, the model beside the measured time
// (tilelab/pipeline.h). panel_tiles_pipeline.cpp.
void DrawPipelineTimeline(AppState& state, const TileGeometry& t, const RunResult& r);
// Blocks owning whole rows of a stored N×N product (a product_name, no streamed operand: lesson
// 14's softmax): panel_tiles_rows.cpp.
void DrawRows(AppState& state, const TileGeometry& t, const RunResult& r);

}  // namespace tilelab::gui::tiles
