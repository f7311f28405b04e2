#include "codegen/ir_object.h"

#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>

#include "codegen/clang_compiler.h"
#include "codegen/llvm_module.h"
#include "codegen/native_target.h"
#include "kernel_code_hash.h"  // generated: TALON_KERNEL_CODE_HASH (codegen/CMakeLists.txt)

namespace talon::codegen {
namespace {

Diagnostics object_error(const std::string& name, const std::string& message) {
  Diagnostics d;
  d.error({name, 0}, "", message);
  return d;
}

}  // namespace

Expected<std::string> compile_ir_object(std::span<const ir::Function> functions,
                                        const std::string& prefix, const std::string& name) {
  if (!initialize_native_target())
    return object_error(name, "LLVM has no native target for this host");
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return object_error(name,
                        "cannot describe the host CPU: " + llvm::toString(builder.takeError()));
  builder->setRelocationModel(llvm::Reloc::PIC_);
  // -O1's code generator, as clang's for the rest of the unit. Without optimisation
  // (CodeGenOpt::None: fast instruction selection and register allocation) the humanoid's
  // kernels compile in a tenth of the time but its steps take 35 % longer.
  builder->setCodeGenOptLevel(llvm::CodeGenOpt::Less);
  auto target = builder->createTargetMachine();
  if (!target)
    return object_error(name,
                        "cannot create a target machine: " + llvm::toString(target.takeError()));
  llvm::LLVMContext context;
  llvm::Module module("talon-kernels", context);
  module.setDataLayout((*target)->createDataLayout());
  module.setTargetTriple((*target)->getTargetTriple().str());
  if (Diagnostics emitted = emit_llvm_functions(functions, prefix, module, name);
      emitted.has_errors())
    return emitted;
  // No IR passes: the SSA is already folded and CSE'd (hash-consed, ir/expr.h), and LLVM's
  // -O1 pipeline on it changed neither the humanoid's step time nor its results (bench/
  // RESULTS.md, twenty-seventh session) while adding a fifth to its build.
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream stream(object);
  llvm::legacy::PassManager passes;
  if ((*target)->addPassesToEmitFile(passes, stream, nullptr, llvm::CGFT_ObjectFile))
    return object_error(name, "LLVM cannot emit an object file for this host");
  passes.run(module);
  return std::string(object.data(), object.size());
}

std::string ir_object_identity() {
  return std::string("LLVM " LLVM_VERSION_STRING
                     " from the SSA (Talon's sources " TALON_KERNEL_CODE_HASH
                     ", no IR passes, -O1 code generation, ") +
         host_cpu_description() + ")";
}

}  // namespace talon::codegen
