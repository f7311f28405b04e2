#include "frontend/load.h"

#include <cctype>
#include <fstream>
#include <sstream>

#include "frontend/compile.h"
#include "frontend/scene_options.h"

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

// An MJCF file places its bodies itself and --floating-base does not apply to it, so
// there is no base for base_pos to place. (A ground and servos fit any spec.)
Diagnostics check_mjcf_scene_options(const std::string& path, const LoadOptions& options) {
  if (!options.base_pos) return {};
  return single_error(path,
                      "--base-pos is for URDF files (with --floating-base); an MJCF "
                      "file places its bodies with <body pos=...>");
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
  if (root == "mujoco") {
    const Diagnostics misuse = check_mjcf_scene_options(path, options);
    if (misuse.has_errors()) return misuse;
  }
  Expected<ModelSpec> scene = with_scene_options(std::move(*spec), options);
  if (!scene) return scene.diagnostics();
  return compile_model(*scene);
}

}  // namespace talon
