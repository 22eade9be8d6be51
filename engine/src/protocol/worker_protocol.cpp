// Framing and (de)serialization for the engine <-> GPU worker messages (worker_protocol.h).
#include "protocol/worker_protocol.h"
#include "tilelab/i18n.h"
#include <algorithm>
#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

namespace tilelab::worker {
namespace {

// Sockets get MSG_NOSIGNAL (a dead peer is an error, not a SIGPIPE); anything else a plain write.
ssize_t write_some(int fd, const uint8_t* data, size_t n) {
    struct stat st {};
    if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode)) return ::send(fd, data, n, MSG_NOSIGNAL);
    return ::write(fd, data, n);
}

bool write_all(int fd, const uint8_t* data, size_t n, std::string& error) {
    while (n > 0) {
        const ssize_t written = write_some(fd, data, n);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) {
            error = std::string("writing to the GPU worker channel failed: ") + std::strerror(errno);
            return false;
        }
        data += written;
        n -= size_t(written);
    }
    return true;
}

// Reads exactly n bytes. Returns the bytes read before end of file (n on success), or -1 with
// errno (ETIMEDOUT when `silence_ms` > 0 passed without a byte).
ssize_t read_all(int fd, uint8_t* data, size_t n, int silence_ms) {
    size_t done = 0;
    while (done < n) {
        if (silence_ms > 0) {
            pollfd p{fd, POLLIN, 0};
            const int ready = ::poll(&p, 1, silence_ms);
            if (ready < 0 && errno == EINTR) continue;
            if (ready < 0) return -1;
            if (ready == 0) {
                errno = ETIMEDOUT;
                return -1;
            }
        }
        const ssize_t got = ::read(fd, data + done, n - done);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return -1;
        if (got == 0) break;
        done += size_t(got);
    }
    return ssize_t(done);
}

std::string silence_message(const std::string& channel, int silence_ms) {
    return fmt::format("{} went silent for {:g} s in the middle of a message", channel, silence_ms / 1000.0);
}

// ---- request validation: small checks that each return "" or what is wrong ----------------

std::string need_uint(const json& j, const char* key, uint64_t max) {
    if (!j.contains(key)) return std::string("\"") + key + "\" is missing";
    const json& v = j.at(key);
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
        return std::string("\"") + key + "\" is not a non-negative integer";
    if (v.get<uint64_t>() > max) return std::string("\"") + key + "\" is out of range";
    return "";
}

std::string need_int(const json& j, const char* key, int64_t min, int64_t max) {
    if (!j.contains(key)) return std::string("\"") + key + "\" is missing";
    const json& v = j.at(key);
    if (!v.is_number_integer()) return std::string("\"") + key + "\" is not an integer";
    const bool in_range = v.is_number_unsigned() ? v.get<uint64_t>() <= uint64_t(max)
                                                 : v.get<int64_t>() >= min && v.get<int64_t>() <= max;
    return in_range ? "" : std::string("\"") + key + "\" is out of range";
}

std::string need_type(const json& j, const char* key, bool (json::*is)() const noexcept, const char* what) {
    if (!j.contains(key)) return std::string("\"") + key + "\" is missing";
    return (j.at(key).*is)() ? "" : std::string("\"") + key + "\" is not " + what;
}

// A list of `n` non-negative integers of at most `max` each under `key`.
std::string need_uint_list(const json& j, const char* key, size_t n, uint64_t max) {
    if (!j.contains(key)) return std::string("\"") + key + "\" is missing";
    const json& v = j.at(key);
    if (!v.is_array() || v.size() != n) return fmt::format("\"{}\" is not a list of {} numbers", key, n);
    for (const json& e : v)
        if (!e.is_number_unsigned() && !(e.is_number_integer() && e.get<int64_t>() >= 0))
            return std::string("\"") + key + "\" holds a value that is not a non-negative integer";
        else if (e.get<uint64_t>() > max)
            return std::string("\"") + key + "\" holds a value out of range";
    return "";
}

std::string need_uint_triple(const json& j, const char* key, uint64_t max) { return need_uint_list(j, key, 3, max); }

