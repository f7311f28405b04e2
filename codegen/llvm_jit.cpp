#include "codegen/llvm_jit.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/OptimizationLevel.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <map>
#include <vector>

#include "codegen/native_target.h"
#include "codegen/symbols.h"
#include "ir/passes/schedule.h"

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

// Emits one scheduled Function as `void name(const double* noalias in, double* noalias out)`.
class FunctionEmitter {
 public:
  explicit FunctionEmitter(llvm::Module& module)
      : module_(module),
        builder_(module.getContext()),
        double_(llvm::Type::getDoubleTy(module.getContext())) {}

  void emit(const ir::Function& f) {
    const ir::Schedule s = ir::schedule(f);
    llvm::Function* function = declare(f.name);
    builder_.SetInsertPoint(llvm::BasicBlock::Create(module_.getContext(), "entry", function));
    llvm::Argument* in = function->getArg(0);
    llvm::Argument* out = function->getArg(1);
    std::vector<llvm::Value*> slots(s.num_slots, nullptr);
    for (const ir::Instr& instr : s.instrs) slots[instr.result] = value_of(instr, slots, in);
    for (std::size_t k = 0; k < s.output_slots.size(); ++k) {
      builder_.CreateStore(slots[s.output_slots[k]], element(out, k));
    }
    builder_.CreateRetVoid();
  }

 private:
  llvm::Function* declare(const std::string& name) {
    llvm::Type* pointer = double_->getPointerTo();
    auto* type = llvm::FunctionType::get(builder_.getVoidTy(), {pointer, pointer}, false);
    auto* function = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, module_);
    function->addFnAttr(llvm::Attribute::NoUnwind);
    // restrict in the C renderer: in, out never overlap, and neither escapes.
    for (unsigned i = 0; i < 2; ++i) {
      function->addParamAttr(i, llvm::Attribute::NoAlias);
      function->addParamAttr(i, llvm::Attribute::NoCapture);
    }
    function->addParamAttr(0, llvm::Attribute::ReadOnly);
    function->getArg(0)->setName("in");
    function->getArg(1)->setName("out");
    return function;
  }

  llvm::Value* element(llvm::Value* array, std::size_t index) {
    return builder_.CreateConstInBoundsGEP1_64(double_, array, index);
  }

  llvm::Value* value_of(const ir::Instr& instr, const std::vector<llvm::Value*>& slots,
                        llvm::Value* in) {
    auto arg = [&](int i) { return slots[instr.args[i]]; };
    switch (instr.op) {
      case ir::Op::Const:
        return llvm::ConstantFP::get(double_, instr.constant);
      case ir::Op::Var:
        return builder_.CreateLoad(double_, element(in, instr.input_index));
      case ir::Op::Add:
        return builder_.CreateFAdd(arg(0), arg(1));
      case ir::Op::Sub:
        return builder_.CreateFSub(arg(0), arg(1));
      case ir::Op::Mul:
        return builder_.CreateFMul(arg(0), arg(1));
      case ir::Op::Div:
        return builder_.CreateFDiv(arg(0), arg(1));
      case ir::Op::Neg:
        return builder_.CreateFNeg(arg(0));
      case ir::Op::Sqrt:
        return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, arg(0));
      case ir::Op::Abs:
        return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, arg(0));
      case ir::Op::Sin:
      case ir::Op::Cos:
      case ir::Op::Exp:
      case ir::Op::Log:
      case ir::Op::Tanh:
      case ir::Op::Atan2:
      case ir::Op::Min:
      case ir::Op::Max:
        return libm_call(instr, slots);
      // As the C code's `a < b ? 1.0 : 0.0`: ordered compares are false on NaN.
      case ir::Op::Lt:
        return one_or_zero(builder_.CreateFCmpOLT(arg(0), arg(1)));
      case ir::Op::Le:
        return one_or_zero(builder_.CreateFCmpOLE(arg(0), arg(1)));
      // As `c != 0.0 ? a : b`: unordered-or-not-equal, so a NaN condition picks a.
      case ir::Op::Select:
        return builder_.CreateSelect(
            builder_.CreateFCmpUNE(arg(0), llvm::ConstantFP::get(double_, 0.0)), arg(1), arg(2));
    }
    TALON_INTERNAL_ASSERT(false, "unhandled op in the LLVM emitter");
    return nullptr;
  }

  llvm::Value* one_or_zero(llvm::Value* condition) {
    return builder_.CreateSelect(condition, llvm::ConstantFP::get(double_, 1.0),
                                 llvm::ConstantFP::get(double_, 0.0));
  }

  // A call to the double-precision libm function the op table names (sin, atan2, fmin...).
  llvm::Value* libm_call(const ir::Instr& instr, const std::vector<llvm::Value*>& slots) {
    const ir::OpInfo& info = ir::op_info(instr.op);
    std::vector<llvm::Type*> parameters(info.arity, double_);
    std::vector<llvm::Value*> arguments;
    for (int i = 0; i < info.arity; ++i) arguments.push_back(slots[instr.args[i]]);
    llvm::FunctionCallee callee = module_.getOrInsertFunction(
        info.c_name, llvm::FunctionType::get(double_, parameters, false));
    llvm::CallInst* call = builder_.CreateCall(callee, arguments);
    call->setDoesNotThrow();
    return call;
  }

  llvm::Module& module_;
  llvm::IRBuilder<> builder_;
  llvm::Type* double_;
};

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
  FunctionEmitter emitter(*module);
  for (const ir::Function& f : functions) emitter.emit(f);
  std::string problems;
  llvm::raw_string_ostream stream(problems);
  if (llvm::verifyModule(*module, &stream)) {
    stream.flush();
    return jit_error("the emitted LLVM IR is invalid (a Talon bug):\n" + problems);
  }
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
