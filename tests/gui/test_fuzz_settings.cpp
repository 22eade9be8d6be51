// The settings file is the user's data: generated and mutated settings files (seeded) must load
// without an exception, report each bad field in one line, keep the good ones, move a file that
// does not parse aside before anything is written, and save back every key they do not know.
#include <gtest/gtest.h>
#include <imgui.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "app.h"
#include "settings.h"
#include "tabs.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace tilelab::gui;

constexpr uint32_t kSeed = 0x5e77'1265;
constexpr int kCases = 300;

std::string read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void write_all(const fs::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << bytes;
}

class SettingsFuzz : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("tilelab_fuzz_settings_" + std::to_string(::getpid()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        path_ = (dir_ / "settings.json").string();
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::vector<fs::path> moved_aside() const {
        std::vector<fs::path> out;
        for (const auto& e : fs::directory_iterator(dir_))
            if (e.path().filename().string().rfind("settings.json.bad-", 0) == 0) out.push_back(e.path());
        return out;
    }
    void clear_moved() {
        for (const auto& p : moved_aside()) fs::remove(p);
    }

    fs::path dir_;
    std::string path_;
};

const json kGood = {{"lesson", "02_matmul_smem_tiled"}, {"step", 1}, {"font_scale", 1.25}, {"presenter", false},
                    {"show_lesson", true}, {"tab", "Memory"}, {"model_target", "h100"},
                    {"params", {{"matmul.smem_tiled", {{"TILE", 16}}}}}, {"size", {{"matmul.smem_tiled", "1024"}}}};

json random_value(std::mt19937& rng) {
    switch (rng() % 9) {
    case 0: return nullptr;
    case 1: return bool(rng() & 1);
    case 2: return int64_t(rng()) - (int64_t(1) << 31);
    case 3: return double(int(rng() % 2000) - 1000) / 37.0;
    case 4: return "two";
    case 5: return json::array({1, "x"});
    case 6: return json::object({{"TILE", "x"}});
    case 7: return uint64_t(rng()) << 33;
    default: return std::string(rng() % 300, 'q');
    }
}

// One generated settings text: a good file with fields retyped, a good file's text mutated at
// the byte level, or bytes that are not JSON at all.
std::string generate(std::mt19937& rng, int i, bool& is_object) {
    is_object = false;
    if (i % 3 == 0) {
        json j = kGood;
        for (int k = int(rng() % 4); k >= 0; --k) {
            auto it = std::next(j.begin(), long(rng() % j.size()));
            j[it.key()] = random_value(rng);
        }
        j["unknown_key_" + std::to_string(i)] = {{"kept", true}};
        is_object = true;
        return j.dump();
    }
    std::string text = kGood.dump(2);
    if (i % 3 == 1) {
        for (int k = int(rng() % 3); k >= 0; --k) {
            const size_t at = rng() % text.size();
            switch (rng() % 3) {
            case 0: text[at] = char(rng()); break;
            case 1: text.erase(at, 1 + rng() % 10); break;
            default: text.insert(at, 1, ",]}\"\\x"[rng() % 6]);
            }
        }
        const json parsed = json::parse(text, nullptr, false);
        is_object = !parsed.is_discarded() && parsed.is_object();
        return text;
    }
    std::string bytes(rng() % 200, '\0');
    for (char& c : bytes) c = char(rng());
    return bytes;
}

TEST_F(SettingsFuzz, GeneratedFilesLoadReportAndSaveSafely) {
    std::mt19937 rng(kSeed);
    for (int i = 0; i < kCases; ++i) {
        bool is_object = false;
        const std::string text = generate(rng, i, is_object);
        write_all(path_, text);
        AppState state;
        std::vector<std::string> notices;
        ASSERT_NO_THROW(LoadSettings(path_, state, notices)) << "case " << i;
        for (const auto& n : notices) EXPECT_EQ(n.find('\n'), std::string::npos) << "case " << i << ": " << n;
        EXPECT_GE(state.font_scale, 0.5f);
        EXPECT_LE(state.font_scale, 3.0f);
        EXPECT_NE(FindTab(state.active_tab), nullptr)
            << "case " << i << ": tab " << state.active_tab;
        if (is_object) {
            EXPECT_TRUE(fs::exists(path_)) << "case " << i << ": a file that parses was moved";
        } else {
            // Moved aside whole, with a notice, before anything is written.
            ASSERT_FALSE(fs::exists(path_)) << "case " << i;
            const auto moved = moved_aside();
            ASSERT_EQ(moved.size(), 1u) << "case " << i;
            EXPECT_EQ(read_all(moved.front()), text) << "case " << i;
            EXPECT_FALSE(notices.empty()) << "case " << i;
            clear_moved();
        }
        std::string error;
        ASSERT_TRUE(SaveSettings(path_, state, error)) << "case " << i << ": " << error;
        const json saved = json::parse(read_all(path_), nullptr, false);
        ASSERT_TRUE(saved.is_object()) << "case " << i;
        if (i % 3 == 0) {
            EXPECT_TRUE(saved.contains("unknown_key_" + std::to_string(i))) << "case " << i;
        }
        fs::remove(path_);
    }
}

// ---- issue #12, case by case ---------------------------------------------------------------

TEST_F(SettingsFuzz, AWrongTypedFieldIsReportedAndTheOthersKept) {
    for (const char* field : {"step", "font_scale", "lesson", "tab", "presenter"}) {
        json j = kGood;
        j[field] = "two";
        if (std::string(field) == "lesson" || std::string(field) == "tab") j[field] = 2;
        write_all(path_, j.dump());
        AppState state;
        std::vector<std::string> notices;
        const SavedPlace place = LoadSettings(path_, state, notices);
        ASSERT_EQ(notices.size(), 1u) << field;
        EXPECT_NE(notices[0].find(std::string("\"") + field + "\""), std::string::npos) << notices[0];
        // The other fields are kept.
        const std::string name = field;
        if (name != "font_scale") {
            EXPECT_FLOAT_EQ(state.font_scale, 1.25f) << field;
        }
        if (name != "tab") {
            EXPECT_EQ(state.active_tab, "Memory") << field;
        }
        if (name != "step") {
            EXPECT_EQ(place.step, 1) << field;
        }
        EXPECT_TRUE(fs::exists(path_));
    }
}

TEST_F(SettingsFuzz, UnparseableFilesAreMovedAsideNotOverwritten) {
    for (const std::string& text : {std::string("{\"step\": 1,}"), std::string("{\"step\""), std::string(""),
                                   std::string("[1, 2]"), std::string("\x01\x02\xff", 3)}) {
        write_all(path_, text);
        AppState state;
        std::vector<std::string> notices;
        LoadSettings(path_, state, notices);
        ASSERT_EQ(notices.size(), 1u);
        EXPECT_NE(notices[0].find("moved to"), std::string::npos) << notices[0];
        const auto moved = moved_aside();
        ASSERT_EQ(moved.size(), 1u);
        EXPECT_EQ(read_all(moved.front()), text);
        clear_moved();
    }
}

TEST_F(SettingsFuzz, ADirectoryInPlaceOfTheFileIsReportedAndLeftAlone) {
    fs::create_directories(path_);
    AppState state;
    std::vector<std::string> notices;
    ASSERT_NO_THROW(LoadSettings(path_, state, notices));
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_NE(notices[0].find("directory"), std::string::npos) << notices[0];
    std::string error;
    EXPECT_FALSE(SaveSettings(path_, state, error));
    EXPECT_NE(error.find(path_), std::string::npos) << error;
    EXPECT_TRUE(fs::is_directory(path_));
}

TEST_F(SettingsFuzz, AFileWhereTheConfigFolderShouldBeIsNamed) {
    const std::string saved = std::getenv("XDG_CONFIG_HOME") ? std::getenv("XDG_CONFIG_HOME") : "";
    write_all(dir_ / "tilelab", "not a folder");
    setenv("XDG_CONFIG_HOME", dir_.c_str(), 1);
    std::string why;
    EXPECT_EQ(ConfigDir(why), "");
    EXPECT_EQ(why.find("neither XDG_CONFIG_HOME nor HOME"), std::string::npos) << why;
    EXPECT_NE(why.find((dir_ / "tilelab").string()), std::string::npos) << why;
    if (saved.empty()) unsetenv("XDG_CONFIG_HOME");
    else setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
}

// `--lesson 77` is refused; the run must leave the saved settings exactly as they were.
TEST_F(SettingsFuzz, ARunWhoseOptionsAreRefusedWritesNothing) {
    const std::string saved = std::getenv("XDG_CONFIG_HOME") ? std::getenv("XDG_CONFIG_HOME") : "";
    setenv("XDG_CONFIG_HOME", dir_.c_str(), 1);
    fs::create_directories(dir_ / "tilelab");
    const fs::path settings = dir_ / "tilelab" / "settings.json";
    const std::string before = kGood.dump(2) + "\n";
    write_all(settings, before);
    ImGui::CreateContext();
    {
        tilelab::EngineConfig config;
        config.force_model_mode = true;
        EngineThread engine_thread(config);
        AppOptions options;
        options.lesson = "77";
        App app(options, engine_thread);
        EXPECT_NE(app.Init(), "");
    }
    ImGui::DestroyContext();
    EXPECT_EQ(read_all(settings), before);
    EXPECT_FALSE(fs::exists(dir_ / "tilelab" / "imgui.ini"));
    if (saved.empty()) unsetenv("XDG_CONFIG_HOME");
    else setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
}

}  // namespace
