// The bank model of tilelab/banks.h: per-warp banks and wavefronts, and the totals of a kernel's
// shared-memory access sites.
#include "tilelab/banks.h"
#include <algorithm>
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
    std::array<int64_t, kSharedBanks> word_of_bank;
    word_of_bank.fill(-1);
    for (int lane = first; lane < first + count; ++lane) {
        if (bytes[size_t(lane)] < 0) continue;
        for (int i = 0; i < std::max(1, width_bytes / 4); ++i) {
            const int64_t word = bytes[size_t(lane)] / 4 + i;
            int64_t& held = word_of_bank[size_t(word % kSharedBanks)];
            if (held >= 0 && held != word) return false;
            held = word;
        }
    }
    return true;
}

// The distinct words one unit of lanes asks for: for each, its bank, its place in that bank's
// queue (0 = the first word the lanes ask of that bank) and how many lanes touch it. Fixed arrays
// and a small open-addressed index (at most 32 lanes × 4 words): the model evaluates thousands of
// warps for a lesson at every drag.
struct UnitWords {
    static constexpr int kMax = kWarpLanes * 4;
    static constexpr int kSlots = 256;   // twice kMax: the index is never more than half full
    std::array<int64_t, kMax> word;
    std::array<int, kMax> place, lanes;
    std::array<int, kSharedBanks> in_bank{};   // distinct words asked of each bank
    std::array<int16_t, kSlots> slot;
    int count = 0;

    UnitWords() { slot.fill(-1); }
    // The index of word w, added (with one more lane) if new.
    int add(int64_t w) {
        for (size_t h = size_t(w * 0x9E3779B97F4A7C15ull >> 56) % kSlots;; h = (h + 1) % kSlots) {
            const int at = slot[h];
            if (at < 0) {
                slot[h] = int16_t(count);
                word[size_t(count)] = w;
                lanes[size_t(count)] = 1;
                place[size_t(count)] = in_bank[size_t(w % kSharedBanks)]++;
                return count++;
            }
            if (word[size_t(at)] == w) {
                ++lanes[size_t(at)];
                return at;
            }
        }
    }
};

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
        UnitWords words;
        std::array<std::array<int, 4>, kWarpLanes> index_of;   // [lane][i]: lane's word i in `words`
        bool active = false;
        for (int lane = first; lane < first + unit; ++lane) {
            const int64_t b = bytes[size_t(lane)];
            LaneBank& l = w.lanes[size_t(lane)];
            l.byte = b;
            l.phase = first / unit;
            if (b < 0) continue;
            active = true;
            l.bank = int((b / 4) % kSharedBanks);
            for (int i = 0; i < words_per_lane; ++i) index_of[size_t(lane)][size_t(i)] = words.add(b / 4 + i);
        }
        if (!active) continue;
        // The conflict-free minimum: a store moves 128 bytes of lanes per wavefront; a load the
        // bytes its quads fetch, 128 per wavefront.
        int minimum = 1;
        if (!store) {
            minimum = (fetched_bytes(bytes, first, unit, width_bytes) + 127) / 128;
        }
        const int busiest = *std::max_element(words.in_bank.begin(), words.in_bank.end());
        w.min_wavefronts += minimum;
        w.wavefronts += std::max(minimum, busiest);
        w.worst_ways = std::max(w.worst_ways, (busiest + minimum - 1) / minimum);
        for (int lane = first; lane < first + unit; ++lane) {
            LaneBank& l = w.lanes[size_t(lane)];
            if (l.byte < 0) continue;
            bool shared_all = true;
            for (int i = 0; i < words_per_lane; ++i) {
                const int at = index_of[size_t(lane)][size_t(i)];
                if (words.in_bank[size_t(words.word[size_t(at)] % kSharedBanks)] > minimum) l.conflict = true;
                l.wavefront = std::max(l.wavefront, words.place[size_t(at)]);
                if (words.lanes[size_t(at)] < 2) shared_all = false;
            }
            l.broadcast = shared_all;
        }
        // Lanes beyond the first to touch a word were served by that fetch.
        for (int lane = first; lane < first + unit; ++lane) {
            const int64_t b = w.lanes[size_t(lane)].byte;
            if (b < 0) continue;
            for (int other = first; other < lane; ++other) {
                const int64_t o = w.lanes[size_t(other)].byte;
                if (o >= 0 && o / 4 == b / 4) { ++w.broadcasts; break; }
            }
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
