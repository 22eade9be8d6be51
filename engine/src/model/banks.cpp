// The bank model of tilelab/banks.h: per-warp banks and wavefronts, and the totals of a kernel's
// shared-memory access sites.
#include "tilelab/banks.h"
#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace tilelab {

namespace {

// Fetches a load needs for one quad of lanes (4l..4l+3): lanes l and l^1 share a fetch when their
// addresses are equal, and the two pairs share one when they are equal lane by lane.
int quad_fetches(const int64_t* a) {
    const auto distinct = [](int64_t x, int64_t y) { return (x >= 0) + (y >= 0 && y != x); };
    if (a[0] == a[2] && a[1] == a[3]) return distinct(a[0], a[1]);
    return distinct(a[0], a[1]) + distinct(a[2], a[3]);
}

// The bytes a load of lanes first..first+count-1 fetches, quad by quad.
int fetched_bytes(const std::array<int64_t, kWarpLanes>& bytes, int first, int count, int width_bytes) {
    int fetched = 0;
    for (int q = first; q < first + count; q += 4) fetched += quad_fetches(&bytes[size_t(q)]) * width_bytes;
    return fetched;
}

// Whether lanes first..first+count-1 of a load fit one wavefront: their quads fetch at most 128
// bytes and no bank is asked for two different words.
bool load_fits_one_wavefront(const std::array<int64_t, kWarpLanes>& bytes, int first, int count, int width_bytes) {
    if (fetched_bytes(bytes, first, count, width_bytes) > 128) return false;
    std::map<int, int64_t> word_of_bank;
    for (int lane = first; lane < first + count; ++lane) {
        if (bytes[size_t(lane)] < 0) continue;
        for (int i = 0; i < std::max(1, width_bytes / 4); ++i) {
            const int64_t word = bytes[size_t(lane)] / 4 + i;
            const auto [at, fresh] = word_of_bank.emplace(int(word % kSharedBanks), word);
            if (!fresh && at->second != word) return false;
        }
    }
    return true;
}

}  // namespace

int lanes_served_together(const std::array<int64_t, kWarpLanes>& bytes, int width_bytes, bool store) {
    if (store) return kWarpLanes * 4 / std::max(width_bytes, 4);
    if (width_bytes == 16) return kWarpLanes / 2;
    if (width_bytes == 8 && !load_fits_one_wavefront(bytes, 0, kWarpLanes, width_bytes)) return kWarpLanes / 2;
    return kWarpLanes;
}

WarpBanks warp_banks(const std::array<int64_t, kWarpLanes>& bytes, int width_bytes, bool store) {
    if (width_bytes != 2 && width_bytes != 4 && width_bytes != 8 && width_bytes != 16)
        throw std::invalid_argument("shared access width must be 2, 4, 8 or 16 bytes");
    WarpBanks w;
    w.width_bytes = width_bytes;
    w.store = store;
    const int words_per_lane = std::max(1, width_bytes / 4);   // a 2-byte access is in one word
    const int unit = lanes_served_together(bytes, width_bytes, store);
    for (int first = 0; first < kWarpLanes; first += unit) {
        // bank -> its distinct words in this unit, in the order lanes ask for them
        std::map<int, std::vector<int64_t>> words_of_bank;
        std::map<int64_t, int> lanes_of_word;   // word -> lanes touching it
        bool active = false;
        for (int lane = first; lane < first + unit; ++lane) {
            const int64_t b = bytes[size_t(lane)];
            LaneBank& l = w.lanes[size_t(lane)];
            l.byte = b;
            l.phase = first / unit;
            if (b < 0) continue;
            active = true;
            l.bank = int((b / 4) % kSharedBanks);
            for (int i = 0; i < words_per_lane; ++i) {
                const int64_t word = b / 4 + i;
                auto& list = words_of_bank[int(word % kSharedBanks)];
                if (std::find(list.begin(), list.end(), word) == list.end()) list.push_back(word);
                ++lanes_of_word[word];
            }
        }
        if (!active) continue;
        // The conflict-free minimum: a store moves 128 bytes of lanes per wavefront; a load the
        // bytes its quads fetch, 128 per wavefront.
        int minimum = 1;
        if (!store) {
            minimum = (fetched_bytes(bytes, first, unit, width_bytes) + 127) / 128;
        }
        size_t busiest = 0;
        for (const auto& [bank, list] : words_of_bank) busiest = std::max(busiest, list.size());
        w.min_wavefronts += minimum;
        w.wavefronts += std::max(minimum, int(busiest));
        w.worst_ways = std::max(w.worst_ways, (int(busiest) + minimum - 1) / minimum);
        for (int lane = first; lane < first + unit; ++lane) {
            LaneBank& l = w.lanes[size_t(lane)];
            if (l.byte < 0) continue;
            bool shared_all = true;
            for (int i = 0; i < words_per_lane; ++i) {
                const int64_t word = l.byte / 4 + i;
                const auto& list = words_of_bank[int(word % kSharedBanks)];
                if (int(list.size()) > minimum) l.conflict = true;
                const int place = int(std::find(list.begin(), list.end(), word) - list.begin());
                l.wavefront = std::max(l.wavefront, place);
                if (lanes_of_word[word] < 2) shared_all = false;
            }
            l.broadcast = shared_all;
        }
        // Lanes beyond the first to touch a word were served by that fetch.
        std::set<int64_t> seen;
        for (int lane = first; lane < first + unit; ++lane) {
            const LaneBank& l = w.lanes[size_t(lane)];
            if (l.byte < 0) continue;
            if (!seen.insert(l.byte / 4).second) ++w.broadcasts;
        }
    }
    // A float2 load split into half-warps: the hardware still counts its conflicts against the
    // whole warp's minimum (measured: 0 and 128 in the two halves are 2 wavefronts, 1 conflict).
    if (!store && width_bytes == 8 && unit < kWarpLanes) {
        w.min_wavefronts = std::max(1, (fetched_bytes(bytes, 0, kWarpLanes, width_bytes) + 127) / 128);
    }
    return w;
}

