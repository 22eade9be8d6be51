// What a GPU worker writes on its stream, as bytes a test can hand the client (`cat FILE` playing
// a worker): the greeting's magic, then frames of a 4-byte little-endian length and a CBOR body
// (engine/src/protocol/worker_protocol.h reads them back).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/worker_protocol.h"

namespace tilelab::test {

inline std::string frame_of(const std::vector<uint8_t>& body) {
    const uint32_t n = uint32_t(body.size());
    std::string out = {char(n), char(n >> 8), char(n >> 16), char(n >> 24)};
    return out + std::string(body.begin(), body.end());
}

inline std::string frame(const worker::json& message) { return frame_of(worker::json::to_cbor(message)); }

inline std::string magic() { return std::string(worker::kGreetingMagic, sizeof worker::kGreetingMagic); }

}  // namespace tilelab::test
