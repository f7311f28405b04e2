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

// A file that is plainly not a CSV of numbers (a model passed by mistake, a binary file)
// gets one error for the file, not one for every line.
bool looks_like_markup_or_binary(const std::string& first_line) {
  const auto start = first_line.find_first_not_of(" \t\r\xEF\xBB\xBF");
  return (start != std::string::npos && first_line[start] == '<') ||
         first_line.find('\0') != std::string::npos;
}

std::string actuator_list(const Model& model) {
  if (model.act_name.empty()) return "it has none";
  std::string names = "its actuators:";
  for (const std::string& name : model.act_name) names += " " + name;
  return names;
}

// Rows with errors listed before the rest are only counted.
constexpr int kMaxReportedRows = 10;

}  // namespace

Expected<ControlTable> parse_control_csv(const std::string& text, const std::string& path,
                                         const Model& model) {
  Diagnostics d;
  ControlTable table;
  std::istringstream in(text);
  std::string line;
  int line_number = 0;
  bool header = true;
  int bad_rows = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (blank(line)) continue;
    if (header && looks_like_markup_or_binary(line)) {
      d.error({path, line_number}, "",
              "not a CSV control file (it looks like XML or binary data): expected a header of "
              "actuator names, then one row of numbers per step");
      return d;
    }
    const std::vector<std::string> fields = split_fields(line);
    if (header) {
      header = false;
      for (const std::string& name : fields) {
        const int a = model.find_actuator(name);
        if (a < 0) {
          d.error({path, line_number}, "",
                  "no actuator named '" + name + "' in the model (" + actuator_list(model) + ")");
        } else {
          for (int seen : table.actuator)
            if (seen == a) d.error({path, line_number}, "", "actuator '" + name + "' repeats");
        }
        table.actuator.push_back(a);
      }
      if (d.has_errors()) return d;  // rows cannot be checked against a broken header
      continue;
    }
    Diagnostics row_errors;
    std::vector<double> row(fields.size());
    if (fields.size() != table.actuator.size()) {
      row_errors.error({path, line_number}, "",
                       std::to_string(fields.size()) + " values, the header names " +
                           std::to_string(table.actuator.size()) + " actuators");
    } else {
      for (std::size_t c = 0; c < fields.size(); ++c)
        if (!parse_number(fields[c], row[c]))
          row_errors.error({path, line_number}, "", "'" + fields[c] + "' is not a finite number");
    }
    if (row_errors.has_errors() && ++bad_rows <= kMaxReportedRows) d.append(row_errors);
    table.rows.push_back(std::move(row));
  }
  if (bad_rows > kMaxReportedRows)
    d.error({path, 0}, "",
            std::to_string(bad_rows - kMaxReportedRows) + " more rows with errors not shown");
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