std::string first_problem(std::initializer_list<std::string> checks) {
    for (const auto& c : checks)
        if (!c.empty()) return c;
    return "";
}

std::string cubin_problem(const json& j, const char* key) {
    if (!j.contains(key)) return std::string("\"") + key + "\" is missing";
    const json& c = j.at(key);
    if (!c.is_object()) return std::string("\"") + key + "\" is not an object";
    if (const std::string p = first_problem({need_type(c, "cubin", &json::is_binary, "bytes"),
                                             need_type(c, "lowered_name", &json::is_string, "a string")});
        !p.empty())
        return std::string(key) + ": " + p;
    if (c.at("cubin").get_binary().empty()) return std::string(key) + ": the cubin is empty";
    return "";
}

// A job's element types: an object of three known names ("fp32", "tf32", "bf16", "fp16"), and
// "intermediate" where the kernel rounds values between its products (absent: fp32).
std::string precision_problem(const json& p) {
    if (!p.is_object()) return "\"precision\" is not an object";
    auto element_problem = [&](const char* key) -> std::string {
        if (!p.contains(key) || !p.at(key).is_string()) return fmt::format("precision: \"{}\" is missing or not a string", key);
        if (!parse_element(p.at(key).get<std::string>())) return fmt::format("precision: \"{}\" is not an element type TileLab knows", key);
        return "";
    };
    for (const char* key : {"input", "accumulate", "output"})
        if (std::string why = element_problem(key); !why.empty()) return why;
    return p.contains("intermediate") ? element_problem("intermediate") : "";
}

// A job's family options (tilelab/params.h): an object of at most 16 names, each an int. Which
// names the family takes is its shape's to say, before the job is built.
std::string family_options_problem(const json& o) {
    if (!o.is_object()) return "\"family_options\" is not an object";
    if (o.size() > 16) return "\"family_options\" holds more than 16 names";
    for (const auto& [name, value] : o.items())
        if (std::string why = need_int(o, name.c_str(), INT32_MIN, INT32_MAX); !why.empty()) return "family_options: " + why;
    return "";
}

// A launch's TMA tensor maps (tilelab/variant.h's TensorMapSpec): the shape of each field; the
// values themselves are the driver's to accept when the worker encodes them.
std::string tensor_maps_problem(const json& maps) {
    if (!maps.is_array()) return "\"tensor_maps\" is not a list";
    if (maps.size() > size_t(kMaxTensorMaps)) return fmt::format("\"tensor_maps\" holds more than {}", kMaxTensorMaps);
    for (size_t i = 0; i < maps.size(); ++i) {
        const json& m = maps[i];
        const std::string p = !m.is_object() ? "not an object"
                                             : first_problem({need_int(m, "arg", 0, 15), need_int(m, "element_bytes", 1, 8),
                                                              need_int(m, "rank", 1, 5), need_uint_list(m, "dims", 5, UINT64_MAX),
                                                              need_uint_list(m, "strides", 4, UINT64_MAX),
                                                              need_uint_list(m, "box", 5, 256), need_int(m, "swizzle", 0, 128)});
        if (!p.empty()) return fmt::format("tensor_maps[{}]: {}", i, p);
    }
    return "";
}

// A cluster of 1 to 8 blocks (the portable limit), of which grid.x holds a whole number.
std::string cluster_problem(const json& launch) {
    if (std::string why = need_int(launch, "cluster", 1, 8); !why.empty()) return why;
    if (!launch.contains("grid")) return "";   // need_uint_triple says so
    const json& grid = launch.at("grid");
    if (grid.is_array() && !grid.empty() && grid[0].is_number_unsigned() && grid[0].get<uint64_t>() % launch.at("cluster").get<uint64_t>() != 0)
        return "grid[0] is not a multiple of \"cluster\"";
    return "";
}

