// What the engine and its GPU worker process (tilelab-gpu-worker) say to each other. Every
// message is one frame: a 4-byte little-endian length, then that many bytes of CBOR (binary
// JSON, so that cubins travel as bytes). Requests carry "op" and "id"; each gets one reply.
// The worker runs every kernel, so that a fault loses only the worker's CUDA context: on this
// driver a context lost to a fault cannot be recreated in the same process, even after
// cudaDeviceReset(). No CUDA types here: the framing is tested without a GPU.
#pragma once
#include <nlohmann/json.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include "tilelab/device.h"
#include "tilelab/result.h"
#include "tilelab/result_json.h"

namespace tilelab::worker {

using nlohmann::json;

// A frame longer than this is refused rather than allocated (a corrupt length, not a message).
constexpr uint32_t kMaxFrameBytes = 256u << 20;
// What a worker on the far end of a byte stream (--stdio) accepts from its peer: a request with
// two cubins is well under 1 MB, so anything near this is not a request.
constexpr uint32_t kMaxStdioRequestBytes = 16u << 20;

// ---- the worker over one byte stream (tilelab-gpu-worker --stdio) ---------------------------
// The worker speaks first: these 8 bytes, then one frame, the greeting {"hello":
// "tilelab-gpu-worker", "protocol": N, "host": ..., "device": DeviceStatus fields plus "index"
// (the CUDA device it uses, --gpu-device) and "count" (how many its host has), "target": Target}.
// Older workers send no index or count: read them as device 0 of 1. The magic tells "not our program" (a login script printing to stdout, a launcher's
// message) from a greeting. Then requests and replies as over the socket pair; a cancel note is a
// frame {"cancel": id}; while a request is in hand the worker sends {"note": ..., "id": id} frames
// (waiting for the GPU, still running) at least once a second, so that silence means a dead link.
constexpr char kGreetingMagic[8] = {'T', 'I', 'L', 'E', 'L', 'A', 'B', '1'};
// Raised whenever a message changes meaning; both ends must agree exactly.
// 3: the "compile" request (a client-only build compiles in the worker); the greeting's "nvrtc".
constexpr int kProtocolVersion = 3;
// How often a worker with a request in hand says so (the client's silence limit is far above).
constexpr int kNoteIntervalMs = 1000;
// The worker's exit status when a run held the GPU past its hold limit and did not stop when asked
// (a kernel that never returns: an endless loop, a wait on a barrier nothing completes); the client
// says so instead of "stopped unexpectedly".
constexpr int kHungKernelExitStatus = 3;

// Writes one frame, retrying short writes. On a socket the write never raises SIGPIPE; a closed
// peer is an error. Returns false and sets `error` on failure.
bool write_frame(int fd, const json& message, std::string& error);
// Writes raw bytes (the stdio greeting's magic), retrying short writes, as write_frame.
bool write_bytes(int fd, const void* data, size_t n, std::string& error);

// How deep and how big a message may be, checked on the bytes before anything parses them
// (cbor_shape_problem): TileLab's messages are at most 6 levels deep; a reply's largest lists are
// the test hook support_sample's (a few million numbers), a request's the defines.
struct CborLimits {
    size_t max_depth = 64;
    size_t max_values = size_t(1) << 23;
};
constexpr CborLimits kReplyLimits{64, size_t(1) << 23};
constexpr CborLimits kRequestLimits{64, size_t(1) << 20};
// "" when `data` is one whole CBOR value within `limits` (no deeper nesting, no more values, no
// length that claims more bytes than are left, no tags, nothing after it), else what is wrong
// ("it is nested deeper than 64 levels"). Never recurses: any input is safe.
std::string cbor_shape_problem(const uint8_t* data, size_t n, const CborLimits& limits);

enum class ReadStatus { message, closed, error };
// Who sent the frames being read, for the messages: the worker reads the client's requests, the
// client the worker's replies.
enum class Peer { worker, client };
struct FrameReading {
    uint32_t max_bytes = kMaxFrameBytes;   // a longer frame is an error (its body is not read)
    int silence_ms = 0;                    // > 0: an error once a frame has begun and no byte came for this long
    Peer from = Peer::worker;
};
// Reads one whole frame, blocking. `closed` when the peer closed before a frame began. The body
// grows as its bytes arrive (a header that claims 256 MiB allocates nothing until they come);
// its shape is checked (cbor_shape_problem: the limits of `how.from`) before it is parsed.
ReadStatus read_frame(int fd, json& message, std::string& error, const FrameReading& how);
inline ReadStatus read_frame(int fd, json& message, std::string& error, uint32_t max_bytes = kMaxFrameBytes) {
    return read_frame(fd, message, error, FrameReading{max_bytes, 0, Peer::worker});
}
// Parses a frame's body after checking its shape; false with `error` saying what is wrong with
// a message from `from` (one sentence, no parser's text).
bool parse_frame_body(const std::vector<uint8_t>& body, json& message, std::string& error, Peer from);

// Checks a request's shape before anything reads it, so that a malformed message is answered
// with an error instead of ending the worker: an object whose "id" is an unsigned 32-bit integer
// and whose "op" is a known operation, with every field that operation reads present and of the
// right type (numbers within range, cubins as bytes). Returns "" or one sentence saying what is
// wrong.
std::string request_problem(const json& request);
// The request's id when it has a valid one, else 0 (the id a reply to a malformed request carries).
uint32_t request_id_or_zero(const json& request);

// Everything the worker needs to measure one analysed configuration; it needs no variant
// (test variants exist only in the parent), compiles nothing and computes no rates. The options
// travel as RunOptions' JSON, the reply as a Measurement's and the ceilings as Ceilings'
// (tilelab/result_json.h).
// One kernel of a job that launches several in order (tilelab/variant.h's KernelPass).
struct JobPass {
    std::shared_ptr<const CompileResult> kernel;       // cubin and lowered name
    std::shared_ptr<const CompileResult> counting;     // its TILELAB_COUNT=1 build; null: not counted
    LaunchShape launch;
    int repeat = 1;                                    // launches in a row (KernelPass::repeat)
};

struct MeasureJob {
    std::string family;                                // "matmul", "stencil"
    Precision precision;                               // the kernel's element types (FP32 when absent)
    FamilyOptions options;                             // what it computes beyond them ("family_options")
    Problem problem;
    LaunchShape launch;
    std::shared_ptr<const CompileResult> kernel;       // cubin and lowered name
    std::shared_ptr<const CompileResult> counting;     // the TILELAB_COUNT=1 build; null: do not count
    // Several kernels ("passes", at most kMaxJobPasses): all of them, in order, make one launch
    // (timed, validated, counted and read by the counters together); `kernel` and `launch` are
    // the one of them whose stall samples are taken. Empty: `kernel` alone.
    std::vector<JobPass> passes;
};
inline constexpr size_t kMaxJobPasses = 8;

json job_to_json(const MeasureJob& job);
MeasureJob job_from_json(const json& j);

// A compile in the worker ({"op": "compile", "compile": request, "sources": the client's
// sources_fingerprint}): the client-only build (TILELAB_CUDA=OFF) has no NVRTC. The worker needs
// no GPU for it, and answers {"compiled": result} with what the host's own compile gives
// (cubin, lowered name, log, ptxas report, options, error), or {"failure": ...} when it was built
// from other kernel sources. The request is checked by request_problem like every other.
json compile_request_to_json(const CompileRequest& req);
CompileRequest compile_request_from_json(const json& j);
json compile_result_to_json(const CompileResult& r);
std::shared_ptr<CompileResult> compile_result_from_json(const json& j);

// Only what a cubin needs to be loaded again: its bytes and the kernel's lowered name.
json cubin_to_json(const CompileResult& c);
std::shared_ptr<const CompileResult> cubin_from_json(const json& j);

}  // namespace tilelab::worker
