// The C99 renderer: the shape of its text, its name checks, and that the text compiles as
// strict C99 (`cc -std=c99 -pedantic -Wall -Wextra -Werror -c`).
#include <catch2/catch.hpp>

#include "codegen/c_renderer.h"
#include "codegen/codegen_fixtures.h"
#include "ir/passes/schedule.h"

using namespace talon;
using namespace talon::codegen;
using namespace talon::codegen::testing;

namespace {

// Compiles `code` as strict C99 to an object file, after `#include "generated.h"` holding
// `header` when there is one; returns the compiler's output on failure, "" on success.
std::string strict_c99_errors(const std::string& code, const std::string& header = "",
                              const std::string& extra_flags = "") {
  TemporaryDirectory scratch = scratch_directory();
  const std::filesystem::path source = scratch.path() / "generated.c";
  if (!header.empty()) write_file(scratch.path() / "generated.h", header);
  write_file(source, (header.empty() ? "" : "#include \"generated.h\"\n") + code);
  std::string output;
  const int status =
      run_shell("cc -std=c99 -pedantic -Wall -Wextra -Werror " + extra_flags + " -c '" +
                    source.string() + "' -o '" + (scratch.path() / "generated.o").string() + "'",
                output);
  return status == 0 ? std::string() : "cc failed:\n" + output;
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("C renderer prints one SSA line per instruction, outputs in order", "[codegen][c]") {
  ir::Graph graph;
  ir::Expr x = graph.variable("x"), y = graph.variable("y");
  ir::Function f{"axpy", {x, y}, {2.0 * x + y, x}};
  Expected<RenderedSource> source = render_c(std::span(&f, 1));
  REQUIRE(source.ok());
  const std::string& code = source->code;
  CHECK(code.find("#include <math.h>") != std::string::npos);
  CHECK(code.find("static inline void axpy(const double* restrict in, double* restrict out)") !=
        std::string::npos);
  const ir::Schedule s = ir::schedule(f);
  CHECK(count(code, "  const double t") == s.instrs.size());
  CHECK(code.find("= in[0];") != std::string::npos);
  CHECK(code.find("= in[1];") != std::string::npos);
  CHECK(code.find(" = 2.0;") != std::string::npos);
  CHECK(code.find("out[0] = t") != std::string::npos);
  CHECK(code.find("out[1] = t0;") != std::string::npos);  // x is loaded first, into t0
  REQUIRE(source->functions.size() == 1);
  CHECK(source->functions[0].symbol == "axpy");
  CHECK(source->functions[0].num_inputs == 2);
  CHECK(source->functions[0].num_outputs == 2);
  CHECK(source->functions[0].work_size == 0);
}

TEST_CASE("C renderer options: prefix, linkage, float precision", "[codegen][c]") {
  ir::Graph graph;
  ir::Expr x = graph.variable("x");
  ir::Function f{"g", {x}, {ir::sqrt(x) * (1.0 / 3.0) + ir::min(x, graph.constant(-0.5))}};
  CRenderOptions options;
  options.prefix = "robot_";
  options.exported = true;
  options.precision = ir::CPrecision::Float;
  Expected<RenderedSource> source = render_c(std::span(&f, 1), options);
  REQUIRE(source.ok());
  const std::string& code = source->code;
  CHECK(code.find("\nvoid robot_g(const float* restrict in, float* restrict out)") !=
        std::string::npos);
  CHECK(code.find("static") == std::string::npos);
  CHECK(code.find("const float t") != std::string::npos);
  CHECK(code.find("double") == std::string::npos);
  CHECK(code.find("sqrtf(") != std::string::npos);
  CHECK(code.find("fminf(") != std::string::npos);
  CHECK(code.find("0.33333334f") != std::string::npos);  // 1/3 to float, shortest round trip
  CHECK(code.find("-0.5f") != std::string::npos);
  CHECK(source->functions[0].symbol == "robot_g");
}

TEST_CASE("C renderer prints constants that round-trip exactly", "[codegen][c]") {
  ir::Graph graph;
  ir::Expr x = graph.variable("x");
  ir::Function f{"constants", {x}, {x * 1e-300, x + 0.1, x * (1.0 / 3.0)}};
  Expected<RenderedSource> source = render_c(std::span(&f, 1));
  REQUIRE(source.ok());
  CHECK(source->code.find("1e-300") != std::string::npos);
  CHECK(source->code.find("0.1;") != std::string::npos);
  CHECK(source->code.find("0.3333333333333333;") != std::string::npos);
}

TEST_CASE("C renderer rejects unusable or repeated symbols with diagnostics", "[codegen][c]") {
  ir::Graph graph;
  ir::Expr x = graph.variable("x");
  auto named = [&](const std::string& name) { return ir::Function{name, {x}, {x + 1.0}}; };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"2fast", "not a C identifier"},      {"has space", "not a C identifier"},
      {"", "not a C identifier"},           {"double", "reserved word"},
      {"__hidden", "reserved (C99 7.1.3)"}, {"_Upper", "reserved (C99 7.1.3)"},
      {"sin", "shadow the libm function"},  {"fminf", "shadow the libm function"},
  };
  for (const auto& [name, message] : cases) {
    ir::Function f = named(name);
    Expected<RenderedSource> source = render_c(std::span(&f, 1));
    INFO("name '" << name << "'");
    REQUIRE_FALSE(source.ok());
    CHECK(source.diagnostics().format().find(message) != std::string::npos);
    CHECK(source.diagnostics().format().find("symbol '" + name + "'") != std::string::npos);
  }
  std::vector<ir::Function> twice = {named("f"), named("f")};
  Expected<RenderedSource> duplicate = render_c(twice);
  REQUIRE_FALSE(duplicate.ok());
  CHECK(duplicate.diagnostics().format().find("defined twice") != std::string::npos);
  // A prefix makes a libm name usable.
  ir::Function sin_function = named("sin");
  CRenderOptions prefixed;
  prefixed.prefix = "model_";
  CHECK(render_c(std::span(&sin_function, 1), prefixed).ok());
}