// A launch's grid, block, dynamic shared memory, cluster and tensor maps, each field checked.
std::string launch_problem(const json& job) {
    if (!job.contains("launch") || !job.at("launch").is_object()) return "\"launch\" is missing or not an object";
    const json& l = job.at("launch");
    const std::string p = first_problem({need_uint_triple(l, "grid", UINT32_MAX), need_uint_triple(l, "block", UINT32_MAX),
                                         need_uint(l, "dynamic_smem", UINT32_MAX),
                                         l.contains("cluster") ? cluster_problem(l) : "",
                                         l.contains("resident_per_sm") ? need_int(l, "resident_per_sm", 0, 64) : "",
                                         l.contains("tensor_maps") ? tensor_maps_problem(l.at("tensor_maps")) : ""});
    return p.empty() ? "" : "launch: " + p;
}

// A job's passes: an array of at most kMaxJobPasses objects, each a kernel, a launch and perhaps
// its counting build.
std::string passes_problem(const json& passes) {
    if (!passes.is_array()) return "\"passes\" is not an array";
    if (passes.size() > kMaxJobPasses) return fmt::format("\"passes\" holds more than {} kernels", kMaxJobPasses);
    for (size_t i = 0; i < passes.size(); ++i) {
        const json& pass = passes[i];
        std::string p = pass.is_object() ? first_problem({cubin_problem(pass, "kernel"), launch_problem(pass)}) : "not an object";
        if (p.empty() && pass.contains("counting")) p = cubin_problem(pass, "counting");
        if (p.empty() && pass.contains("repeat")) {
            const json& n = pass.at("repeat");
            if (!n.is_number_integer() || n.get<int64_t>() < 1 || n.get<int64_t>() > kMaxPassRepeats)
                p = fmt::format("\"repeat\" is not a whole number from 1 to {}", kMaxPassRepeats);
        }
        if (!p.empty()) return fmt::format("passes[{}]: {}", i, p);
    }
    return "";
}

std::string job_problem(const json& request) {
    if (!request.contains("job") || !request.at("job").is_object()) return "\"job\" is missing or not an object";
    const json& job = request.at("job");
    constexpr uint64_t kMaxDim = uint64_t(1) << 31;
    std::string p = first_problem({need_type(job, "family", &json::is_string, "a string"),
                                   need_uint_triple(job, "problem", kMaxDim),
                                   cubin_problem(job, "kernel")});
    if (p.empty() && job.contains("counting")) p = cubin_problem(job, "counting");
    if (p.empty() && job.contains("precision")) p = precision_problem(job.at("precision"));
    if (p.empty() && job.contains("family_options")) p = family_options_problem(job.at("family_options"));
    if (p.empty() && job.contains("passes")) p = passes_problem(job.at("passes"));
    if (p.empty()) p = launch_problem(job);
    return p.empty() ? "" : "job: " + p;
}

std::string options_problem(const json& request) {
    if (!request.contains("options") || !request.at("options").is_object()) return "\"options\" is missing or not an object";
    const json& o = request.at("options");
    const std::string p = first_problem({need_int(o, "warmup", 0, 1000000), need_int(o, "repetitions", 1, 1000000),
                                         need_type(o, "flush_l2", &json::is_boolean, "true or false"),
                                         need_type(o, "count_accesses", &json::is_boolean, "true or false"),
                                         need_type(o, "time_reference", &json::is_boolean, "true or false"),
                                         need_type(o, "quick", &json::is_boolean, "true or false"),
                                         need_type(o, "hardware_counters", &json::is_boolean, "true or false"),
                                         need_type(o, "stall_samples", &json::is_boolean, "true or false"),
                                         need_uint(o, "seed", UINT64_MAX)});
    return p.empty() ? "" : "options: " + p;
}

// A compile request (compile_request_to_json): every field CompileRequest has, of its type.
std::string compile_problem(const json& request) {
    std::string p = need_type(request, "sources", &json::is_string, "a string");
    if (!p.empty()) return p;
    if (!request.contains("compile") || !request.at("compile").is_object()) return "\"compile\" is missing or not an object";
    const json& c = request.at("compile");
    p = first_problem({need_type(c, "source_file", &json::is_string, "a string"),
                       need_type(c, "name_expression", &json::is_string, "a string"),
                       need_int(c, "arch", 0, 10000), need_int(c, "max_registers", 0, 255),
                       need_type(c, "defines", &json::is_array, "a list"),
                       need_type(c, "source_text", &json::is_string, "a string"),
                       need_type(c, "source_name", &json::is_string, "a string")});
    if (p.empty() && !std::all_of(c.at("defines").begin(), c.at("defines").end(), [](const json& d) { return d.is_string(); }))
        p = "\"defines\" must be strings";
    return p.empty() ? "" : "compile: " + p;
}

}  // namespace

