// The CPU run's warp shuffles (cpu_machine.h). A lane that reaches shfl.sync waits there. Once every
// lane its member mask names has arrived or ended (an ended lane counts as exited, as on the GPU),
// the waiting lanes of the warp exchange values as the PTX ISA defines shfl.sync — up, down,
// butterfly and indexed, within segments of `width` lanes — and move on. Lanes need not wait at the
// same instruction: from sm_70 on, shfl.sync waits for the lanes of its member mask to execute a
// shfl.sync with the same qualifiers and member mask, wherever it is (NVVM relies on it when it
// splits a loop on a per-lane condition and copies the shuffles into both halves); a lane then
// reads the source lane's operand at the source lane's shuffle. A source lane that is not at such a
// shuffle (past the block's last thread, ended, another mode or mask) gives NaN bits, not a guess:
// the GPU leaves that value undefined, and a result built from it should fail validation. Lanes
// that wait for a lane that never comes (it is at a __syncthreads()) are reported: on a GPU the
// warp hangs.
#include <fmt/format.h>
#include <algorithm>
#include <utility>

#include "cpu/cpu_machine.h"
#include "tilelab/i18n.h"

namespace tilelab::cpu {
namespace {

constexpr uint32_t kWarp = 32;
constexpr uint64_t kUndefined = 0xFFFFFFFFu;   // NaN as a float

// shfl.sync's source lane for `lane` and whether it lies within the lane's segment (the
// predicate): b is the lane offset or index, c packs the segment mask (bits 8–12) and the clamp.
std::pair<uint32_t, bool> source_lane(Shfl mode, uint32_t lane, uint32_t b, uint32_t c) {
    const uint32_t bval = b & 31, cval = c & 31, segmask = (c >> 8) & 31;
    const uint32_t max_lane = (lane & segmask) | (cval & ~segmask), min_lane = lane & segmask;
    int64_t j = lane;
    bool in_range = false;
    switch (mode) {
    case Shfl::up: j = int64_t(lane) - int64_t(bval), in_range = j >= int64_t(max_lane); break;
    case Shfl::down: j = lane + bval, in_range = j <= int64_t(max_lane); break;
    case Shfl::bfly: j = lane ^ bval, in_range = j <= int64_t(max_lane); break;
    case Shfl::idx: j = min_lane | (bval & ~segmask), in_range = j <= int64_t(max_lane); break;
    }
    return {in_range ? uint32_t(j) : lane, in_range};
}

// "3, 17 and 30" (at most 8 named).
std::string lane_list(uint32_t lanes) {
    std::string out;
    int named = 0, total = __builtin_popcount(lanes);
    for (uint32_t l = 0; l < kWarp && named < 8; ++l)
        if (lanes >> l & 1) out += fmt::format("{}{}", named++ ? ", " : "", l);
    if (total > named) out += say(" and {} more", " 等另外 {} 个", total - named);
    return out;
}

}  // namespace

Machine::WarpLanes Machine::warp_lanes(uint32_t first, uint32_t lanes) const {
    WarpLanes w;
    for (uint32_t l = 0; l < lanes; ++l) {
        if (threads_[first + l].state != Thread::State::done) w.present |= 1u << l;
        if (threads_[first + l].state == Thread::State::shuffle) w.waiting |= 1u << l;
    }
    return w;
}

bool Machine::lanes_arrived(uint32_t first, uint32_t lanes, uint32_t arrived, uint32_t present) const {
    for (uint32_t l = 0; l < lanes; ++l) {
        if (!(arrived >> l & 1)) continue;
        const uint32_t members = uint32_t(operand_value(k_.code[threads_[first + l].pc].e, first + l));
        if (members & present & ~arrived) return false;
    }
    return true;
}

uint64_t Machine::operand_value(const Operand& o, uint32_t t) const {
    if (o.kind == Operand::Kind::reg) return regs_[size_t(t) * k_.registers + o.reg];
    if (o.kind == Operand::Kind::special) return special(o.special, t);
    return o.imm;
}

bool Machine::release_shuffles() {
    bool released = false;
    const uint32_t count = uint32_t(threads_.size());
    for (uint32_t first = 0; first < count; first += kWarp) {
        const uint32_t lanes = std::min(kWarp, count - first);
        const WarpLanes w = warp_lanes(first, lanes);
        if (!w.waiting) continue;
        // Lanes at a warp-wide ldmatrix or mma.sync wait for the whole warp (cpu_tensor.cpp); the
        // others are at a shuffle, which waits only for the lanes of its member mask.
        uint32_t shuffling = 0, syncing = 0;
        for (uint32_t l = 0; l < lanes; ++l) {
            if (!(w.waiting >> l & 1)) continue;
            const Op op = k_.code[threads_[first + l].pc].op;
            if (op == Op::shfl) shuffling |= 1u << l;
            if (op == Op::warp_sync) syncing |= 1u << l;
        }
        if (syncing && lanes_arrived(first, lanes, syncing, w.present)) {   // __syncwarp: its lanes go on together
            for (uint32_t l = 0; l < lanes; ++l)
                if (syncing >> l & 1) ++threads_[first + l].pc, threads_[first + l].state = Thread::State::running;
            ++warp_syncs_[first / kWarp];
            released = true;
            continue;
        }
        if (shuffling) {
            if (lanes_arrived(first, lanes, shuffling, w.present)) {
                shuffle_warp(first, lanes);
                released = true;
            }
        } else if (!syncing && w.waiting == w.present) {
            collective_warp(first, lanes);
            released = true;
        }
    }
    return released;
}

void Machine::shuffle_warp(uint32_t first, uint32_t lanes) {
    uint64_t value[kWarp] = {};
    bool in_range[kWarp] = {};
    auto regs = [&](uint32_t l) { return regs_of(first + l); };
    auto read = [&](const Operand& o, uint32_t l) { return operand_value(o, first + l); };
    // Every value is read before any is written: a lane's destination may be another's source.
    for (uint32_t l = 0; l < lanes; ++l) {
        const Thread& th = threads_[first + l];
        if (th.state != Thread::State::shuffle || k_.code[th.pc].op != Op::shfl) continue;
        const Instr& in = k_.code[th.pc];
        const auto [j, ok] = source_lane(in.shfl, l, uint32_t(read(in.b, l)), uint32_t(read(in.c, l)));
        const Thread* source = j < lanes ? &threads_[first + j] : nullptr;
        const Instr* at = source && source->state == Thread::State::shuffle ? &k_.code[source->pc] : nullptr;
        const bool there = at && at->op == Op::shfl && at->shfl == in.shfl && read(at->e, j) == read(in.e, l);
        value[l] = there ? read(at->a, j) & 0xFFFFFFFFu : kUndefined;
        in_range[l] = ok;
    }
    for (uint32_t l = 0; l < lanes; ++l) {
        Thread& th = threads_[first + l];
        if (th.state != Thread::State::shuffle || k_.code[th.pc].op != Op::shfl) continue;
        const Instr& in = k_.code[th.pc];
        regs(l)[in.d.reg] = value[l];
        if (in.d2.kind == Operand::Kind::reg) regs(l)[in.d2.reg] = in_range[l] ? 1 : 0;
        ++th.pc;
        th.state = Thread::State::running;
    }
}

void Machine::check_no_lane_waits_at_a_shuffle() const {
    const uint32_t count = uint32_t(threads_.size());
    for (uint32_t first = 0; first < count; first += kWarp) {
        const auto [waiting, present] = warp_lanes(first, std::min(kWarp, count - first));
        if (!waiting) continue;
        const uint32_t t = first + uint32_t(__builtin_ctz(waiting));
        fail("shuffle",
             say("lanes {} of warp {} wait at a warp shuffle that lanes {} of the same warp never reach (they wait at a "
                 "__syncthreads()): on a GPU this warp hangs",
                 "线程束 {1} 的第 {0} 号 lane 停在一次 warp shuffle，同一线程束的第 {2} 号 lane 永远到不了（它们停在 "
                 "__syncthreads()）：在 GPU 上这个线程束会卡死",
                 lane_list(waiting), first / kWarp, lane_list(present & ~waiting)),
             t, k_.code[threads_[t].pc]);
    }
}

}  // namespace tilelab::cpu
