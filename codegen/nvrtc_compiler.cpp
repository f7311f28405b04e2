#include "codegen/nvrtc_compiler.h"

#include <dlfcn.h>
#include <nvrtc.h>

#include <algorithm>

namespace talon::codegen {
namespace {

const std::string kElement = "NVRTC";

// NVRTC is opened on first use, not linked: loading and relocating libnvrtc costs every
// process ~12 ms at start (a third of a cached `talon simulate`'s start; bench/RESULTS.md,
// twenty-sixth session), and only CUDA compilation needs it. The types are nvrtc.h's own.

// Every NVRTC function used here, each a member of NvrtcLibrary under its own name.
#define TALON_NVRTC_FUNCTIONS(X) \
  X(nvrtcCompileProgram)         \
  X(nvrtcCreateProgram)          \
  X(nvrtcDestroyProgram)         \
  X(nvrtcGetCUBIN)               \
  X(nvrtcGetCUBINSize)           \
  X(nvrtcGetErrorString)         \
  X(nvrtcGetNumSupportedArchs)   \
  X(nvrtcGetPTX)                 \
  X(nvrtcGetPTXSize)             \
  X(nvrtcGetProgramLog)          \
  X(nvrtcGetProgramLogSize)      \
  X(nvrtcGetSupportedArchs)      \
  X(nvrtcVersion)

struct NvrtcLibrary {
  void* handle = nullptr;
  std::string error;  // why it did not open
#define TALON_NVRTC_MEMBER(name) decltype(&::name) name = nullptr;
  TALON_NVRTC_FUNCTIONS(TALON_NVRTC_MEMBER)
#undef TALON_NVRTC_MEMBER
};

template <class Function>
void resolve(NvrtcLibrary& library, Function& function, const char* name) {
  function = reinterpret_cast<Function>(dlsym(library.handle, name));
  if (function == nullptr && library.error.empty())
    library.error = std::string(TALON_NVRTC_LIBRARY) + " has no " + name;
}

NvrtcLibrary open_nvrtc() {
  NvrtcLibrary library;
  library.handle = dlopen(TALON_NVRTC_LIBRARY, RTLD_NOW | RTLD_LOCAL);  // found at configure time
  if (library.handle == nullptr) {
    library.error = std::string("cannot load NVRTC: ") + dlerror();
    return library;
  }
#define TALON_NVRTC_RESOLVE(name) resolve(library, library.name, #name);
  TALON_NVRTC_FUNCTIONS(TALON_NVRTC_RESOLVE)
#undef TALON_NVRTC_RESOLVE
  return library;
}

// The process's NVRTC, opened once (never closed: its programs may outlive any caller).
const NvrtcLibrary& nvrtc() {
  static const NvrtcLibrary library = open_nvrtc();
  return library;
}

bool nvrtc_available() {
  return nvrtc().error.empty();
}

// Owns an nvrtcProgram so every early return destroys it.
class Program {
 public:
  Program() = default;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  ~Program() {
    if (handle_ != nullptr) nvrtc().nvrtcDestroyProgram(&handle_);
  }
  nvrtcProgram* address() { return &handle_; }
  nvrtcProgram get() const { return handle_; }

