// What a GPU worker sends back, checked field by field before anything reads it: the greeting's
// device and target (a worker elsewhere may be broken or hostile) and every reply. A problem is
// one sentence naming the field ("\"target.warp_size\" is 2147483647, not 32"); the JSON
// library's own exception text never reaches a message. No CUDA here.
#pragma once
#include <string>
#include "tilelab/target.h"
#include "protocol/worker_protocol.h"

namespace tilelab {

// "" when the greeting's "device" (and, for a device with a GPU, its "target") can be read and
// describe a GPU TileLab can compile for, else what is wrong, naming the field.
std::string greeting_fields_problem(const worker::json& hello);
// The greeting's target; only after greeting_fields_problem(hello) returned "".
Target greeting_target(const worker::json& hello);

// "" when `reply` to `op` ("run", "ceilings", "memory", "compile", "blocks_per_sm", "occupy",
// "release") has every field that op's reader reads, of its type, else what is wrong, naming
// the field ("\"result.timing.median_ms\" is not a number"). A {"failure": ...} reply is checked
// by the client before this.
std::string reply_fields_problem(const std::string& op, const worker::json& reply);

// "" when `holder` has no "resident_clusters" or nine integers from 0 to 100,000 there
// (Target::resident_clusters, in the greeting's target and in the memory reply), else what is wrong.
std::string resident_clusters_problem(const worker::json& holder);

// A string the worker sent, made fit for a one-line message: cut to `longest` characters,
// control bytes and bytes that are not UTF-8 as '?'.
std::string worker_text(const std::string& text, size_t longest = 300);

}  // namespace tilelab
