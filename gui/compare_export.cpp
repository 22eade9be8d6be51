#include "compare_export.h"
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <imgui.h>
#include "tilelab/result_json.h"
#include "gl_util.h"
#include "tilelab/i18n.h"
#include "tilelab/input_policy.h"
#include "tilelab/safe_file.h"

// The PNG encoder, private to this file (static functions), so it cannot clash with another
// file that also includes the implementation.
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb/stb_image_write.h>
#pragma GCC diagnostic pop

namespace tilelab::gui {

namespace {

// Every parameter name any result uses, so all rows have the same columns.
std::vector<std::string> ParamNames(const ResultList& results) {
    std::set<std::string> names;
    for (const auto& r : results)
        if (r)
            for (const auto& [name, value] : r->request.params) names.insert(name);
    return {names.begin(), names.end()};
}

// The export's columns: pointers into the engine's result JSON (tilelab/result_json.h), the one
// serialisation the CLI writes too.
std::vector<CsvColumn> ExportColumns(const ResultList& results) {
    std::vector<CsvColumn> cols = {{"variant", "/variant"}, {"problem", "/problem/text"}};
    for (const auto& name : ParamNames(results)) cols.push_back({name, "/params/" + name});
    for (const char* key : {"target", "ok", "stage", "error", "measured", "median_ms", "min_ms", "max_ms", "gflops",
                            "gbps_effective"})
        cols.push_back({key, std::string("/") + key});
    cols.push_back({"validated", "/validation/passed"});
    cols.push_back({"max_rel_error", "/validation/max_rel_error"});
    for (const char* key : {"occupancy", "blocks_per_sm", "limiter", "registers", "spill_stores", "spill_loads",
                            "smem_bytes", "intensity", "flops", "global_bytes"})
        cols.push_back({key, std::string("/") + key});
    return cols;
}

}  // namespace

std::string ResultsToCsv(const ResultList& results) {
    const auto columns = ExportColumns(results);
    std::string out = csv_line(csv_headers(columns));
    for (const auto& r : results)
        if (r) out += csv_line(csv_row(result_to_json(*r), columns));
    return out;
}

std::string ResultsToJson(const ResultList& results) {
    const auto columns = ExportColumns(results);
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& r : results) {
        if (!r) continue;
        const nlohmann::ordered_json j = result_to_json(*r);
        nlohmann::ordered_json row = nlohmann::ordered_json::object();
        for (const auto& c : columns) {
            const nlohmann::ordered_json::json_pointer ptr(c.pointer);
            row[c.header] = j.contains(ptr) ? j.at(ptr) : nullptr;
        }
        rows.push_back(std::move(row));
    }
    return rows.dump(2) + "\n";
}

std::string WriteTextFile(const std::string& path, const std::string& text) {
    std::string error;
    if (write_file_atomic(path, text, error)) return "";
    return trf("export.not_saved", error);
}

void RequestCapture(AppState& state, const std::string& path, float min_x, float min_y, float max_x, float max_y) {
    state.capture_pending = true;
    state.capture_path = path;
    state.capture_min_x = min_x;
    state.capture_min_y = min_y;
    state.capture_max_x = max_x;
    state.capture_max_y = max_y;
}

void ServicePendingCapture(AppState& state, int framebuffer_width, int framebuffer_height) {
    if (!state.capture_pending) return;
    state.capture_pending = false;
    // ImGui coordinates are in display units; the framebuffer may be denser (HiDPI).
    const ImVec2 scale = ImGui::GetIO().DisplayFramebufferScale;
    const int x0 = std::clamp(int(state.capture_min_x * scale.x), 0, framebuffer_width);
    const int y0 = std::clamp(int(state.capture_min_y * scale.y), 0, framebuffer_height);
    const int x1 = std::clamp(int(state.capture_max_x * scale.x + 0.5f), 0, framebuffer_width);
    const int y1 = std::clamp(int(state.capture_max_y * scale.y + 0.5f), 0, framebuffer_height);
    if (x1 <= x0 || y1 <= y0) {
        state.export_message = tr("export.nothing_to_save");
        return;
    }
    const std::vector<uint8_t> frame = ReadPixelsRgba(framebuffer_width, framebuffer_height);
    const int w = x1 - x0, h = y1 - y0;
    std::vector<uint8_t> region(size_t(w) * size_t(h) * 4);
    for (int y = 0; y < h; ++y)
        std::memcpy(&region[size_t(y) * size_t(w) * 4], &frame[(size_t(y0 + y) * size_t(framebuffer_width) + size_t(x0)) * 4],
                    size_t(w) * 4);
    for (size_t i = 3; i < region.size(); i += 4) region[i] = 255;   // the framebuffer's alpha is not the image's
    // Encoded in memory and written with every error checked: stb's file writer ignores them.
    std::string png, error;
    const auto append = [](void* context, void* data, int size) {
        static_cast<std::string*>(context)->append(static_cast<const char*>(data), size_t(size));
    };
    if (!stbi_write_png_to_func(append, &png, w, h, 4, region.data(), w * 4))
        state.export_message = trf("export.png_not_encoded", shortened_path(state.capture_path));
    else if (!write_file_atomic(state.capture_path, png, error))
        state.export_message = trf("export.not_saved", error);
    else
        state.export_message = trf("export.saved_plot", state.capture_path, w, h);
}

}  // namespace tilelab::gui