 private:
  nvrtcProgram handle_ = nullptr;
};

// Appends an error naming the failed call unless `result` is success.
bool succeeded(nvrtcResult result, const char* call, const std::string& program_name,
               Diagnostics& diagnostics) {
  if (result == NVRTC_SUCCESS) return true;
  diagnostics.error({program_name, 0}, kElement,
                    std::string(call) + " failed: " + nvrtc().nvrtcGetErrorString(result));
  return false;
}

// The program log ("" when empty or unreadable); every call is checked.
std::string program_log(const Program& program, const std::string& program_name,
                        Diagnostics& diagnostics) {
  std::size_t size = 0;
  if (!succeeded(nvrtc().nvrtcGetProgramLogSize(program.get(), &size), "nvrtcGetProgramLogSize",
                 program_name, diagnostics)) {
    return {};
  }
  std::string log(size, '\0');
  if (size > 0 && !succeeded(nvrtc().nvrtcGetProgramLog(program.get(), log.data()),
                             "nvrtcGetProgramLog", program_name, diagnostics)) {
    return {};
  }
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

std::vector<std::string> option_strings(const NvrtcOptions& options) {
  const char* kind = options.output == NvrtcOutput::Ptx ? "compute_" : "sm_";
  std::vector<std::string> strings = {
      "--gpu-architecture=" + std::string(kind) + std::to_string(options.compute_capability),
      std::string("--fmad=") + (options.fused_multiply_add ? "true" : "false")};
  strings.insert(strings.end(), options.extra_options.begin(), options.extra_options.end());
  return strings;
}

bool check_architecture(const NvrtcOptions& options, Diagnostics& diagnostics) {
  const std::vector<int> supported = nvrtc_supported_architectures();
  if (supported.empty() || std::find(supported.begin(), supported.end(),
                                     options.compute_capability) != supported.end()) {
    return true;  // an unknown list lets NVRTC itself judge the option
  }
  std::string list;
  for (int arch : supported) list += (list.empty() ? "" : ", ") + std::to_string(arch);
  diagnostics.error({options.program_name, 0}, kElement,
                    "compute capability " + std::to_string(options.compute_capability) +
                        " is not supported by NVRTC " + nvrtc_version() + " (supported: " + list +
                        ")");
  return false;
}

// The compiled PTX or CUBIN of a successfully compiled program.
bool read_output(const Program& program, const NvrtcOptions& options, std::string& bytes,
                 Diagnostics& diagnostics) {
  const bool ptx = options.output == NvrtcOutput::Ptx;
  std::size_t size = 0;
  nvrtcResult result = ptx ? nvrtc().nvrtcGetPTXSize(program.get(), &size)
                           : nvrtc().nvrtcGetCUBINSize(program.get(), &size);
  if (!succeeded(result, ptx ? "nvrtcGetPTXSize" : "nvrtcGetCUBINSize", options.program_name,
                 diagnostics)) {
    return false;
  }
  bytes.assign(size, '\0');
  result = ptx ? nvrtc().nvrtcGetPTX(program.get(), bytes.data())
               : nvrtc().nvrtcGetCUBIN(program.get(), bytes.data());
  if (!succeeded(result, ptx ? "nvrtcGetPTX" : "nvrtcGetCUBIN", options.program_name,
                 diagnostics)) {
    return false;
  }
  // The PTX size counts its terminating NUL; CUBIN is binary and kept whole.
  if (ptx && !bytes.empty() && bytes.back() == '\0') bytes.pop_back();
  return true;
}

}  // namespace

Expected<std::string> nvrtc_compile(std::string_view source, const NvrtcOptions& options) {
  Diagnostics diagnostics;
  if (!nvrtc_available()) {
    diagnostics.error({options.program_name, 0}, kElement, nvrtc().error);
    return diagnostics;
  }
  if (!check_architecture(options, diagnostics)) return diagnostics;
  const std::string text(source);  // NVRTC wants a NUL-terminated string
  Program program;
  if (!succeeded(nvrtc().nvrtcCreateProgram(program.address(), text.c_str(),
                                            options.program_name.c_str(), 0, nullptr, nullptr),
                 "nvrtcCreateProgram", options.program_name, diagnostics)) {
    return diagnostics;
  }
  const std::vector<std::string> strings = option_strings(options);
  std::vector<const char*> arguments;
  for (const std::string& s : strings) arguments.push_back(s.c_str());
  const nvrtcResult compiled = nvrtc().nvrtcCompileProgram(
      program.get(), static_cast<int>(arguments.size()), arguments.data());
  const std::string log = program_log(program, options.program_name, diagnostics);
  if (compiled != NVRTC_SUCCESS) {
    diagnostics.error({options.program_name, 0}, kElement,
                      std::string("compilation failed (") + nvrtc().nvrtcGetErrorString(compiled) +
                          ")" + (log.empty() ? "" : ":\n" + log));
    return diagnostics;
  }
  if (!log.empty()) diagnostics.note({options.program_name, 0}, kElement, log);
  std::string bytes;
  if (!read_output(program, options, bytes, diagnostics)) return diagnostics;
  return Expected<std::string>(std::move(bytes), std::move(diagnostics));
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  if (!nvrtc_available() || nvrtc().nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<int> nvrtc_supported_architectures() {
  int count = 0;
  if (!nvrtc_available()) return {};
  if (nvrtc().nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) return {};
  std::vector<int> archs(count);
  if (nvrtc().nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS) return {};
  std::sort(archs.begin(), archs.end());
  return archs;
}

}  // namespace talon::codegen
