#include "ir/lower/program.h"

#include "common/diagnostics.h"

namespace talon::ir {

const char* row_kind_name(RowKind kind) {
  switch (kind) {
    case RowKind::Joint:
      return "joint";
    case RowKind::Limit:
      return "limit";
    case RowKind::ContactNormal:
      return "contact_normal";
    case RowKind::Friction:
      return "friction";
    case RowKind::Servo:
      return "servo";
  }
  return "?";
}

namespace {
const Slice* find_slice(const std::vector<Slice>& slices, const std::string& name) {
  for (const Slice& s : slices)
    if (s.name == name) return &s;
  return nullptr;
}
}  // namespace

void Kernel::add_input(const std::string& name, const std::vector<Expr>& values) {
  inputs.push_back(
      {name, static_cast<int>(function.inputs.size()), static_cast<int>(values.size())});
  function.inputs.insert(function.inputs.end(), values.begin(), values.end());
}

void Kernel::add_output(const std::string& name, const std::vector<Expr>& values) {
  outputs.push_back(
      {name, static_cast<int>(function.outputs.size()), static_cast<int>(values.size())});
  function.outputs.insert(function.outputs.end(), values.begin(), values.end());
}

const Slice* Kernel::input(const std::string& name) const {
  return find_slice(inputs, name);
}
const Slice* Kernel::output(const std::string& name) const {
  return find_slice(outputs, name);
}

const Kernel* ResidualProgram::find_kernel(const std::string& name) const {
  for (const Kernel& k : kernels)
    if (k.function.name == name) return &k;
  return nullptr;
}

const Kernel& ResidualProgram::kernel(const std::string& name) const {
  const Kernel* k = find_kernel(name);
  TALON_INTERNAL_ASSERT(k != nullptr, "no kernel named " + name);
  return *k;
}

const RowBlock* ResidualProgram::block(const std::string& name) const {
  for (const RowBlock& b : blocks)
    if (b.name == name) return &b;
  return nullptr;
}

std::map<std::string, int> ResidualProgram::param_indices() const {
  std::map<std::string, int> out;
  for (std::size_t i = 0; i < param_info.size(); ++i)
    out[param_info[i].name] = static_cast<int>(i);
  return out;
}

}  // namespace talon::ir