TEST_CASE("C renderer output compiles as strict C99 for every op", "[codegen][c]") {
  FunctionSet set;
  set.functions.push_back(every_op_function(*set.graph));
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    RandomFunctionOptions random;
    random.seed = seed;
    set.functions.push_back(random_function(*set.graph, "random" + std::to_string(seed), random));
  }
  // Degenerate shapes: no inputs, no outputs, unused inputs.
  ir::Expr unused = set.graph->variable("unused");
  set.functions.push_back({"constant_only", {}, {set.graph->constant(4.0)}});
  set.functions.push_back({"no_outputs", {unused}, {}});
  set.functions.push_back({"empty", {}, {}});
  // Locals; a work array in one function; a work array split into 7-statement helpers.
  const std::vector<std::pair<CStorage, int>> storages = {
      {CStorage::Locals, 0}, {CStorage::WorkArray, 0}, {CStorage::WorkArray, 7}};
  for (ir::CPrecision precision : {ir::CPrecision::Double, ir::CPrecision::Float}) {
    for (const auto& [storage, per_chunk] : storages) {
      for (bool exported : {false, true}) {
        CRenderOptions options;
        options.precision = precision;
        options.storage = storage;
        options.statements_per_chunk = per_chunk;
        options.exported = exported;
        options.prefix = "talon_";
        Expected<RenderedSource> source = render_c(set.functions, options);
        REQUIRE(source.ok());
        // The header provides the prototypes -Wmissing-prototypes wants for exported code.
        const std::string header = exported ? render_c_header(*source, options) : "";
        const std::string flags = exported ? "-Wmissing-prototypes" : "";
        INFO("float " << (precision == ir::CPrecision::Float) << ", work array "
                      << (storage == CStorage::WorkArray) << ", chunk " << per_chunk
                      << ", exported " << exported);
        CHECK(strict_c99_errors(source->code, header, flags) == "");
      }
    }
  }
}

TEST_CASE("C renderer output fails to compile when the C is wrong (the check can fail)",
          "[codegen][c]") {
  CHECK(strict_c99_errors("static inline void f(double* out) { out[0] = undefined_name; }") != "");
  // An unused parameter is a -Wextra error: why the renderer emits (void)in.
  CHECK(strict_c99_errors("void f(const double* in, double* out);\n"
                          "void f(const double* in, double* out) { out[0] = 1.0; }") != "");
}

