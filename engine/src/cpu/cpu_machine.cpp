// The CPU run's machine (cpu_machine.h): blocks, the order of threads between barriers, memory
// with bounds and races, and the time limit. The arithmetic is cpu_alu.cpp.
#include "cpu/cpu_machine.h"
#include "cpu/ptx_addresses.h"

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <random>

#include "tilelab/i18n.h"

namespace tilelab::cpu {

class Machine::Fault {
public:
    std::string kind, message;
};

namespace {

double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

constexpr uint32_t kNoThread = 0xFFFFFFFFu;

// "wrote" or "read", for the messages.
std::string verb(bool store) { return store ? say("wrote", "写入") : say("read", "读取"); }

}  // namespace

Machine::Machine(const Module& module, const Kernel& kernel) : module_(module), k_(kernel) {
    uint64_t end = 0;
    for (const Symbol& s : module.globals) end = std::max(end, s.offset + s.bytes);
    module_bytes_.assign(end, 0);
    for (const Symbol& s : module.globals) std::copy(s.init.begin(), s.init.end(), module_bytes_.begin() + s.offset);
}

uint64_t Machine::add_buffer(Buffer b) {
    buffers_.push_back(std::move(b));
    return buffer_base(int(buffers_.size()) - 1);
}

uint8_t* Machine::module_variable(const std::string& name, size_t& bytes) {
    for (const Symbol& s : module_.globals)
        if (s.name == name) return bytes = size_t(s.bytes), module_bytes_.data() + s.offset;
    return bytes = 0, nullptr;
}

std::string Machine::thread_name(uint32_t t) const {
    const auto& b = launch_->block;
    return fmt::format("({}, {}, {})", t % b[0], t / b[0] % b[1], t / (b[0] * b[1]));
}

std::string Machine::line_name(uint32_t line) const {
    return line ? say("line {}", "第 {} 行", line) : say("an unknown line", "未知的行");
}

std::string Machine::where(uint32_t t, const Instr& in) const {
    std::string file;
    if (const auto f = module_.files.find(in.file); f != module_.files.end())
        file = std::filesystem::path(f->second).filename().string();
    const std::string line = file.empty() ? line_name(in.line) : fmt::format("{}:{}", file, in.line);
    return say("thread {} of block ({}, {}, {}), {}", "线程块 ({1}, {2}, {3}) 的线程 {0}，{4}", thread_name(t),
               block_index_[0], block_index_[1], block_index_[2], line);
}

void Machine::fail(const std::string& kind, const std::string& what, uint32_t t, const Instr& in) const {
    throw Fault{kind, fmt::format("{} ({})", what, where(t, in))};
}

std::string Machine::shared_place(uint64_t offset) const {
    for (const Symbol& s : k_.shared) {
        const uint64_t bytes = s.dynamic ? launch_->dynamic_shared : s.bytes;
        if (offset >= s.offset && offset < s.offset + bytes)
            return say("{} + {} bytes", "{} + {} 字节", plain_name(s.name), offset - s.offset);
    }
    return say("shared byte {}", "共享内存第 {} 字节", offset);
}

uint64_t Machine::special(Special s, uint32_t t) const {
    const auto& b = launch_->block;
    const auto& g = launch_->grid;
    switch (s) {
    case Special::tid_x: return t % b[0];
    case Special::tid_y: return t / b[0] % b[1];
    case Special::tid_z: return t / (b[0] * b[1]);
    case Special::ntid_x: return b[0];
    case Special::ntid_y: return b[1];
    case Special::ntid_z: return b[2];
    case Special::ctaid_x: return block_index_[0];
    case Special::ctaid_y: return block_index_[1];
    case Special::ctaid_z: return block_index_[2];
    case Special::nctaid_x: return g[0];
    case Special::nctaid_y: return g[1];
    case Special::nctaid_z: return g[2];
    case Special::laneid: return t % 32;
    case Special::warpid: return t / 32;
    case Special::zero: return 0;
    }
    return 0;
}

// ---- memory ---------------------------------------------------------------------------------------

uint8_t* Machine::global_address(uint64_t address, int bytes, bool store, uint32_t t, const Instr& in) {
    if (address >= kModuleBase && address < kModuleBase + kRegionBytes) {
        const uint64_t off = address - kModuleBase;
        if (off + uint64_t(bytes) <= module_bytes_.size()) return module_bytes_.data() + off;
    } else if (address >= buffer_base(0)) {
        const uint64_t i = (address - buffer_base(0)) / kRegionBytes;
        if (i < buffers_.size()) {
            Buffer& b = buffers_[i];
            const int64_t off = int64_t(address - buffer_base(int(i)));
            const int64_t elements = int64_t(b.bytes.size()) / b.element_bytes;
            if (off + bytes <= int64_t(b.bytes.size())) {
                (store ? moved_.global_stores : moved_.global_loads) += uint64_t(bytes);
                (store ? moved_.global_store_elements : moved_.global_load_elements) += double(bytes) / b.element_bytes;
                return b.bytes.data() + off;
            }
            fail("out of bounds",
                 say("{0} {1}[{2}]: past the end of {1} ({3} elements)", "{0}{1}[{2}]：越过了 {1} 的末尾（{3} 个元素）",
                     verb(store), b.name, off / b.element_bytes, elements),
                 t, in);
        }
    }
    // Below a buffer's base: the nearest buffer above, by how far.
    for (size_t i = 0; i < buffers_.size(); ++i) {
        const uint64_t base = buffer_base(int(i));
        if (address < base && base - address < kRegionBytes / 2) {
            const Buffer& b = buffers_[i];
            fail("out of bounds",
                 say("{0} {1}[{2}]: before the start of {1}", "{0}{1}[{2}]：在 {1} 的开头之前", verb(store),
                     b.name, -int64_t((base - address + b.element_bytes - 1) / b.element_bytes)),
                 t, in);
        }
    }
    fail("out of bounds",
         say("{} address 0x{:x}, which is in no buffer (a null or wild pointer)", "{}地址 0x{:x}，它不在任何缓冲区里（空指针或野指针）",
             verb(store), address),
         t, in);
}

void Machine::check_race(uint64_t offset, int bytes, bool store, uint32_t t, const Instr& in) {
    if (bytes < 4) return;   // sub-word accesses are not tracked (no false reports for packed halves)
    for (uint64_t w = offset / 4; w < (offset + uint64_t(bytes) + 3) / 4; ++w) {
        Shadow& s = shadow_[w];
        const auto report = [&](uint32_t other, uint32_t other_line, bool other_wrote) {
            if (in.op == Op::cp_async)   // the copy's bytes land at the thread's wait (cpu_tensor.cpp)
                fail("race",
                     say("a race on shared memory at {}: thread {} {} it ({}) while this thread's cp.async into it was still "
                         "in flight — wait for the copy (cp.async.wait_group, then __syncthreads()) before the data is "
                         "used, and before the buffer is filled again",
                         "共享内存 {} 上的竞争：线程 {} {}了它（{}），而这个线程写入它的 cp.async 仍未完成——在使用数据之前、"
                         "以及再次填充这块缓冲区之前，要先等待拷贝完成（cp.async.wait_group，再 __syncthreads()）",
                         shared_place(w * 4), thread_name(other), other_wrote ? say("wrote", "写") : say("read", "读"),
                         line_name(other_line)),
                     t, in);
            fail("race",
                 say("a race on shared memory at {}: thread {} {} it ({}) and this thread {} it, between the same two "
                     "barriers — their order decides the result; a __syncthreads() between them is missing",
                     "共享内存 {} 上的竞争：线程 {} {}了它（{}），这个线程又{}了它，两者位于同两个屏障之间——结果取决于它们的先后；"
                     "二者之间缺少一个 __syncthreads()",
                     shared_place(w * 4), thread_name(other), other_wrote ? say("wrote", "写") : say("read", "读"),
                     line_name(other_line), store ? say("wrote", "写") : say("read", "读")),
                 t, in);
        };
        const uint32_t mine = warp_syncs_[t / 32];
        // Another thread's access in this interval races with this one, unless a __syncwarp() of
        // their common warp came between them.
        const auto unordered = [&](uint32_t other, uint32_t other_sync) {
            return other != t && !(other / 32 == t / 32 && other_sync < mine);
        };
        if (s.write_epoch == epoch_ && unordered(s.writer, s.write_sync)) report(s.writer, s.write_line, true);
        if (store) {
            if (s.read_epoch == epoch_ && unordered(s.reader, s.read_sync)) report(s.reader, s.read_line, false);
            if (s.read_epoch == epoch_ && s.reader2 != kNoThread && unordered(s.reader2, s.read_sync2))
                report(s.reader2, s.read_line2, false);
            s.write_epoch = epoch_, s.writer = t, s.write_line = in.line, s.write_sync = mine;
        } else if (s.read_epoch != epoch_ || !unordered(s.reader, s.read_sync)) {
            s.read_epoch = epoch_, s.reader = t, s.read_line = in.line, s.read_sync = mine, s.reader2 = kNoThread;
        } else if (s.reader != t && s.reader2 == kNoThread) {
            s.reader2 = t, s.read_line2 = in.line, s.read_sync2 = mine;
        }
    }
}

uint8_t* Machine::shared_address(uint64_t offset, int bytes, bool store, uint32_t t, const Instr& in) {
    if (offset + uint64_t(bytes) > shared_.size())
        fail("out of bounds",
             say("{} shared memory at byte {}: the block has {} bytes", "{}共享内存第 {} 字节：线程块只有 {} 字节",
                 verb(store), offset, shared_.size()),
             t, in);
    if (offset % uint64_t(std::min(bytes, 16)) != 0)
        fail("misaligned", say("a misaligned {}-byte shared access at {}", "未对齐的 {} 字节共享内存访问：{}", bytes, shared_place(offset)), t, in);
    check_race(offset, bytes, store, t, in);
    (store ? moved_.shared_stores : moved_.shared_loads) += uint64_t(bytes);
    return shared_.data() + offset;
}

uint8_t* Machine::address_of(const Instr& in, uint64_t address, int bytes, bool store, uint32_t t) {
    Space space = in.space;
    if (space == Space::generic) {
        const uint64_t tag = address & kWindowMask;
        space = tag == kSharedWindow ? Space::shared : tag == kLocalWindow ? Space::local : Space::global;
        if (space != Space::global) address &= ~kWindowMask;
    }
    switch (space) {
    case Space::shared: return shared_address(address & ~kWindowMask, bytes, store, t, in);
    case Space::local: {
        address &= ~kWindowMask;
        if (address + uint64_t(bytes) > k_.local_bytes)
            fail("out of bounds", say("local memory at byte {}: the thread has {}", "本地内存第 {} 字节：线程只有 {} 字节", address, k_.local_bytes), t, in);
        return local_.data() + size_t(t) * k_.local_bytes + address;
    }
    case Space::param:
        if (store || address + uint64_t(bytes) > launch_->params.size())
            fail("out of bounds", say("parameter byte {}", "参数第 {} 字节", address), t, in);
        return const_cast<uint8_t*>(launch_->params.data()) + address;
    default: {
        if (bytes > 1 && address % uint64_t(std::min(bytes, 16)) != 0)
            fail("misaligned", say("a misaligned {}-byte access at address 0x{:x}", "未对齐的 {} 字节访问：地址 0x{:x}", bytes, address), t, in);
        return global_address(address, bytes, store, t, in);
    }
    }
}

void Machine::memory(const Instr& in, uint32_t t, uint64_t* r) {
    const uint64_t address = operand_address(in.a, t);
    const int size = ty_bytes(in.type);
    const bool store = in.op == Op::st;
    uint8_t* p = address_of(in, address, size * in.vec, store, t);
    for (int i = 0; i < in.vec; ++i) {
        const uint32_t reg = in.d.kind == Operand::Kind::vec ? in.d.regs[i] : in.d.reg;
        if (store) {
            const uint64_t v = in.d.kind == Operand::Kind::imm ? in.d.imm : r[reg];
            std::memcpy(p + i * size, &v, size_t(size));
        } else {
            uint64_t v = 0;
            std::memcpy(&v, p + i * size, size_t(size));
            r[reg] = ty_signed(in.type) ? uint64_t(sign_extend(v, size)) : v;
        }
    }
}

// ---- blocks and threads -------------------------------------------------------------------------

void Machine::run_thread(uint32_t t) {
    Thread& th = threads_[t];
    uint64_t* r = regs_of(t);
    const Instr* code = k_.code.data();
    const uint32_t n = uint32_t(k_.code.size());
    while (true) {
        if (th.pc >= n) {
            th.state = Thread::State::done;
            return;
        }
        const Instr& in = code[th.pc];
        if (++instructions_ >= next_clock_check_) {
            next_clock_check_ = instructions_ + (1u << 16);
            if (now_s() > deadline_)
                fail("time limit",
                     say("stopped after {:.0f} s, still running (an endless loop?)", "运行 {:.0f} 秒后仍未结束，已停止（死循环？）",
                         launch_->run_limit_s > 0 ? launch_->run_limit_s : launch_->time_limit_s),
                     t, in);
        }
        if (in.guard >= 0 && ((r[in.guard] & 1) != 0) == in.guard_negate) {
            ++th.pc;
            continue;
        }
        switch (in.op) {
        case Op::bra: th.pc = in.target; continue;
        case Op::ret: th.state = Thread::State::done; return;
        case Op::bar:
            ++th.pc;
            th.state = Thread::State::barrier;
            return;
        case Op::shfl: case Op::ldmatrix: case Op::mma: case Op::wmma_load: case Op::wmma_mma: case Op::wmma_store:
        case Op::warp_sync:
            // waits for its lanes; release_shuffles moves it on
            th.state = Thread::State::shuffle;
            return;
        default: execute(in, t, r);
        }
        ++th.pc;
    }
}

void Machine::run_block(const std::array<unsigned, 3>& block_index, const Launch& launch) {
    block_index_ = block_index;
    const uint32_t count = launch.block[0] * launch.block[1] * launch.block[2];
    threads_.assign(count, Thread{});
    std::fill(regs_.begin(), regs_.end(), 0);
    std::fill(shared_.begin(), shared_.end(), uint8_t(0xFF));
    std::fill(local_.begin(), local_.end(), uint8_t(0xFF));
    copies_.assign(count, {});
    copy_groups_.assign(count, 0);
    warp_syncs_.assign((count + 31) / 32, 0);
    std::vector<uint32_t> order(count);
    std::iota(order.begin(), order.end(), 0u);
    const uint64_t block_number = block_index[0] + uint64_t(launch.grid[0]) * (block_index[1] + uint64_t(launch.grid[1]) * block_index[2]);
    std::mt19937_64 gen(launch.seed * 0x9E3779B97F4A7C15ull + block_number);
    while (true) {
        ++epoch_;
        std::shuffle(order.begin(), order.end(), gen);
        do {
            for (const uint32_t t : order)
                if (threads_[t].state == Thread::State::running) run_thread(t);
        } while (release_shuffles());
        check_no_lane_waits_at_a_shuffle();
        bool waiting = false;
        for (Thread& th : threads_)
            if (th.state == Thread::State::barrier) th.state = Thread::State::running, waiting = true;
        if (!waiting) return;
    }
}

LaunchReport Machine::launch(const Launch& launch) {
    LaunchReport report;
    launch_ = &launch;
    const double start = now_s();
    deadline_ = start + launch.time_limit_s;
    instructions_ = 0, next_clock_check_ = 0, moved_ = {};
    const size_t threads = size_t(launch.block[0]) * launch.block[1] * launch.block[2];
    regs_.assign(threads * k_.registers, 0);
    shared_.assign(size_t(k_.static_shared + launch.dynamic_shared), 0);
    shadow_.assign((shared_.size() + 3) / 4, Shadow{});
    local_.assign(threads * k_.local_bytes, 0);
    epoch_ = 0;
    try {
        for (unsigned z = 0; z < launch.grid[2]; ++z)
            for (unsigned y = 0; y < launch.grid[1]; ++y)
                for (unsigned x = 0; x < launch.grid[0]; ++x) run_block({x, y, z}, launch);
        report.completed = true;
    } catch (const Fault& f) {
        report.fault = f.message;
        report.fault_kind = f.kind;
    }
    report.moved = moved_;
    report.instructions = instructions_;
    report.seconds = now_s() - start;
    launch_ = nullptr;
    return report;
}

}  // namespace tilelab::cpu
