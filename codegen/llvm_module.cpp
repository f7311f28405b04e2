#include "codegen/llvm_module.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <vector>

#include "codegen/c_style.h"
#include "common/diagnostics.h"
#include "ir/passes/schedule.h"

namespace talon::codegen {
namespace {

// Emits one scheduled Function as `void name(const double* noalias in, double* noalias out)`.
class FunctionEmitter {
 public:
  explicit FunctionEmitter(llvm::Module& module)
      : module_(module),
        builder_(module.getContext()),
        double_(llvm::Type::getDoubleTy(module.getContext())) {}

  // As the C renderer orders the code: each output stored as soon as its value exists, each
  // input loaded where it is first used. Storing every output at the end, or loading every
  // input at the start (the schedule's order), would keep all of them live across the
  // function (22 humanoids' linearize kernel has 23 k inputs and 88 k outputs).
  void emit(const ir::Schedule& s, const std::string& symbol) {
    llvm::Function* function = declare(symbol);
    builder_.SetInsertPoint(llvm::BasicBlock::Create(module_.getContext(), "entry", function));
    in_ = function->getArg(0);
    llvm::Argument* out = function->getArg(1);
    const std::vector<std::vector<int>> outputs_of = outputs_by_slot(s);
    slots_.assign(s.num_slots, nullptr);
    input_of_.assign(s.num_slots, -1);
    pair_sines_and_cosines(s);
    for (const ir::Instr& instr : s.instrs) {
      if (instr.op == ir::Op::Var && outputs_of[instr.result].empty()) {
        input_of_[instr.result] = instr.input_index;  // loaded at its first use
        continue;
      }
      slots_[instr.result] = value_of(instr);
      store_outputs(slots_[instr.result], outputs_of[instr.result], out);
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

  // Stores `value` to out[k] for each k of `outputs` (ascending); runs of kStoreLoopRun or
  // more (codegen/c_style.h) by a memset for +0, by a loop otherwise.
  void store_outputs(llvm::Value* value, const std::vector<int>& outputs, llvm::Value* out) {
    for_each_output_run(outputs, [&](int begin, int count) {
      if (count >= kStoreLoopRun) {
        store_run(value, begin, count, out);
        return;
      }
      for (int k = begin; k < begin + count; ++k) builder_.CreateStore(value, element(out, k));
    });
  }

  void store_run(llvm::Value* value, int begin, int count, llvm::Value* out) {
    const auto* constant = llvm::dyn_cast<llvm::ConstantFP>(value);
    if (constant != nullptr && constant->isZero() && !constant->isNegative()) {
      builder_.CreateMemSet(element(out, begin), builder_.getInt8(0),
                            static_cast<std::uint64_t>(count) * sizeof(double),
                            llvm::MaybeAlign(alignof(double)));
      return;
    }
    llvm::LLVMContext& context = module_.getContext();
    llvm::BasicBlock* before = builder_.GetInsertBlock();
    llvm::Function* function = before->getParent();
    llvm::BasicBlock* loop = llvm::BasicBlock::Create(context, "store_run", function);
    llvm::BasicBlock* after = llvm::BasicBlock::Create(context, "after_run", function);
    builder_.CreateBr(loop);
    builder_.SetInsertPoint(loop);
    llvm::PHINode* k = builder_.CreatePHI(builder_.getInt64Ty(), 2);
    k->addIncoming(builder_.getInt64(begin), before);
    builder_.CreateStore(value, builder_.CreateInBoundsGEP(double_, out, k));
    llvm::Value* next = builder_.CreateAdd(k, builder_.getInt64(1));
    k->addIncoming(next, loop);
    builder_.CreateCondBr(builder_.CreateICmpULT(next, builder_.getInt64(begin + count)), loop,
                          after);
    builder_.SetInsertPoint(after);
  }

  // Slot `slot`'s value, an input loaded here on its first use.
  llvm::Value* slot_value(int slot) {
    if (slots_[slot] == nullptr) slots_[slot] = load_input(input_of_[slot]);
    return slots_[slot];
  }

  llvm::Value* load_input(int index) {
    return builder_.CreateLoad(double_, element(in_, static_cast<std::size_t>(index)));
  }

  llvm::Value* value_of(const ir::Instr& instr) {
    auto arg = [&](int i) { return slot_value(instr.args[i]); };
    switch (instr.op) {
      case ir::Op::Const:
        return llvm::ConstantFP::get(double_, instr.constant);
      case ir::Op::Var:
        return load_input(instr.input_index);
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
        if (partner_[instr.result] >= 0) return sine_or_cosine(instr);
        return libm_call(instr);
      case ir::Op::Exp:
      case ir::Op::Log:
      case ir::Op::Tanh:
      case ir::Op::Atan2:
      case ir::Op::Min:
      case ir::Op::Max:
        return libm_call(instr);
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

  // partner_[slot]: for a sine whose argument also has its cosine taken (or the reverse), the
  // other one's slot. Both come from one call to sincos (glibc: the same reduction and
  // polynomials as sin and cos, the same results to the bit), about the cost of one of them:
  // every rotation's half-angle takes both (sin and cos were 2 % of MuJoCo's humanoid's run).
  void pair_sines_and_cosines(const ir::Schedule& s) {
    std::vector<int> sine_of(s.num_slots, -1), cosine_of(s.num_slots, -1);
    for (const ir::Instr& instr : s.instrs)
      if (instr.op == ir::Op::Sin)
        sine_of[instr.args[0]] = instr.result;
      else if (instr.op == ir::Op::Cos)
        cosine_of[instr.args[0]] = instr.result;
    partner_.assign(s.num_slots, -1);
    paired_value_.assign(s.num_slots, nullptr);
    for (int slot = 0; slot < s.num_slots; ++slot)
      if (sine_of[slot] >= 0 && cosine_of[slot] >= 0) {
        partner_[sine_of[slot]] = cosine_of[slot];
        partner_[cosine_of[slot]] = sine_of[slot];
      }
  }

  // A paired sine or cosine: the value the partner's sincos call left, or that call now.
  llvm::Value* sine_or_cosine(const ir::Instr& instr) {
    if (paired_value_[instr.result] != nullptr) return paired_value_[instr.result];
    llvm::Type* pointer = double_->getPointerTo();
    llvm::FunctionCallee sincos = module_.getOrInsertFunction(
        "sincos",
        llvm::FunctionType::get(builder_.getVoidTy(), {double_, pointer, pointer}, false));
    llvm::IRBuilder<> entry(&builder_.GetInsertBlock()->getParent()->getEntryBlock(),
                            builder_.GetInsertBlock()->getParent()->getEntryBlock().begin());
    llvm::Value* sine = entry.CreateAlloca(double_);
    llvm::Value* cosine = entry.CreateAlloca(double_);
    builder_.CreateCall(sincos, {slot_value(instr.args[0]), sine, cosine})->setDoesNotThrow();
    llvm::Value* sine_value = builder_.CreateLoad(double_, sine);
    llvm::Value* cosine_value = builder_.CreateLoad(double_, cosine);
    const bool is_sine = instr.op == ir::Op::Sin;
    paired_value_[partner_[instr.result]] = is_sine ? cosine_value : sine_value;
    return is_sine ? sine_value : cosine_value;
  }

  // A call to the double-precision libm function the op table names (sin, atan2, fmin...).
  llvm::Value* libm_call(const ir::Instr& instr) {
    const ir::OpInfo& info = ir::op_info(instr.op);
    std::vector<llvm::Type*> parameters(info.arity, double_);
    std::vector<llvm::Value*> arguments;
    for (int i = 0; i < info.arity; ++i) arguments.push_back(slot_value(instr.args[i]));
    llvm::FunctionCallee callee = module_.getOrInsertFunction(
        info.c_name, llvm::FunctionType::get(double_, parameters, false));
    llvm::CallInst* call = builder_.CreateCall(callee, arguments);
    call->setDoesNotThrow();
    return call;
  }

  llvm::Module& module_;
  llvm::IRBuilder<> builder_;
  llvm::Type* double_;
  // The function being emitted: its input array, each slot's value (null for an input not
  // loaded yet) and, for an input's slot, its index in the array.
  llvm::Value* in_ = nullptr;
  std::vector<llvm::Value*> slots_;
  std::vector<int> input_of_;
  // Sines and cosines of one argument (pair_sines_and_cosines).
  std::vector<int> partner_;
  std::vector<llvm::Value*> paired_value_;
};

}  // namespace

Diagnostics emit_llvm_functions(std::span<const ir::Function> functions, const std::string& prefix,
                                llvm::Module& module, const std::string& element) {
  FunctionEmitter emitter(module);
  ir::Scheduler scheduler;
  for (const ir::Function& f : functions) emitter.emit(scheduler(f), prefix + f.name);
  std::string problems;
  llvm::raw_string_ostream stream(problems);
  Diagnostics diagnostics;
  if (llvm::verifyModule(module, &stream)) {
    stream.flush();
    diagnostics.error({}, element, "the emitted LLVM IR is invalid (a Talon bug):\n" + problems);
  }
  return diagnostics;
}

}  // namespace talon::codegen