uint32_t request_id_or_zero(const json& request) {
    if (!request.is_object() || !need_uint(request, "id", UINT32_MAX).empty()) return 0;
    return request.at("id").get<uint32_t>();
}

std::string request_problem(const json& request) {
    if (!request.is_object()) return "the request is not an object";
    if (std::string p = need_uint(request, "id", UINT32_MAX); !p.empty()) return p;
    if (request.contains("cancelled") && !request.at("cancelled").is_boolean()) return "\"cancelled\" is not true or false";
    if (request.contains("lang")) {   // optional: the language of the reply's messages
        Language lang;
        if (!request.at("lang").is_string() || !parse_language(request.at("lang").get_ref<const std::string&>(), lang))
            return "\"lang\" is not \"en\" or \"zh\"";
    }
    if (!request.contains("op") || !request.at("op").is_string()) return "\"op\" is missing or not a string";
    const std::string& op = request.at("op").get_ref<const std::string&>();
    if (op == "run") return first_problem({job_problem(request), options_problem(request)});
    if (op == "ceilings" || op == "memory") return "";
    if (op == "compile") return compile_problem(request);
    if (op == "blocks_per_sm")
        return first_problem({cubin_problem(request, "kernel"), need_uint_triple(request, "block", 1024),
                              need_uint(request, "dynamic_smem", UINT32_MAX)});
    if (op == "occupy") return need_uint(request, "leave_free_bytes", UINT64_MAX);
    if (op == "release") return need_int(request, "handle", INT32_MIN, INT32_MAX);
    if (op == "support_sample") {   // a test hook: small sizes only, the results travel back whole
        std::string p = first_problem({need_uint_triple(request, "mnk", 1024), need_uint_triple(request, "grid", 256),
                                       need_uint(request, "seed", UINT64_MAX)});
        const json* c = request.contains("coefficients") ? &request.at("coefficients") : nullptr;
        if (p.empty() && (!c || !c->is_array() || c->size() != 7 ||
                          !std::all_of(c->begin(), c->end(), [](const json& x) { return x.is_number(); })))
            p = "\"coefficients\" must be 7 numbers";
        return p;
    }
    return "the operation \"" + (op.size() > 40 ? op.substr(0, 40) + "…" : op) + "\" is not known";
}

bool write_bytes(int fd, const void* data, size_t n, std::string& error) {
    return write_all(fd, static_cast<const uint8_t*>(data), n, error);
}

bool write_frame(int fd, const json& message, std::string& error) {
    const std::vector<uint8_t> body = json::to_cbor(message);
    if (body.size() > kMaxFrameBytes) {
        error = "a GPU worker message of " + std::to_string(body.size()) + " bytes is too large";
        return false;
    }
    const uint32_t n = uint32_t(body.size());
    const uint8_t header[4] = {uint8_t(n), uint8_t(n >> 8), uint8_t(n >> 16), uint8_t(n >> 24)};
    return write_all(fd, header, sizeof header, error) && write_all(fd, body.data(), body.size(), error);
}

bool parse_frame_body(const std::vector<uint8_t>& body, json& message, std::string& error, Peer from) {
    const char* sender = from == Peer::worker ? "the GPU worker" : "the client";
    const CborLimits& limits = from == Peer::worker ? kReplyLimits : kRequestLimits;
    if (const std::string p = cbor_shape_problem(body.data(), body.size(), limits); !p.empty()) {
        error = std::string(sender) + " sent a message that cannot be read: " + p;
        return false;
    }
    try {   // without exceptions a parse error is a discarded value; an absurd size still throws
        message = json::from_cbor(body, /*strict=*/true, /*allow_exceptions=*/false);
    } catch (const json::exception&) {
        message = json(json::value_t::discarded);
    }
    if (message.is_discarded()) {
        error = std::string(sender) + " sent a message that is not valid CBOR";
        return false;
    }
    return true;
}

