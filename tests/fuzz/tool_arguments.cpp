// libFuzzer target: argument parsing and validation against the generated schemas. The first
// byte picks a tool, the rest is the arguments' JSON text. Every call ends in a result or a
// structured error (never an exception), and an error names the problem.
#include <agentkit/agentkit.hpp>

#include "fuzz/fuzz_tools.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    static const char* names[] = {"echo", "draw", "fails", "throws", "ecko"};
    const char* name = names[data[0] % 5];
    std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    auto args = agentkit::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (args.is_discarded()) args = agentkit::json(std::string(text));  // not JSON: a string where an object is due
    try {
        auto r = fuzz::box.call(name, args);
        if (!r) {
            if (r.error().message.empty()) __builtin_trap();
            (void)r.error().to_text();
            (void)r.error().to_json().dump();
        } else {
            (void)r->joined_text();
        }
    } catch (...) {
        __builtin_trap();  // nothing leaves the SDK as an exception
    }
    return 0;
}
