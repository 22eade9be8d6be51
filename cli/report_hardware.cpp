// The "Hardware counters" section of `tilelab-cli run`: what CUPTI read for one launch, level by
// level, beside what the model predicts for the same level, or one sentence why nothing was read.
#include <fmt/format.h>
#include "format_table.h"
#include "report.h"
#include "tilelab/hardware.h"
#include "tilelab/i18n.h"

namespace tilelab::cli {
namespace {

std::string ratio(double measured, double model) {
    return model > 0 ? fmt::format("{:.2f}×", measured / model) : "-";
}

}  // namespace

void render_hardware(std::string& out, const RunResult& r) {
    const HardwareCounters& h = r.hardware;
    if (h.status == hardware_status::skipped) return;   // not asked for (--no-hardware)
    out += "\n" + tr("hwreport.title") + "\n";
    if (!h.ok()) {
        out += trf("hwreport.not_read", h.status, h.reason) + "\n";
        return;
    }
    const auto m = [&](const char* name) { return h.get(name).value_or(0); };
    const CostModel& model = r.model;
    const double model_loads_bytes = model.load_bytes(model.total.global_loads);
    const double model_stores_bytes = model.store_bytes(model.total.global_stores);
    Table t({{tr("hwreport.col_level"), Align::Left}, {tr("hwreport.col_counter"), Align::Left},
             {tr("hwreport.col_measured"), Align::Right}, {tr("hwreport.col_beside"), Align::Left},
             {tr("hwreport.col_ratio"), Align::Right}});
    t.add_row({"DRAM", tr("hwreport.read"), format_bytes(m("dram__bytes_read.sum")),
               trf("hwreport.compulsory", format_bytes(model.compulsory_bytes)),
               ratio(m("dram__bytes_read.sum"), model.compulsory_bytes)});
    t.add_row({"DRAM", tr("hwreport.write"), format_bytes(m("dram__bytes_write.sum")), "", ""});
    t.add_row({"L2", tr("hwreport.l2_bytes"), format_bytes(m("lts__t_bytes.sum")),
               trf("hwreport.model_global", format_bytes(model.global_bytes)), ratio(m("lts__t_bytes.sum"), model.global_bytes)});
    t.add_row({"L1", tr("hwreport.global_load_bytes"), format_bytes(m("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum")),
               trf("hwreport.model_loads", model.load_element_bytes, format_bytes(model_loads_bytes)),
               ratio(m("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum"), model_loads_bytes)});
    t.add_row({"L1", tr("hwreport.global_store_bytes"), format_bytes(m("l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum")),
               trf("hwreport.model_stores", model.store_element_bytes, format_bytes(model_stores_bytes)),
               ratio(m("l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum"), model_stores_bytes)});
    for (const bool load : {true, false}) {
        const char* op = load ? "ld" : "st";
        const double wavefronts = m(fmt::format("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{}.sum", op).c_str());
        const double conflicts = m(fmt::format("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{}.sum", op).c_str());
        const auto ways = h.shared_ways(load);
        t.add_row({tr("hwreport.shared"), tr(load ? "hwreport.load_wavefronts" : "hwreport.store_wavefronts"),
                   format_count(wavefronts) + " / " + format_count(conflicts),
                   ways ? trf("hwreport.per_instruction", fmt_fixed(*ways, 2)) : tr("hwreport.no_shared"), ""});
    }
    const double ldc = m("smsp__inst_executed_op_ldc.sum"), idc = m("idc__requests.sum");
    t.add_row({tr("hwreport.constant"), tr("hwreport.constant_requests"), format_count(idc) + " / " + format_count(ldc),
               model.constant_requests > 0 ? trf("hwreport.constant_model", format_count(model.constant_requests))
                                           : (ldc > 0 ? trf("hwreport.constant_per_ldc", fmt_fixed(idc / ldc, 2)) : ""),
               model.constant_requests > 0 ? ratio(idc, model.constant_requests) : ""});
    const double achieved = m("sm__warps_active.avg.pct_of_peak_sustained_active") / 100.0;
    t.add_row({"SM", tr("hwreport.achieved"), fmt_pct(achieved), trf("hwreport.theoretical", fmt_pct(r.occupancy.occupancy)),
               ratio(achieved, r.occupancy.occupancy)});
    out += t.render(2);
    out += trf("hwreport.dram_line", fmt_fixed(r.gbps_dram, 1), fmt_fixed(r.gbps_model, 1)) + "\n";
    out += trf("hwreport.passes", h.passes, fmt_ms(h.pass_ms)) + "\n";
    out += "  " + model_vs_dram_note() + "\n";
    // How firm the DRAM and bank-conflict counts are for this configuration: what the app's tooltips say.
    const PtxasInfo ptxas = r.compiled ? r.compiled->ptxas : PtxasInfo{};
    for (const std::string& caveat : {dram_read_case(ptxas.spill_loads), l2_bytes_case(ptxas.spill_bytes()),
                                      shared_conflicts_case(ptxas.spill_bytes()),
                                      dram_write_case(model_stores_bytes, r.target.l2_bytes, ptxas.spill_stores)})
        if (!caveat.empty()) out += "  " + caveat + "\n";
}

}  // namespace tilelab::cli