WarpBanks SharedAccessSite::warp(int instance, int warp_index) const {
    std::array<int64_t, kWarpLanes> bytes;
    for (int lane = 0; lane < kWarpLanes; ++lane) {
        const int thread = warp_index * kWarpLanes + lane;
        bytes[size_t(lane)] = thread < threads ? byte_address(instance, thread) : -1;
    }
    return warp_banks(bytes, width_bytes, store);
}

BankModel bank_model(const std::vector<SharedAccessSite>& sites) {
    BankModel m;
    for (const SharedAccessSite& s : sites) {
        BankSiteTotals t;
        t.name = s.name;
        t.formula = s.formula;
        t.store = s.store;
        t.width_bytes = s.width_bytes;
        t.caveat = s.caveat;
        double instructions = 0, wavefronts = 0, min_wavefronts = 0, broadcasts = 0;
        for (int i = 0; i < s.instances; ++i) {
            const double weight = s.instance_weights.empty() ? 1.0 : s.instance_weights.at(size_t(i));
            if (weight == 0) continue;
            for (int w = 0; w < s.warps(); ++w) {
                const WarpBanks wb = s.warp(i, w);
                if (wb.min_wavefronts == 0) continue;   // no lane took part: not issued
                instructions += weight;
                wavefronts += weight * wb.wavefronts;
                min_wavefronts += weight * wb.min_wavefronts;
                broadcasts += weight * wb.broadcasts;
                t.worst_ways = std::max(t.worst_ways, wb.worst_ways);
            }
        }
        t.instructions = instructions * s.repeats;
        t.wavefronts = wavefronts * s.repeats;
        t.min_wavefronts = min_wavefronts * s.repeats;
        t.broadcasts = broadcasts * s.repeats;
        (s.store ? m.store_instructions : m.load_instructions) += t.instructions;
        (s.store ? m.store_wavefronts : m.load_wavefronts) += t.wavefronts;
        (s.store ? m.store_conflicts : m.load_conflicts) += t.conflicts();
        m.sites.push_back(std::move(t));
    }
    return m;
}

std::vector<AlignedPiece> aligned_pieces(int64_t constant, int length, int known) {
    std::vector<AlignedPiece> out;
    for (int p = 0; p < length;) {
        const int align = std::min(known, pow2_alignment(constant + p));
        int w = 4;
        while (w > align || w > length - p) w /= 2;
        out.push_back({p, w});
        p += w;
    }
    return out;
}

void SharedSiteBuilder::run(std::function<int64_t(int)> thread_part, int64_t constant, int length, int known) {
    for (const AlignedPiece& piece : aligned_pieces(constant, length, known))
        pieces_[piece.floats == 4 ? 2 : piece.floats == 2 ? 1 : 0].push_back({thread_part, constant + piece.offset});
}

void SharedSiteBuilder::add_to(std::vector<SharedAccessSite>& out, int threads, double repeats) const {
    for (int slot = 0; slot < 3; ++slot) {
        const auto& list = pieces_[size_t(slot)];
        if (list.empty()) continue;
        const int floats = 1 << slot;
        SharedAccessSite s;
        s.name = floats == 1 ? name_ : name_ + " (float" + std::to_string(floats) + ")";
        s.formula = formula_;
        s.store = store_;
        s.width_bytes = 4 * floats;
        s.caveat = caveat_;
        s.threads = threads;
        s.instances = int(list.size());
        s.repeats = repeats;
        s.byte_address = [list](int i, int t) {
            const Piece& p = list[size_t(i)];
            return 4 * (p.thread_part(t) + p.offset);
        };
        out.push_back(std::move(s));
    }
}

}  // namespace tilelab