ReadStatus read_frame(int fd, json& message, std::string& error, const FrameReading& how) {
    const std::string channel = how.from == Peer::worker ? "the GPU worker channel" : "the channel from the client";
    uint8_t header[4];
    ssize_t got = read_all(fd, header, 1, 0);   // waiting for a frame to begin is not silence
    if (got == 0) return ReadStatus::closed;
    if (got == 1) {
        const ssize_t rest = read_all(fd, header + 1, sizeof header - 1, how.silence_ms);
        got = rest < 0 ? -1 : 1 + rest;
    }
    if (got != ssize_t(sizeof header)) {
        const int why = errno;
        error = got < 0 && why == ETIMEDOUT ? silence_message(channel, how.silence_ms)
                : got < 0                   ? fmt::format("reading from {} failed: {}", channel, std::strerror(why))
                                            : fmt::format("{} closed in the middle of a message", channel);
        return ReadStatus::error;
    }
    const uint32_t n = uint32_t(header[0]) | uint32_t(header[1]) << 8 | uint32_t(header[2]) << 16 | uint32_t(header[3]) << 24;
    if (n > how.max_bytes) {
        error = fmt::format("a frame length of {} bytes arrived on {} (at most {} are allowed), so it is not a message", n,
                            channel, how.max_bytes);
        return ReadStatus::error;
    }
    // The body grows as it arrives: a length alone allocates at most one chunk.
    constexpr size_t kChunk = size_t(1) << 20;
    std::vector<uint8_t> body;
    while (body.size() < n) {
        const size_t have = body.size();
        body.resize(std::min<size_t>(n, have + kChunk));
        const ssize_t r = read_all(fd, body.data() + have, body.size() - have, how.silence_ms);
        if (r != ssize_t(body.size() - have)) {
            const int why = errno;
            error = r < 0 && why == ETIMEDOUT ? silence_message(channel, how.silence_ms)
                                                : fmt::format("{} closed in the middle of a message", channel);
            return ReadStatus::error;
        }
    }
    return parse_frame_body(body, message, error, how.from) ? ReadStatus::message : ReadStatus::error;
}

json job_to_json(const MeasureJob& job) {
    json j = {{"family", job.family},
              {"precision", {{"input", element_name(job.precision.input)},
                             {"accumulate", element_name(job.precision.accumulate)},
                             {"output", element_name(job.precision.output)},
                             {"intermediate", element_name(job.precision.intermediate)}}},
              {"problem", job.problem.dim},
              {"launch", job.launch},
              {"kernel", cubin_to_json(*job.kernel)}};
    if (job.counting) j["counting"] = cubin_to_json(*job.counting);
    if (!job.options.empty()) j["family_options"] = job.options;
    if (!job.passes.empty()) {
        json passes = json::array();
        for (const JobPass& pass : job.passes) {
            json one = {{"kernel", cubin_to_json(*pass.kernel)}, {"launch", pass.launch}};
            if (pass.counting) one["counting"] = cubin_to_json(*pass.counting);
            if (pass.repeat != 1) one["repeat"] = pass.repeat;
            passes.push_back(std::move(one));
        }
        j["passes"] = std::move(passes);
    }
    return j;
}

MeasureJob job_from_json(const json& j) {
    MeasureJob job;
    job.family = j.at("family").get<std::string>();
    if (j.contains("precision")) {   // checked by precision_problem when the request arrived
        const json& p = j.at("precision");
        job.precision = {*parse_element(p.at("input").get<std::string>()), *parse_element(p.at("accumulate").get<std::string>()),
                         *parse_element(p.at("output").get<std::string>())};
        if (p.contains("intermediate")) job.precision.intermediate = *parse_element(p.at("intermediate").get<std::string>());
    }
    job.problem.dim = j.at("problem").get<std::array<int64_t, 3>>();
    job.launch = j.at("launch").get<LaunchShape>();
    job.kernel = cubin_from_json(j.at("kernel"));
    if (j.contains("counting")) job.counting = cubin_from_json(j.at("counting"));
    if (j.contains("family_options")) job.options = j.at("family_options").get<FamilyOptions>();
    if (j.contains("passes"))
        for (const json& pass : j.at("passes"))
            job.passes.push_back({cubin_from_json(pass.at("kernel")),
                                  pass.contains("counting") ? cubin_from_json(pass.at("counting")) : nullptr,
                                  pass.at("launch").get<LaunchShape>(), pass.value("repeat", 1)});
    return job;
}

