// agentkit/session/workers.hpp — how an agent_session runs the parallel-safe calls of one
// response on a bounded number of threads, and times what it runs. Internal to session/session.hpp.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

namespace agentkit {

namespace detail {
/// Run f(0..n-1) on up to `max_threads` threads (the caller's included). f must not throw.
template <class F>
void run_bounded(std::size_t n, std::size_t max_threads, F&& f) {
    if (n == 0) return;
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        for (;;) {
            const std::size_t i = next.fetch_add(1);
            if (i >= n) return;
            f(i);
        }
    };
    std::vector<std::thread> threads;
    const std::size_t extra = std::min(n, std::max<std::size_t>(max_threads, 1)) - 1;
    for (std::size_t t = 0; t < extra; ++t) {
        try {
            threads.emplace_back(worker);
        } catch (const std::system_error&) {
            break;  // no more threads: the remaining workers absorb the work
        }
    }
    worker();
    for (auto& t : threads) t.join();
}

[[nodiscard]] inline double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace detail

}  // namespace agentkit
