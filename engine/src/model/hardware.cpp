// The hardware-counter metric table and the sentences for counters that cannot be read
// (tilelab/hardware.h). No CUDA here: the CLI, the GUI and the CPU tests use it.
#include "tilelab/hardware.h"
#include "tilelab/format.h"
#include "tilelab/i18n.h"
#include <array>

namespace tilelab {
namespace {

// Names as Nsight Compute spells them, so that `ncu --metrics NAME` checks each one.
constexpr std::array<HardwareMetric, 17> kMetrics{{
    {"dram__bytes_read.sum", "DRAM read", "B", "DRAM",
     "Bytes read from device memory: what missed in L2. At least the compulsory bytes (each input once)."},
    {"dram__bytes_write.sum", "DRAM write", "B", "DRAM", "Bytes written to device memory (L2 write-backs)."},
    {"lts__t_bytes.sum", "L2 bytes", "B", "L2",
     "Bytes through the L2 slices, every request from the SMs included: what missed in L1."},
    {"l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum", "L1 global load", "B", "L1",
     "Bytes the SMs asked of L1 for global loads: for fully coalesced 4-byte loads, 4 × the loads the model counts."},
    {"l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum", "L1 global store", "B", "L1",
     "Bytes the SMs stored to global memory through L1."},
    {"smsp__inst_executed_op_shared_ld.sum", "shared load instructions", "instructions", "shared",
     "Warp-level shared-memory load instructions (requests), ldmatrix apart."},
    {"smsp__inst_executed_op_ldsm.sum", "ldmatrix instructions", "instructions", "shared",
     "Warp-level ldmatrix instructions (tensor-core fragments from shared memory): shared-load requests that "
     "Nsight Compute counts apart from the others; their wavefronts and conflicts are in the shared-load ones."},
    {"smsp__inst_executed_op_shared_st.sum", "shared store instructions", "instructions", "shared",
     "Warp-level shared-memory store instructions (requests)."},
    {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "shared load wavefronts", "wavefronts", "shared",
     "Passes through the shared-memory banks for loads: one per request without bank conflicts."},
    {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "shared store wavefronts", "wavefronts", "shared",
     "Passes through the shared-memory banks for stores: one per request without bank conflicts."},
    {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "shared load bank conflicts", "conflicts", "shared",
     "Extra wavefronts shared loads needed because lanes hit the same bank at different addresses."},
    {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "shared store bank conflicts", "conflicts", "shared",
     "Extra wavefronts shared stores needed because lanes hit the same bank at different addresses."},
    {"smsp__inst_executed_op_ldc.sum", "LDC instructions", "instructions", "constant",
     "Warp-level loads from constant memory at an address computed while the kernel runs (LDC): __constant__ "
     "arrays read with a run-time index, and a few kernel parameters. A constant read at a compile-time address "
     "is an operand of the instruction that uses it and is not counted here."},
    {"idc__requests.sum", "constant-cache requests", "requests", "constant",
     "Requests the LDC instructions made to the constant cache: one per different address among a warp's lanes, "
     "served one after the other. Requests / LDC instructions = 1 for a uniform read, up to 32."},
    {"sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy", "%", "SM",
     "Warps resident per active cycle, as a percentage of the SM's maximum: occupancy as it happened."},
    {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "tensor pipe busy", "%", "SM",
     "Cycles the tensor cores' pipe worked (mma.sync, WMMA), as a percentage of the SMs' active cycles: 0 for "
     "a kernel of FMAs."},
    // Collected in the same pass as the two percentages, whose denominator it is: the tensor work
    // is the same launch after launch, the active cycles are not (H200, 2026-12-04: the busy
    // cycles equal within 0.02% in TileLab's pass and ncu's, the active cycles 1-6% apart).
    {"sm__cycles_active.avg", "SM active cycles", "cycles", "SM",
     "Cycles an SM had at least one warp resident, averaged over the SMs: the kernel's length in SM cycles and "
     "the denominator of achieved occupancy and tensor pipe busy. It varies from launch to launch with what "
     "the kernel waits on, so those two percentages do too."},
}};

}  // namespace

std::string model_vs_dram_note() { return tr("hardware.model_vs_dram"); }

std::span<const HardwareMetric> hardware_metrics() { return kMetrics; }

const HardwareMetric* find_hardware_metric(const std::string& name) {
    for (const HardwareMetric& m : kMetrics)
        if (name == m.name) return &m;
    return nullptr;
}

std::optional<double> HardwareCounters::get(const std::string& name) const {
    if (auto it = metrics.find(name); it != metrics.end()) return it->second;
    return std::nullopt;
}

std::optional<double> HardwareCounters::shared_requests(bool load) const {
    const auto requests = get(load ? "smsp__inst_executed_op_shared_ld.sum" : "smsp__inst_executed_op_shared_st.sum");
    if (!requests || !load) return requests;
    return *requests + get("smsp__inst_executed_op_ldsm.sum").value_or(0.0);
}

std::optional<double> HardwareCounters::shared_ways(bool load) const {
    const auto wavefronts = get(load ? "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
                                     : "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum");
    const auto requests = shared_requests(load);
    if (!wavefronts || !requests || *requests <= 0) return std::nullopt;
    return *wavefronts / *requests;
}

std::optional<double> HardwareCounters::dram_bytes() const {
    const auto read = get("dram__bytes_read.sum"), written = get("dram__bytes_write.sum");
    if (!ok() || !read || !written) return std::nullopt;
    return *read + *written;
}

std::string hardware_reason(const std::string& status, const std::string& detail) {
    namespace hs = hardware_status;
    std::string s;
    if (status == hs::ok || status == hs::skipped) return "";
    if (status == hs::no_gpu)
        s = say("No hardware counters in model mode: they are read from a GPU.", "模型模式下没有硬件计数器：它们要从 GPU 上读取。");
    else if (status == hs::insufficient_privileges)
        s = say("The GPU's performance counters are reserved for administrators (ERR_NVGPUCTRPERM): run as root or "
                "with CAP_SYS_ADMIN, or allow every user with the nvidia module option NVreg_RestrictProfilingToAdminUsers=0 "
                "(e.g. in /etc/modprobe.d, then reload the driver).",
                "GPU 的性能计数器只对管理员开放（ERR_NVGPUCTRPERM）：以 root 或带 CAP_SYS_ADMIN 运行，或者用 nvidia "
                "模块选项 NVreg_RestrictProfilingToAdminUsers=0 允许所有用户（例如写在 /etc/modprobe.d 中，再重新加载驱动）。");
    else if (status == hs::profiler_busy)
        s = say("Another profiler holds the GPU's counters (Nsight Compute, Nsight Systems or another CUPTI client): "
                "close it, or run TileLab outside it, to read them here.",
                "另一个性能分析器占用着 GPU 的计数器（Nsight Compute、Nsight Systems 或其他 CUPTI 客户端）："
                "关掉它，或在它之外运行 TileLab，才能在这里读取。");
    else if (status == hs::unsupported)
        s = say("This GPU or setup cannot read hardware counters through CUPTI's range profiler (it needs compute "
                "capability 7.5 or newer, not MIG, vGPU without profiling, WSL or confidential computing).",
                "这块 GPU 或这套环境无法通过 CUPTI 的 range profiler 读取硬件计数器（需要计算能力 7.5 或更新，"
                "且不能是 MIG、不带性能分析的 vGPU、WSL 或机密计算）。");
    else if (status == hs::off)
        s = say("Hardware counters are off for the rest of this session: a counter pass lost the GPU's context and the "
                "GPU worker had to start again, which would happen at every full run. Restart TileLab to try them again.",
                "本次会话余下的时间里不再读取硬件计数器：一次计数器遍历让 GPU 上下文丢失，GPU worker 只得重新启动，"
                "而每次完整运行都会如此。重新启动 TileLab 可再试。");
    else
        s = say("The hardware-counter pass failed.", "硬件计数器遍历失败。");
    if (!detail.empty()) s += " (" + detail + ")";
    return s;
}

std::string dram_write_case(double output_bytes, double l2_bytes, int spill_store_bytes) {
    if (!(l2_bytes > 0) || !(output_bytes > 0)) return "";
    const double ratio = output_bytes / l2_bytes;
    // A spilling kernel's local writes reach DRAM as they leave L2, which the two profilers count
    // differently (H100, 2026-12-07, docs/benchmarks.md).
    const std::string spills =
        spill_store_bytes <= 0
            ? ""
            : " " + say("This kernel also spills registers to local memory ({} bytes of spill stores a thread), which "
                        "reach DRAM as they leave L2: for such kernels this count was 1.6 to 5.9 % under Nsight "
                        "Compute's (H100, 2026-12-07), and it moved by 3.6 % with where local memory lay. Read it to "
                        "within 10 %.",
                        "这个内核还把寄存器溢出到局部内存（每线程 {} 字节的溢出存储），它们离开 L2 时才写入 DRAM："
                        "对这样的内核，这个计数比 Nsight Compute 的少 1.6 % 到 5.9 %（H100，2026-12-07），"
                        "而且局部内存放在哪里会让它变动 3.6 %。把它看作误差在 10 % 以内的数。",
                        spill_store_bytes);
    if (ratio >= kFirmOutputPerL2 && spills.empty())
        return say("This output ({}) is {:.1f} times L2 ({}): nearly all of it is written back during the kernel, and "
                   "this count agrees with Nsight Compute's within 2 %.",
                   "这次的输出（{0}）是 L2（{2}）的 {1:.1f} 倍：几乎全部在内核运行期间写回，这个计数与 Nsight Compute 的相差不超过 2 %。",
                   format_bytes(output_bytes), ratio, format_bytes(l2_bytes));
    if (ratio >= kFirmOutputPerL2)
        return say("This output ({}) is {:.1f} times L2 ({}): nearly all of it is written back during the kernel.",
                   "这次的输出（{0}）是 L2（{2}）的 {1:.1f} 倍：几乎全部在内核运行期间写回。", format_bytes(output_bytes),
                   ratio, format_bytes(l2_bytes)) +
               spills;
    return say("This output ({}) is {:.1f} times L2 ({}), under {:.0f}: part of it is still in L2 when the kernel "
               "ends and is not counted here. Nsight Compute counts up to about 4.4 MB more: lines its own set-up "
               "left dirty in L2, which the kernel's reads push out (H100, 2026-12-07). Read a difference of that "
               "size as the profiler's, not the kernel's.",
               "这次的输出（{0}）只是 L2（{2}）的 {1:.1f} 倍，不到 {3:.0f} 倍：内核结束时其中一部分仍在 L2 里，不计在这里。"
               "Nsight Compute 会多数出最多约 4.4 MB：那是它自己的准备工作在 L2 中留下的脏行，被内核的读取挤出"
               "（H100，2026-12-07）。这么大的差别属于分析器，不属于内核。",
               format_bytes(output_bytes), ratio, format_bytes(l2_bytes), kFirmOutputPerL2) +
           spills;
}

std::string dram_read_case(int spill_load_bytes) {
    if (spill_load_bytes <= 0) return "";
    return say("This kernel reads spilled registers back from local memory ({} bytes of spill loads a thread). "
               "Those reads go through L1 and L2 like any load, but how many of them miss L2 and go to DRAM was "
               "not reproducible between profilers: TileLab's pass and Nsight Compute counted the same L1 and L2 "
               "requests for the same launch, and here from 13 % fewer DRAM reads (an H100) to 3.9 times as many "
               "(an H200). Laying each thread's local memory out further apart moved the pass's count by 42 % and "
               "Nsight Compute's by 0.3 %, and Nsight Compute's launch of the most different case ran 13 % faster "
               "than the kernel does unprofiled: neither count is known to be the unprofiled kernel's. Read this one "
               "as an order of magnitude; without spills the two agreed within 2 % on every variant.",
               "这个内核要从局部内存读回溢出的寄存器（每线程 {} 字节的溢出加载）。这些读取和普通加载一样经过 L1 和 L2，"
               "但其中有多少在 L2 未命中而去读 DRAM，在不同的分析器之间无法复现：对同一次启动，TileLab 的计数遍历"
               "与 Nsight Compute 数出的 L1 和 L2 请求相同，而这里的 DRAM 读取从少 13 %（H100）到多达 3.9 倍（H200）。"
               "把每个线程的局部内存排得更分散，计数遍历的数变了 42 %，Nsight Compute 的只变了 0.3 %；差别最大的那种"
               "情况下，Nsight Compute 那次启动比不做分析时的内核快 13 %：两个计数都不能确定就是不做分析时内核的"
               "真实值。只把这个计数当作数量级来看；没有溢出时，两者在每个变体上相差都不超过 2 %。",
               spill_load_bytes);
}

std::string l2_bytes_case(int spill_bytes) {
    if (spill_bytes <= 0) return "";
    return say("This kernel spills ({} bytes of spill stores and loads a thread). Its L2 bytes hang on how many "
               "of those local-memory accesses hit L1, and there the two profilers part: for one such kernel on an "
               "H100 (2026-12-07), TileLab's pass and Nsight Compute asked L1 for the same local sectors on the same "
               "launch, but 10 % more of the loads hit L1 in the pass, and it counted 5 % fewer L2 bytes. Read it "
               "to within about 10 %; without spills the means of a few passes agree within 2 %.",
               "这个内核有寄存器溢出（每线程 {} 字节的溢出存储和加载）。它的 L2 字节数取决于这些局部内存访问有多少命中 L1，"
               "而两个分析器恰在这里分开：在 H100 上（2026-12-07）的一个这样的内核，对同一次启动，TileLab 的计数遍历与 "
               "Nsight Compute 向 L1 请求的局部内存扇区相同，但计数遍历中多 10 % 的加载命中了 L1，L2 字节数因此少数了 5 %。"
               "把它看作误差约 10 % 的数；没有溢出时，几次计数的平均值相差不超过 2 %。",
               spill_bytes);
}

std::string shared_conflicts_case(int spill_bytes) {
    if (spill_bytes <= 0) return "";
    return say("This kernel spills ({} bytes of spill stores and loads a thread), and its local-memory traffic "
               "goes through the same L1 data pipe as shared memory. For such a kernel the bank-conflict count "
               "follows the clock: on an H100, for the same launch from the same cache state, Nsight Compute "
               "counted 296 million shared-load conflicts at the GPU's own clocks and 314 million at its base "
               "clocks (6 % apart; its repeated runs within 0.1 %), and TileLab's pass 312 million; for a spilling "
               "attention kernel the pass counted 5 % more shared-load and 10-14 % fewer shared-store conflicts "
               "than Nsight Compute at either clock. Read it to within about 15 %; without spills the two agreed "
               "on every variant (within 2 %, or within 0.1 % of the wavefronts where conflicts are few).",
               "这个内核有寄存器溢出（每线程 {} 字节的溢出存储和加载），它的局部内存访问与共享内存走同一条 L1 数据通路。"
               "对这样的内核，存储体冲突的计数随时钟而变：在 H100 上，对同一次启动、同样的缓存状态，Nsight Compute "
               "在 GPU 自己选择的时钟下数出 2.96 亿次共享内存加载冲突，在基准时钟下数出 3.14 亿次（相差 6 %，"
               "它自己重复运行相差不到 0.1 %），TileLab 的计数遍历数出 3.12 亿次；对一个有溢出的注意力内核，计数遍历数出的"
               "共享内存加载冲突比 Nsight Compute 在两种时钟下都多 5 %，存储冲突少 10–14 %。把它看作误差约 15 % 的数；"
               "没有溢出时，两者在每个变体上都一致（相差不超过 2 %，冲突很少时不超过波前数的 0.1 %）。",
               spill_bytes);
}

}  // namespace tilelab
