#include "compare_export.h"
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <imgui.h>
#include <nlohmann/json.hpp>
#include "gl_util.h"
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

std::string CsvField(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string quoted = "\"";
    for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

std::string Number(double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

// The fields of one result as (column, JSON value); null for what was not measured.
std::vector<std::pair<std::string, nlohmann::json>> Fields(const RunResult& r, const std::vector<std::string>& params) {
    using nlohmann::json;
    std::vector<std::pair<std::string, json>> f;
    f.emplace_back("variant", r.request.variant);
    f.emplace_back("problem", format_problem(r.request.problem));
    for (const auto& name : params) {
        auto it = r.request.params.find(name);
        f.emplace_back(name, it == r.request.params.end() ? json() : json(it->second));
    }
    f.emplace_back("target", r.target);
    f.emplace_back("ok", r.ok);
    f.emplace_back("stage", r.stage);
    f.emplace_back("error", r.error);
    f.emplace_back("measured", r.measured);
    auto measured = [&](double v) { return r.measured ? json(v) : json(); };
    f.emplace_back("median_ms", measured(r.timing.median_ms));
    f.emplace_back("min_ms", measured(r.timing.min_ms));
    f.emplace_back("max_ms", measured(r.timing.max_ms));
    f.emplace_back("gflops", measured(r.gflops));
    f.emplace_back("gbps_effective", measured(r.gbps_effective));
    f.emplace_back("validated", r.validation.checked ? json(r.validation.passed) : json());
    f.emplace_back("max_rel_error", r.validation.checked ? json(r.validation.max_rel_error) : json());
    f.emplace_back("occupancy", r.occupancy.occupancy);
    f.emplace_back("blocks_per_sm", r.occupancy.blocks_per_sm);
    f.emplace_back("limiter", r.occupancy.limiter);
    f.emplace_back("registers", r.compiled ? json(r.compiled->ptxas.registers) : json());
    f.emplace_back("spill_stores", r.compiled ? json(r.compiled->ptxas.spill_stores) : json());
    f.emplace_back("spill_loads", r.compiled ? json(r.compiled->ptxas.spill_loads) : json());
    f.emplace_back("smem_bytes", r.compiled ? json(r.compiled->ptxas.smem_bytes + int(r.launch.dynamic_smem)) : json());
    f.emplace_back("intensity", r.model.intensity);
    f.emplace_back("flops", r.model.flops);
    f.emplace_back("global_bytes", r.model.global_bytes);
    return f;
}

}  // namespace

std::string ResultsToCsv(const ResultList& results) {
    const auto params = ParamNames(results);
    std::string out;
    bool header = false;
    for (const auto& r : results) {
        if (!r) continue;
        const auto fields = Fields(*r, params);
        // Appended piecewise: GCC 12 warns (-Wrestrict, a false positive) on "x" + std::string&&.
        if (!header) {
            for (size_t i = 0; i < fields.size(); ++i) {
                if (i) out += ',';
                out += CsvField(fields[i].first);
            }
            out += "\n";
            header = true;
        }
        for (size_t i = 0; i < fields.size(); ++i) {
            const auto& v = fields[i].second;
            std::string cell = v.is_null() ? "" : v.is_string() ? v.get<std::string>()
                             : v.is_boolean() ? (v.get<bool>() ? "1" : "0")
                             : v.is_number_integer() ? std::to_string(v.get<long long>())
                                                     : Number(v.get<double>());
            if (i) out += ',';
            out += CsvField(cell);
        }
        out += "\n";
    }
    return out;
}

std::string ResultsToJson(const ResultList& results) {
    const auto params = ParamNames(results);
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : results) {
        if (!r) continue;
        nlohmann::json row = nlohmann::json::object();
        for (auto& [name, value] : Fields(*r, params)) row[name] = value;
        rows.push_back(row);
    }
    return rows.dump(2) + "\n";
}

std::string WriteTextFile(const std::string& path, const std::string& text) {
    std::string error;
    if (write_file_atomic(path, text, error)) return "";
    return "Not saved: " + error + ".";
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
        state.export_message = "Nothing to save: the plot is not on screen.";
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
        state.export_message = "Not saved: the PNG for " + shortened_path(state.capture_path) + " could not be encoded.";
    else if (!write_file_atomic(state.capture_path, png, error))
        state.export_message = "Not saved: " + error + ".";
    else
        state.export_message = "Saved the plot to " + state.capture_path + " (" + std::to_string(w) + "×" +
                               std::to_string(h) + ").";
}

}  // namespace tilelab::gui
