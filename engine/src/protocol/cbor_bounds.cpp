// The shape of a CBOR message checked before it is parsed (worker_protocol.h): nlohmann's CBOR
// reader recurses once per level, so 100,000 nested one-element arrays (100 KB) overflow the
// stack. This walk keeps its open containers in a vector: it never recurses, reads every header
// once, and stops at the first level too deep, the first value too many or the first length that
// claims more bytes than are left.
#include "protocol/worker_protocol.h"
#include <fmt/format.h>
#include <vector>

namespace tilelab::worker {
namespace {

struct Open {
    uint64_t left;     // values still to come (a map counts keys and values); unused when indefinite
    bool indefinite;   // ends at a break byte (0xFF)
};

}  // namespace

std::string cbor_shape_problem(const uint8_t* data, size_t n, const CborLimits& limits) {
    std::vector<Open> open;
    size_t pos = 0, values = 0;
    bool top_done = false;
    // The argument of a header: the additional information itself (< 24) or the 1, 2, 4 or 8
    // bytes after it. False when it is a reserved value or runs past the end.
    const auto argument = [&](uint8_t info, uint64_t& value) {
        if (info < 24) {
            value = info;
            return true;
        }
        if (info > 27) return false;
        const size_t bytes = size_t(1) << (info - 24);
        if (n - pos < bytes) return false;
        value = 0;
        for (size_t k = 0; k < bytes; ++k) value = value << 8 | data[pos++];
        return true;
    };
    while (!top_done) {
        if (pos == n) return "it ends in the middle of a value";
        const uint8_t head = data[pos++];
        const uint8_t major = head >> 5, info = head & 31;
        if (head == 0xFF) {   // a break: ends the innermost indefinite container
            if (open.empty() || !open.back().indefinite) return "it holds a break byte outside an open list";
            open.pop_back();
        } else {
            if (++values > limits.max_values)
                return fmt::format("it holds more than {} values", limits.max_values);
            if (!open.empty() && !open.back().indefinite) --open.back().left;
            uint64_t arg = 0;
            if (info == 31 && (major == 2 || major == 3 || major == 4 || major == 5)) {
                if (open.size() >= limits.max_depth) return fmt::format("it is nested deeper than {} levels", limits.max_depth);
                open.push_back({0, true});
                continue;
            }
            if (!argument(info, arg)) return "it holds a malformed value header";
            const size_t rest = n - pos;
            if (major == 2 || major == 3) {   // bytes or text
                if (arg > rest) return fmt::format("a string claims {} bytes where {} are left", arg, rest);
                pos += size_t(arg);
            } else if (major == 4 || major == 5) {   // a list or a map: every value takes a byte at least
                const uint64_t count = major == 4 ? arg : (arg > rest / 2 ? UINT64_MAX : arg * 2);
                if (count > rest) return fmt::format("a list claims {} values where {} bytes are left", arg, rest);
                if (count > 0) {
                    if (open.size() >= limits.max_depth) return fmt::format("it is nested deeper than {} levels", limits.max_depth);
                    open.push_back({count, false});
                    continue;
                }
            } else if (major == 6) {
                return "it holds a CBOR tag, which no TileLab message uses";
            }
        }
        // A value ended: close every definite container it completed.
        while (!open.empty() && !open.back().indefinite && open.back().left == 0) open.pop_back();
        top_done = open.empty();
    }
    if (pos != n) return fmt::format("{} bytes follow the message", n - pos);
    return "";
}

}  // namespace tilelab::worker
