#include "runtime/control_table.h"

#include <charconv>
#include <cmath>
#include <sstream>

#include "common/read_file.h"

namespace talon::runtime {
namespace {

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) {
    const auto begin = field.find_first_not_of(" \t\r");
    const auto end = field.find_last_not_of(" \t\r");
    fields.push_back(begin == std::string::npos ? "" : field.substr(begin, end - begin + 1));
  }
  if (!line.empty() && line.back() == ',') fields.push_back("");
  return fields;
}

bool parse_number(const std::string& text, double& value) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end && std::isfinite(value);
}

bool blank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

}  // namespace

Expected<ControlTable> parse_control_csv(const std::string& text, const std::string& path,
                                         const Model& model) {
  Diagnostics d;
  ControlTable table;
  std::istringstream in(text);
  std::string line;
  int line_number = 0;
  bool header = true;
  while (std::getline(in, line)) {
    ++line_number;
    if (blank(line)) continue;
    const std::vector<std::string> fields = split_fields(line);
    if (header) {
      header = false;
      for (const std::string& name : fields) {
        const int a = model.find_actuator(name);
        if (a < 0) {
          d.error({path, line_number}, "", "no actuator named '" + name + "' in the model");
        } else {
          for (int seen : table.actuator)
            if (seen == a) d.error({path, line_number}, "", "actuator '" + name + "' repeats");
        }
        table.actuator.push_back(a);
      }
      continue;
    }
    if (fields.size() != table.actuator.size()) {
      d.error({path, line_number}, "",
              std::to_string(fields.size()) + " values, the header names " +
                  std::to_string(table.actuator.size()) + " actuators");
      continue;
    }
    std::vector<double> row(fields.size());
    for (std::size_t c = 0; c < fields.size(); ++c)
      if (!parse_number(fields[c], row[c]))
        d.error({path, line_number}, "", "'" + fields[c] + "' is not a finite number");
    table.rows.push_back(std::move(row));
  }
  if (header) d.error({path, 0}, "", "empty control file: a header of actuator names is needed");
  if (d.has_errors()) return d;
  return table;
}

Expected<ControlTable> read_control_csv(const std::string& path, const Model& model) {
  Expected<std::string> text = read_text_file(path, "cannot read the control file");
  if (!text) return text.diagnostics();
  return parse_control_csv(*text, path, model);
}

void controls_at(const ControlTable& table, int step, std::span<double> ctrl) {
  std::fill(ctrl.begin(), ctrl.end(), 0.0);
  if (table.rows.empty()) return;
  const std::vector<double>& row =
      table.rows[std::min<std::size_t>(static_cast<std::size_t>(step), table.rows.size() - 1)];
  for (std::size_t c = 0; c < row.size(); ++c) ctrl[table.actuator[c]] = row[c];
}

}  // namespace talon::runtime