json compile_request_to_json(const CompileRequest& req) {
    return {{"source_file", req.source_file}, {"name_expression", req.name_expression}, {"arch", req.arch},
            {"max_registers", req.max_registers}, {"defines", req.defines}, {"source_text", req.source_text},
            {"source_name", req.source_name}, {"ptx", req.ptx}, {"arch_specific", req.arch_specific}};
}

CompileRequest compile_request_from_json(const json& j) {
    CompileRequest req;
    req.source_file = j.at("source_file").get<std::string>();
    req.name_expression = j.at("name_expression").get<std::string>();
    req.arch = j.at("arch").get<int>();
    req.max_registers = j.at("max_registers").get<int>();
    req.defines = j.at("defines").get<std::vector<std::string>>();
    req.source_text = j.at("source_text").get<std::string>();
    req.source_name = j.at("source_name").get<std::string>();
    req.ptx = j.contains("ptx") && j.at("ptx").is_boolean() && j.at("ptx").get<bool>();
    req.arch_specific = j.contains("arch_specific") && j.at("arch_specific").is_boolean() && j.at("arch_specific").get<bool>();
    return req;
}

json compile_result_to_json(const CompileResult& r) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(r.cubin.data());
    return {{"ok", r.ok}, {"error", r.error}, {"log", r.log}, {"lowered_name", r.lowered_name},
            {"cubin", json::binary(std::vector<uint8_t>(bytes, bytes + r.cubin.size()))}, {"options", r.options},
            {"ptxas", {{"registers", r.ptxas.registers}, {"spill_stores", r.ptxas.spill_stores},
                       {"spill_loads", r.ptxas.spill_loads}, {"stack_bytes", r.ptxas.stack_bytes},
                       {"smem_bytes", r.ptxas.smem_bytes}, {"cmem_bytes", r.ptxas.cmem_bytes},
                       {"parsed", r.ptxas.parsed}}}};
}

std::shared_ptr<CompileResult> compile_result_from_json(const json& j) {
    auto r = std::make_shared<CompileResult>();
    r->ok = j.at("ok").get<bool>();
    r->error = j.at("error").get<std::string>();
    r->log = j.at("log").get<std::string>();
    r->lowered_name = j.at("lowered_name").get<std::string>();
    const auto& bytes = j.at("cubin").get_binary();
    r->cubin.assign(bytes.begin(), bytes.end());
    r->options = j.at("options").get<std::string>();
    const json& p = j.at("ptxas");
    r->ptxas.registers = p.at("registers").get<int>();
    r->ptxas.spill_stores = p.at("spill_stores").get<int>();
    r->ptxas.spill_loads = p.at("spill_loads").get<int>();
    r->ptxas.stack_bytes = p.at("stack_bytes").get<int>();
    r->ptxas.smem_bytes = p.at("smem_bytes").get<int>();
    r->ptxas.cmem_bytes = p.at("cmem_bytes").get<int>();
    r->ptxas.parsed = p.at("parsed").get<bool>();
    return r;
}

json cubin_to_json(const CompileResult& c) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(c.cubin.data());
    return {{"cubin", json::binary(std::vector<uint8_t>(bytes, bytes + c.cubin.size()))},
            {"lowered_name", c.lowered_name}};
}

std::shared_ptr<const CompileResult> cubin_from_json(const json& j) {
    auto c = std::make_shared<CompileResult>();
    const auto& bytes = j.at("cubin").get_binary();
    c->cubin.assign(bytes.begin(), bytes.end());
    c->lowered_name = j.at("lowered_name").get<std::string>();
    c->ok = true;
    return c;
}

}  // namespace tilelab::worker

