// libFuzzer target: the search backends' response readers (search/searxng.hpp, brave.hpp,
// tavily.hpp, serper.hpp) on arbitrary bodies. The first byte picks the backend and the query's
// count; the rest is the body. Every body ends in results or a `search.malformed` error (never an
// exception, never a crash), and results hold no more hits than asked for, each with an http(s)
// URL.
#include <agentkit/search.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

template <class Adapter>
void read(std::string_view body, const agentkit::search::query& q) {
    auto r = Adapter::parse(body, q);
    if (!r) {
        if (!r.error().is(agentkit::errc::search_malformed) || r.error().message.empty()) __builtin_trap();
        (void)r.error().to_text();
        return;
    }
    if (r->hits.size() > static_cast<std::size_t>(q.count)) __builtin_trap();
    for (const auto& h : r->hits)
        if (h.url.rfind("http://", 0) != 0 && h.url.rfind("https://", 0) != 0) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    agentkit::search::query q;
    q.text = "fuzz";
    q.count = 1 + (data[0] >> 2U) % agentkit::search::max_count;
    q.page = 1 + (data[0] >> 2U) % 3;
    const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
    try {
        switch (data[0] % 4) {
            case 0: read<agentkit::search::searxng>(body, q); break;
            case 1: read<agentkit::search::brave>(body, q); break;
            case 2: read<agentkit::search::tavily>(body, q); break;
            default: read<agentkit::search::serper>(body, q); break;
        }
    } catch (...) {
        __builtin_trap();  // nothing leaves the SDK as an exception
    }
    return 0;
}