TEST_CASE("C header declares the exported functions with their sizes", "[codegen][c]") {
  ir::Graph graph;
  ir::Expr x = graph.variable("x"), y = graph.variable("y");
  ir::Function f{"energy", {x, y}, {x * y, ir::sin(x) * ir::cos(y) * x}};
  CRenderOptions options;
  options.exported = true;
  options.prefix = "m_";
  options.storage = CStorage::WorkArray;
  Expected<RenderedSource> source = render_c(std::span(&f, 1), options);
  REQUIRE(source.ok());
  const std::string header = render_c_header(*source, options);
  CHECK(header.find("void m_energy(const double* in, double* out, double* work);") !=
        std::string::npos);
  CHECK(header.find("#define m_energy_NUM_INPUTS 2") != std::string::npos);
  CHECK(header.find("#define m_energy_NUM_OUTPUTS 2") != std::string::npos);
  CHECK(header.find("#define m_energy_WORK_SIZE " +
                    std::to_string(source->functions[0].work_size)) != std::string::npos);
  CHECK(header.find("extern \"C\"") != std::string::npos);
}

TEST_CASE("Work-array storage reuses slots after their last reader", "[codegen][c]") {
  // A chain t_{k+1} = sin(t_k) * x: at most a couple of values are live at any time.
  ir::Graph graph;
  ir::Expr x = graph.variable("x");
  ir::Expr value = x;
  for (int k = 0; k < 100; ++k) value = ir::sin(value) * x;
  ir::Function chain{"chain", {x}, {value}};
  CRenderOptions options;
  options.storage = CStorage::WorkArray;
  Expected<RenderedSource> source = render_c(std::span(&chain, 1), options);
  REQUIRE(source.ok());
  const int work_size = source->functions[0].work_size;
  CHECK(work_size >= 1);
  CHECK(work_size <= 2);
  CHECK(source->code.find("double* restrict work") != std::string::npos);
  CHECK(source->code.find("work[" + std::to_string(work_size) + "]") == std::string::npos);
  CHECK(source->code.find("const double t") == std::string::npos);
  // The final product goes straight to out[0]: it has no reader.
  CHECK(source->code.find("out[0] = work[0];") == std::string::npos);
  CHECK(source->code.find("out[0] = in[0] * work[0];") != std::string::npos);
}

TEST_CASE("Work-array bodies split into helpers of bounded size", "[codegen][c]") {
  ir::Graph graph;
  ir::Expr x = graph.variable("x");
  ir::Expr value = x;
  for (int k = 0; k < 10; ++k) value = ir::cos(value) + x;  // 20 statements
  std::vector<ir::Function> functions = {{"series", {x}, {value}}};
  CRenderOptions options;
  options.storage = CStorage::WorkArray;
  options.statements_per_chunk = 8;
  Expected<RenderedSource> source = render_c(functions, options);
  REQUIRE(source.ok());
  const std::string& code = source->code;
  const std::vector<std::string> expected = {"series", "series_part0", "series_part1",
                                             "series_part2"};
  CHECK(source->symbols == expected);
  CHECK(code.find("static TALON_NOINLINE void series_part2(const double* restrict in, "
                  "double* restrict out, double* restrict work) {") != std::string::npos);
  CHECK(code.find("series_part3") == std::string::npos);
  CHECK(code.find("  series_part0(in, out, work);\n  series_part1(in, out, work);\n"
                  "  series_part2(in, out, work);\n}") != std::string::npos);
  // The default chunk size leaves a 20-statement body whole.
  options.statements_per_chunk = CRenderOptions().statements_per_chunk;
  Expected<RenderedSource> whole = render_c(functions, options);
  REQUIRE(whole.ok());
  CHECK(whole->code.find("_part") == std::string::npos);
  // A helper name that another function already uses is a diagnostic.
  functions.push_back({"series_part1", {x}, {x}});
  options.statements_per_chunk = 8;
  Expected<RenderedSource> clash = render_c(functions, options);
  REQUIRE_FALSE(clash.ok());
  CHECK(clash.diagnostics().format().find("symbol 'series_part1': defined twice") !=
        std::string::npos);
}
