// A small streaming JSON writer for machine-readable CLI output (`--json`).
// Keys and strings are escaped; non-finite numbers are written as null (JSON has no NaN).
#pragma once

#include <string>
#include <vector>

namespace talon {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(const std::string& name);
  JsonWriter& value(const std::string& text);
  JsonWriter& value(const char* text) { return value(std::string(text)); }
  JsonWriter& value(double number);
  JsonWriter& value(int number);
  JsonWriter& value(long long number);
  JsonWriter& value(std::size_t number) { return value(static_cast<long long>(number)); }
  JsonWriter& value(bool flag);
  JsonWriter& null();
  JsonWriter& array(const std::vector<double>& numbers);
  JsonWriter& array(const std::vector<std::string>& texts);

  const std::string& str() const { return out_; }

 private:
  void before_value();
  std::string out_;
  std::vector<bool> first_in_scope_;  // one entry per open object/array
  bool after_key_ = false;
};

std::string json_escape(const std::string& text);

}  // namespace talon
