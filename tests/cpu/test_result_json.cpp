// The one serialisation of a result (tilelab/result_json.h): what result_to_json writes,
// result_from_json reads back whole, for analysed, measured and failed results; CSV cells come
// from the same JSON.
#include <gtest/gtest.h>
#include "tilelab/engine.h"
#include "tilelab/result_json.h"

using namespace tilelab;
using ojson = nlohmann::ordered_json;

namespace {

Engine& model_engine() {
    static Engine engine(EngineConfig{"", /*force_model_mode=*/true});
    return engine;
}

// What a result's JSON says, but for the cubin's size: the cubin itself is not part of the JSON.
ojson without_cubin(ojson j) {
    if (j.contains("compile")) j["compile"].erase("cubin_bytes");
    return j;
}

void expect_round_trip(const RunResult& r, const ResultJsonOptions& opt = {}) {
    const ojson once = result_to_json(r, opt);
    const RunResult back = result_from_json(once);
    EXPECT_EQ(without_cubin(result_to_json(back, opt)).dump(2), without_cubin(once).dump(2));
}

}  // namespace

TEST(ResultJson, AnAnalysedResultRoundTrips) {
    const RunResult r = model_engine().analyze({"matmul.smem_tiled", {{"TILE", 16}}, Problem{{100, 70, 33}}});
    ASSERT_TRUE(r.ok) << r.error;
    expect_round_trip(r, {true, true, true});
    const RunResult back = result_from_json(result_to_json(r));
    EXPECT_EQ(back.target.name, r.target.name);
    EXPECT_EQ(back.target.arch(), r.target.arch());
    EXPECT_EQ(back.occupancy_input.registers_per_thread, r.compiled->ptxas.registers);
    EXPECT_EQ(back.smem_bytes(), r.smem_bytes());
    EXPECT_EQ(back.model.formulas.size(), r.model.formulas.size());
}

TEST(ResultJson, AMeasuredResultRoundTripsWithItsRates) {
    RunResult r = model_engine().analyze({"stencil.basic", {}, Problem{{33, 17, 9}}});
    ASSERT_TRUE(r.ok) << r.error;
    Measurement m;
    m.ok = true;
    m.timing = {0.25, 0.2, 0.5, {0.2, 0.25, 0.5}};
    m.validation = {true, true, 1e-7, 2e-7, 1e-5, "double (GPU, interior)", ""};
    m.counted = r.model.total;
    m.reference_ms = 0.125;
    m.reference_name = "device copy";
    r.apply(m);
    r.phase = Phase::quick;
    expect_round_trip(r);
    const RunResult back = result_from_json(result_to_json(r));
    EXPECT_TRUE(back.measured);
    EXPECT_EQ(back.phase, Phase::quick);
    EXPECT_DOUBLE_EQ(back.gbps_effective, r.gbps_effective);
    ASSERT_TRUE(back.counted.has_value());
    EXPECT_EQ(*back.counted, r.model.total);
}

// A variant of several kernels: its passes, each one's time alone once measured (null before),
// and a configuration that may fail by design says why; both survive the round trip.
TEST(ResultJson, PassesAndTheirTimesAndAnExpectedFailureRoundTrip) {
    RunResult r = model_engine().analyze({"attention.plain", {{"PREC", int(ElementType::f16)}, {"SOFTMAX", 0}, {"QSCALE", 16}},
                                          Problem{{70, 32, 2}}});
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.passes.size(), 3u);
    EXPECT_FALSE(r.may_be_wrong.empty());
    EXPECT_TRUE(result_to_json(r)["passes"][0]["median_ms"].is_null()) << "not measured yet";
    Measurement m;
    m.ok = true;
    m.timing = {1.5, 1.4, 1.6, {1.4, 1.5, 1.6}};
    m.validation = {true, true, 0, 0, 1e-3, "double (GPU)", ""};
    m.pass_ms = {0.5, 0.25, 0.75};
    r.apply(m);
    expect_round_trip(r);
    const RunResult back = result_from_json(result_to_json(r));
    ASSERT_EQ(back.passes.size(), 3u);
    EXPECT_EQ(back.passes, r.passes);
    EXPECT_DOUBLE_EQ(back.passes[2].median_ms, 0.75);
    EXPECT_EQ(back.may_be_wrong, r.may_be_wrong);
}

TEST(ResultJson, AFailedResultRoundTripsWithNullsWhereNothingWasMeasured) {
    const RunResult r = model_engine().analyze({"matmul.smem_tiled", {{"TILE", 7}}, Problem{{64, 64, 64}}});
    ASSERT_FALSE(r.ok);
    expect_round_trip(r);
    const ojson j = result_to_json(r);
    EXPECT_TRUE(j["registers"].is_null());
    EXPECT_TRUE(j["median_ms"].is_null());
    EXPECT_EQ(csv_cell(j, "/median_ms"), "");
    EXPECT_EQ(csv_cell(j, "/validation/passed"), "");   // a null parent: an empty cell
    EXPECT_EQ(csv_cell(j, "/params/TILE"), "7");
    EXPECT_EQ(csv_line({"a,b", "say \"hi\"", "plain"}), "\"a,b\",\"say \"\"hi\"\"\",plain\n");
}
