// The "Hardware counters" section of `tilelab-cli run`: what CUPTI read for one launch, level by
// level, beside what the model predicts for the same level, or one sentence why nothing was read.
#include <fmt/format.h>
#include "format_table.h"
#include "report.h"
#include "tilelab/hardware.h"

namespace tilelab::cli {
namespace {

std::string ratio(double measured, double model) {
    return model > 0 ? fmt::format("{:.2f}×", measured / model) : "-";
}

}  // namespace

void render_hardware(std::string& out, const RunResult& r) {
    const HardwareCounters& h = r.hardware;
    if (h.status == hardware_status::skipped) return;   // not asked for (--no-hardware)
    out += "\nHardware counters\n";
    if (!h.ok()) {
        out += fmt::format("  not read ({}): {}\n", h.status, h.reason);
        return;
    }
    const auto m = [&](const char* name) { return h.get(name).value_or(0); };
    const CostModel& model = r.model;
    const double model_loads_bytes = 4 * model.total.global_loads;
    const double model_stores_bytes = 4 * model.total.global_stores;
    Table t({{"level", Align::Left}, {"counter", Align::Left}, {"measured", Align::Right},
             {"beside", Align::Left}, {"ratio", Align::Right}});
    t.add_row({"DRAM", "read", format_bytes(m("dram__bytes_read.sum")),
               "compulsory " + format_bytes(model.compulsory_bytes),
               ratio(m("dram__bytes_read.sum"), model.compulsory_bytes)});
    t.add_row({"DRAM", "write", format_bytes(m("dram__bytes_write.sum")), "", ""});
    t.add_row({"L2", "bytes (all requests)", format_bytes(m("lts__t_bytes.sum")),
               "model global " + format_bytes(model.global_bytes), ratio(m("lts__t_bytes.sum"), model.global_bytes)});
    t.add_row({"L1", "global load bytes", format_bytes(m("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum")),
               "model 4 B × loads " + format_bytes(model_loads_bytes),
               ratio(m("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum"), model_loads_bytes)});
    t.add_row({"L1", "global store bytes", format_bytes(m("l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum")),
               "model 4 B × stores " + format_bytes(model_stores_bytes),
               ratio(m("l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum"), model_stores_bytes)});
    for (const bool load : {true, false}) {
        const char* op = load ? "ld" : "st";
        const double wavefronts = m(fmt::format("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{}.sum", op).c_str());
        const double conflicts = m(fmt::format("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{}.sum", op).c_str());
        const auto ways = h.shared_ways(load);
        t.add_row({"shared", load ? "load wavefronts / conflicts" : "store wavefronts / conflicts",
                   format_count(wavefronts) + " / " + format_count(conflicts),
                   ways ? fmt::format("{:.2f} wavefronts per instruction", *ways) : "no shared accesses", ""});
    }
    const double achieved = m("sm__warps_active.avg.pct_of_peak_sustained_active") / 100.0;
    t.add_row({"SM", "achieved occupancy", fmt_pct(achieved), "theoretical " + fmt_pct(r.occupancy.occupancy),
               ratio(achieved, r.occupancy.occupancy)});
    out += t.render(2);
    out += fmt::format("  DRAM throughput {} GB/s measured (read + write / median time) vs {} GB/s modelled global traffic\n",
                       fmt_fixed(r.gbps_dram, 1), fmt_fixed(r.gbps_model, 1));
    out += fmt::format("  {} passes (the launch replayed, L2 flushed before each), {} ms; CUPTI range profiler\n",
                       h.passes, fmt_ms(h.pass_ms));
    out += "  " + std::string(kModelVsDramNote) + "\n";
}

}  // namespace tilelab::cli
