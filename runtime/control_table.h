// Control schedules from CSV files (`talon simulate --ctrl FILE.csv`): a header row of
// actuator names, then one row of numbers per step. Columns may come in any order; an
// actuator without a column gets 0; after the last row the last row is held.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "common/expected.h"
#include "frontend/model.h"

namespace talon::runtime {

struct ControlTable {
  std::vector<int> actuator;              // per column: the model's actuator index
  std::vector<std::vector<double>> rows;  // [steps][columns]
};

// Errors carry file:line: unknown or repeated actuator names, a row with the wrong number of
// values, text that is not a finite number, an empty file. A file that is not CSV at all
// (XML, binary) is one error; after a bad header no rows are checked; past ten bad rows the
// rest are counted, not listed.
Expected<ControlTable> read_control_csv(const std::string& path, const Model& model);
Expected<ControlTable> parse_control_csv(const std::string& text, const std::string& path,
                                         const Model& model);

// Writes step k's controls into ctrl[nu] (zeros for actuators without a column).
void controls_at(const ControlTable& table, int step, std::span<double> ctrl);

}  // namespace talon::runtime
