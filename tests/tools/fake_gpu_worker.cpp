// Stands in for `tilelab-gpu-worker --stdio` in the GPU-pool tests (test_gpu_pool.cpp), on machines
// without a GPU: the real greeting and framing (worker_stream.h), a host with --count GPUs of which
// it plays --gpu-device N, and run requests answered after --ms milliseconds with a time that
// depends only on the job and the device, never measured. Every answered run is appended to --log
// as "DEVICE PROBLEM LAUNCH", so a test can tell which GPU measured what, and how often.
// With --stalls FILE (a JSON object whose "stalls" is a StallSamples, e.g. measured on a GPU), a
// run that asks for stall samples gets those, so the app's stall view can be drawn without a GPU.
// With --clusters JSON the memory reply carries that as its "resident_clusters" (any JSON, to
// test how the client reads a broken one). With --hardware FILE (a JSON object whose "hardware" is
// a HardwareCounters, e.g. a run's JSON measured on a GPU), a run that asks for hardware counters
// gets those, so the CLI's and the app's counter views can be checked without a GPU. With
// --lose-context-in counters (or stalls), a run that asks for that stage keeps its time but
// reports the stage failed with the GPU's context lost, says context_lost and exits, as the real
// worker does (runner_gpu.cpp, profile_stages).
//   fake_gpu_worker --stdio [--gpu-device N] --count K [--models "A,B"] [--ms 30]
//                   [--log FILE] [--die-on N --die-after M]   (device N exits on its run M+1,
//                   [--die-code C]                            with status C, default 9)
//                   [--stalls FILE] [--clusters JSON] [--hardware FILE] [--lose-context-in STAGE]
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>
#include "gpu_worker/worker_stream.h"
#include "tilelab/result_json.h"
#include "tilelab/target.h"

namespace {

using tilelab::worker::json;

std::atomic<uint32_t> cancelled{0};
void note_cancel(uint32_t id) { cancelled = id; }

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        out.push_back(text.substr(start, comma - start));
        start = comma + 1;
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    int device = 0, count = 1, ms = 30, die_on = -1, die_after = 0, die_code = 9;
    std::string models = "Fake GPU", log, stalls_file, clusters, hardware_file, lose_in;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const char* next = i + 1 < argc ? argv[i + 1] : "";
        if (a == "--stdio") continue;
        if (a == "--gpu-device") device = std::atoi(next);
        else if (a == "--count") count = std::atoi(next);
        else if (a == "--models") models = next;
        else if (a == "--ms") ms = std::atoi(next);
        else if (a == "--log") log = next;
        else if (a == "--die-on") die_on = std::atoi(next);
        else if (a == "--die-after") die_after = std::atoi(next);
        else if (a == "--die-code") die_code = std::atoi(next);
        else if (a == "--stalls") stalls_file = next;
        else if (a == "--clusters") clusters = next;
        else if (a == "--hardware") hardware_file = next;
        else if (a == "--lose-context-in") lose_in = next;
        else {
            std::fprintf(stderr, "fake_gpu_worker: unknown argument '%s'\n", argv[i]);
            return 2;
        }
        ++i;
    }
    const std::vector<std::string> names = split(models);
    const std::string name = names[size_t(device) % names.size()];
    const bool usable = device >= 0 && device < count;

    tilelab::worker::Outbox out(1);
    json target = json::parse(nlohmann::ordered_json(*tilelab::find_target("h100")).dump());
    json hello = {{"hello", "tilelab-gpu-worker"}, {"protocol", tilelab::worker::kProtocolVersion}, {"host", "fakehost"},
                  {"device", {{"gpu", usable}, {"reason", usable ? "" : "there is no GPU " + std::to_string(device) + " here"},
                              {"name", name}, {"total_bytes", 1u << 30}, {"index", device}, {"count", count}}},
                  {"target", target}, {"hold_limit_s", 10}};
    std::string error;
    if (!out.send_greeting(hello, error)) return 1;
    tilelab::worker::Inbox inbox(0, tilelab::worker::kMaxStdioRequestBytes, note_cancel);
    int runs = 0;
    for (;;) {
        json request;
        if (!inbox.next(request, error)) return error.empty() ? 0 : 1;
        const uint32_t id = request.value("id", 0u);
        const std::string op = request.value("op", std::string());
        json reply;
        if (op == "memory") {
            reply = {{"free_bytes", 1u << 29}, {"total_bytes", 1u << 30}};
            if (!clusters.empty()) reply["resident_clusters"] = json::parse(clusters);
        } else if (op == "run") {
            if (device == die_on && runs == die_after) _exit(die_code);   // dies with the request in hand
            ++runs;
            const json& job = request.at("job");
            tilelab::Measurement m;
            m.stage = "run";
            bool stopped = request.value("cancelled", false);
            for (int waited = 0; waited < ms && !stopped; waited += 5) {
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
                stopped = cancelled == id;
            }
            if (stopped) {
                m.error = "cancelled";
            } else {
                // A time from the job alone: the problem's first extent, slower on higher devices.
                const double extent = job.at("problem").at(0).get<double>();
                m.ok = true;
                m.timing.median_ms = m.timing.min_ms = m.timing.max_ms = extent / 1000.0 * (1 + device);
                m.validation.checked = m.validation.passed = true;
                if (!stalls_file.empty() && request.at("options").value("stall_samples", false))
                    m.stalls = json::parse(std::ifstream(stalls_file)).at("stalls").get<tilelab::StallSamples>();
                if (!hardware_file.empty() && request.at("options").value("hardware_counters", false))
                    m.hardware = json::parse(std::ifstream(hardware_file)).at("hardware").get<tilelab::HardwareCounters>();
                if (!log.empty())
                    std::ofstream(log, std::ios::app) << device << ' ' << job.at("problem").dump() << ' ' << job.at("launch").dump() << '\n';
            }
            const json& options = request.at("options");
            const bool lose = m.ok && ((lose_in == "counters" && options.value("hardware_counters", false)) ||
                                       (lose_in == "stalls" && options.value("stall_samples", false)));
            if (lose) {
                const std::string why = "(the GPU's context was lost: simulated by the fake worker)";
                if (lose_in == "counters") m.hardware.status = "error", m.hardware.reason = "The hardware-counter pass failed. " + why;
                else m.stalls.status = "error", m.stalls.reason = "Stall sampling failed; the run itself is unaffected. " + why;
                reply["context_lost"] = true;
            }
            reply["result"] = m;
        } else {
            reply["failure"] = "the fake GPU worker does not know the request \"" + op + "\"";
        }
        reply["id"] = id;
        if (!out.send(reply, error)) return 1;
        if (reply.value("context_lost", false)) return 0;   // a lost context ends the process
    }
}
