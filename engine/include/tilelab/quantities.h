// The named quantities of one result: what a drill asks for ("ask"), what a lesson's
// <!-- check: --> line checks, what the CLI prints with --quantity and what the Compare tab plots.
// One table, one vocabulary: a name here is the same everywhere, and strings/zh.json translates
// it under quantity.<name> (quantity_label()). Besides the table, every formula and extra of the
// variant's cost model is a quantity by its own name ("mma_sync, total").
//
// A new quantity is one row of kQuantities in engine/src/model/quantities.cpp (and its quantity.* key in
// strings/*.json when the app shows it).
#pragma once
#include <string>
#include <vector>
#include "tilelab/result.h"

namespace tilelab {

struct Quantity {
    const char* name;    // "blocks per SM"
    const char* unit;    // "", "bytes", "%", "ms", "FLOP/B" ...
    bool needs_gpu;      // measured on a GPU: nothing in model mode
    // The value of one result; false when it has none (not compiled, nothing measured, no limit).
    bool (*value)(const RunResult& r, double& out);
};

// The table, in the order drills and the CLI list it.
const std::vector<Quantity>& quantities();
// A row by name; nullptr for a formula or extra of the cost model, or an unknown name.
const Quantity* find_quantity(const std::string& name);
// The names of the table.
std::vector<std::string> quantity_names();
// A quantity of one result: a row of the table, else a formula or extra of the model by its
// quantity name. False when it has none of that name or no value for it.
bool quantity_value(const RunResult& r, const std::string& name, double& out);
// True for a quantity only a GPU can give ("time").
bool quantity_needs_gpu(const std::string& name);

}  // namespace tilelab
