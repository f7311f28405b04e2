#include "codegen/llvm_jit.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/OptimizationLevel.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <map>

#include "codegen/llvm_module.h"
#include "codegen/native_target.h"
#include "codegen/symbols.h"

namespace talon::codegen {

struct FunctionShape {
  int num_inputs = 0;
  int num_outputs = 0;
};

struct JitModule::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::map<std::string, FunctionShape> shapes;  // by function name
  std::string ir;
};

namespace {

const std::string kElement = "LLVM JIT";

Diagnostics jit_error(std::string message) {
  Diagnostics diagnostics;
  diagnostics.error({}, kElement, std::move(message));
  return diagnostics;
}

Diagnostics jit_error(const std::string& context, llvm::Error error) {
  return jit_error(context + ": " + llvm::toString(std::move(error)));
}

// LLVM's standard per-module O2 pipeline (what `opt -O2` runs), tuned for the host.
void optimize(llvm::Module& module, llvm::TargetMachine& target) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(&target);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2).run(module, modules);
}

std::string module_text(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  module.print(stream, nullptr);
  stream.flush();
  return text;
}

Expected<std::unique_ptr<llvm::TargetMachine>> host_target_machine() {
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) return jit_error("cannot describe the host CPU", builder.takeError());
  auto machine = builder->createTargetMachine();
  if (!machine) return jit_error("cannot create a target machine", machine.takeError());
  return std::move(*machine);
}

// A JIT that resolves undefined symbols (the libm functions) from the running process.
Expected<std::unique_ptr<llvm::orc::LLJIT>> create_jit() {
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) return jit_error("cannot create the JIT", jit.takeError());
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process) return jit_error("cannot search the process's symbols", process.takeError());
  (*jit)->getMainJITDylib().addGenerator(std::move(*process));
  return std::move(*jit);
}

// Builds, verifies and (optionally) optimises the LLVM module of `functions`.
Expected<std::unique_ptr<llvm::Module>> build_module(std::span<const ir::Function> functions,
                                                     const JitOptions& options,
                                                     llvm::LLVMContext& context) {
  Expected<std::unique_ptr<llvm::TargetMachine>> target = host_target_machine();
  if (!target) return target.diagnostics();
  auto module = std::make_unique<llvm::Module>("talon", context);
  module->setDataLayout((*target)->createDataLayout());
  module->setTargetTriple((*target)->getTargetTriple().str());
  if (Diagnostics emitted = emit_llvm_functions(functions, "", *module, kElement);
      emitted.has_errors())
    return emitted;
  if (options.optimize) optimize(*module, **target);
  return module;
}

Diagnostics check_names(std::span<const ir::Function> functions) {
  std::vector<std::string> names;
  for (const ir::Function& f : functions) names.push_back(f.name);
  Diagnostics diagnostics;
  check_symbols(names, diagnostics);
  return diagnostics;
}

}  // namespace

Expected<JitModule> JitModule::compile(std::span<const ir::Function> functions,
                                       const JitOptions& options) {
  Diagnostics names = check_names(functions);
  if (names.has_errors()) return names;
  if (!initialize_native_target()) return jit_error("LLVM has no native target for this host");
  auto context = std::make_unique<llvm::LLVMContext>();
  Expected<std::unique_ptr<llvm::Module>> module = build_module(functions, options, *context);
  if (!module) return module.diagnostics();
  auto impl = std::make_shared<Impl>();
  if (options.capture_ir) impl->ir = module_text(**module);
  for (const ir::Function& f : functions) {
    impl->shapes[f.name] = {static_cast<int>(f.inputs.size()), static_cast<int>(f.outputs.size())};
  }
  Expected<std::unique_ptr<llvm::orc::LLJIT>> jit = create_jit();
  if (!jit) return jit.diagnostics();
  impl->jit = std::move(*jit);
  if (llvm::Error error = impl->jit->addIRModule(
          llvm::orc::ThreadSafeModule(std::move(*module), std::move(context)))) {
    return jit_error("cannot add the module to the JIT", std::move(error));
  }
  return JitModule(std::move(impl));
}

Expected<JitFunction> JitModule::function(const std::string& name) const {
  auto shape = impl_->shapes.find(name);
  if (shape == impl_->shapes.end()) return jit_error("no function '" + name + "' in the module");
  // The first lookup generates the machine code; unresolved symbols surface here.
  auto symbol = impl_->jit->lookup(name);
  if (!symbol) return jit_error("cannot compile '" + name + "'", symbol.takeError());
  auto pointer = reinterpret_cast<JitFunction::Pointer>(symbol->getAddress());
  return JitFunction(impl_, pointer, name, shape->second.num_inputs, shape->second.num_outputs);
}

const std::string& JitModule::llvm_ir() const {
  return impl_->ir;
}

Expected<JitFunction> jit_compile(const ir::Function& function, const JitOptions& options) {
  Expected<JitModule> module = JitModule::compile(std::span(&function, 1), options);
  if (!module) return module.diagnostics();
  return module->function(function.name);
}

}  // namespace talon::codegen
