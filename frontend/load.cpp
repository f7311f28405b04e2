#include "frontend/load.h"

#include <cctype>
#include <fstream>
#include <sstream>

#include "frontend/compile.h"

namespace talon {
namespace {

// The name of the first element of an XML text, skipping the declaration, comments,
// doctype and processing instructions. Empty when there is none.
std::string root_element_name(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size()) {
    i = text.find('<', i);
    if (i == std::string::npos) return {};
    if (text.compare(i, 4, "<!--") == 0) {
      i = text.find("-->", i);
      if (i == std::string::npos) return {};
      continue;
    }
    if (text.compare(i, 2, "<?") == 0 || text.compare(i, 2, "<!") == 0) {
      i = text.find('>', i);
      if (i == std::string::npos) return {};
      continue;
    }
    std::size_t end = i + 1;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) &&
           text[end] != '>' && text[end] != '/')
      ++end;
    return text.substr(i + 1, end - i - 1);
  }
  return {};
}

Diagnostics single_error(const std::string& path, const std::string& message) {
  Diagnostics diag;
  diag.error({path, 0}, "", message);
  return diag;
}

}  // namespace

Expected<Model> load_model(const std::string& path, const LoadOptions& options) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return single_error(path, "cannot open file");
  std::ostringstream text;
  text << file.rdbuf();
  const std::string root = root_element_name(text.str());
  Expected<ModelSpec> spec =
      root == "robot"    ? read_urdf_string(text.str(), path, options)
      : root == "mujoco" ? read_mjcf_string(text.str(), path, options)
                         : Expected<ModelSpec>(single_error(path,
                                                            "not a model file: the root element "
                                                            "must be <robot> (URDF) or <mujoco> "
                                                            "(MJCF), found <" +
                                                                root + ">"));
  if (!spec) return spec.diagnostics();
  return compile_model(*spec);
}

}  // namespace talon
