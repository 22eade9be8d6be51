// --sweep X[,Y][,curves]: the Compare panel's sweep started as if the user had chosen its
// parameters (every value of each) and pressed Run — for the headless app and its screenshots.
#include <sstream>
#include "actions.h"
#include "engine_thread.h"
#include "panels.h"
#include "tilelab/i18n.h"

namespace tilelab::gui {

bool StartSweepFromText(AppState& state, const std::string& text, std::string& error) {
    const Variant* v = CurrentVariant(state);
    if (!v || !state.engine_thread || !state.engine_thread->ready()) {
        error = say("the engine is not ready", "引擎尚未就绪");
        return false;
    }
    std::vector<std::string> words;
    std::istringstream in(text);
    for (std::string w; std::getline(in, w, ',');) words.push_back(w);
    const bool curves = !words.empty() && words.back() == "curves";
    if (curves) words.pop_back();
    if (words.empty() || words.size() > 2) {
        error = say("expected X, X,Y or X,Y,curves", "应为 X、X,Y 或 X,Y,curves");
        return false;
    }
    std::vector<int> values[2];
    for (size_t i = 0; i < words.size(); ++i) {
        const ParamSpec* spec = v->param(words[i]);
        if (!spec) {
            error = say("{} is not a parameter of {}", "{} 不是 {} 的参数", words[i], v->id);
            return false;
        }
        values[i] = spec->values();
    }
    state.sweep.param_x = words[0];
    state.sweep.param_y = words.size() > 1 ? words[1] : "";
    state.sweep_curves = curves;
    state.select_tab = "Compare";
    StartSweep(state, values[0], values[1]);
    return true;
}

}  // namespace tilelab::gui
