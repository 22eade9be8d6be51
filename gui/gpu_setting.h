// Where the GPU is, as a setting (issue #19): this computer's, or a shared GPU machine reached
// through ssh (--gpu-host) or any launcher (--gpu-command), remembered in settings.json
// ("gpu_host", "gpu_command"), and which of its GPUs the Compare tab's sweeps use ("gpus": "",
// "all", "0,1"; engine_thread.h). The GPU menu edits it; the status bar says where runs go, what
// the GPU worker is waiting for, and offers Reconnect when the link failed.
#pragma once
#include <string>
#include "engine_thread.h"

namespace tilelab::gui {

// Reads the remembered setting; a field of the wrong type is ignored with a sentence in `notice`.
GpuLocation LoadGpuSetting(const std::string& settings_path, std::string& notice);
// Writes it into settings.json, keeping every other key; never over a file that does not parse.
bool SaveGpuSetting(const std::string& settings_path, const GpuLocation& where, std::string& error);

// The remembered GPU set for sweeps ("" when none, or when it is not text).
std::string LoadGpuSetForSweeps(const std::string& settings_path);
bool SaveGpuSetForSweeps(const std::string& settings_path, const std::string& gpus, std::string& error);

// The GPU menu's edit buffers (part of App, not function-static).
struct GpuSettingDraft {
    bool loaded = false;
    bool gpus_restored = false;   // the remembered GPU set handed to the engine thread
    char host[256] = {};
    char command[1024] = {};
    char gpus[64] = {};
};

// The "GPU" menu: the setting's fields, Connect, "This computer's GPU", Reconnect. Saves to
// `settings_path` when it is not "" (headless runs do not persist); problems go to `notice`.
void DrawGpuMenu(GpuSettingDraft& draft, EngineThread& engine, const std::string& settings_path, std::string& notice);
// The status bar's device part: "GPU: NVIDIA H100 (sm_90) on gpu01 via ssh", or model mode with
// the reason and a Reconnect button when a GPU elsewhere could not be reached.
void DrawGpuStatus(EngineThread& engine, float right);

}  // namespace tilelab::gui
