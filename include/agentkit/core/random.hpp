// agentkit/core/random.hpp — unpredictable bytes from the kernel: the one source of agentkit's
// tokens, session ids, requestState references, nonces and keys.
//
//   std::string id = agentkit::random_hex(16);       // 32 hex digits; "" when there is no source
//   std::array<unsigned char, 32> key{};
//   if (!agentkit::random_bytes(key.data(), key.size())) ...  // refuse to go on
//
// getrandom(2), else /dev/urandom. There is no fallback to a clock or a counter: a caller that
// gets false (or an empty string) fails closed rather than hand out something guessable.
#pragma once

#include <agentkit/core/base64.hpp>

#include <cerrno>
#include <cstddef>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/random.h>
#include <sys/types.h>
#include <unistd.h>

namespace agentkit {

/// Fill `out` with `n` bytes from the kernel's generator; false when it could not give them all.
[[nodiscard]] inline bool random_bytes(void* out, std::size_t n) noexcept {
    auto* p = static_cast<unsigned char*>(out);
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = ::getrandom(p + got, n - got, 0);
        if (r > 0) got += static_cast<std::size_t>(r);
        else if (r < 0 && errno == EINTR) continue;
        else break;
    }
    if (got < n) {  // a kernel without getrandom: /dev/urandom
        const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        while (fd >= 0 && got < n) {
            const ssize_t r = ::read(fd, p + got, n - got);
            if (r > 0) got += static_cast<std::size_t>(r);
            else if (r < 0 && errno == EINTR) continue;
            else break;
        }
        if (fd >= 0) ::close(fd);
    }
    return got == n;
}

/// `n` random bytes as 2·n lower-case hex digits; "" when there is no source.
[[nodiscard]] inline std::string random_hex(std::size_t n) {
    std::vector<unsigned char> b(n);
    if (!random_bytes(b.data(), n)) return {};
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * n);
    for (const unsigned char u : b) {
        out += hex[u >> 4U];
        out += hex[u & 15U];
    }
    return out;
}

/// `n` random bytes, base64url-encoded without padding (RFC 4648 §5); "" when there is no source.
[[nodiscard]] inline std::string random_base64url(std::size_t n) {
    std::vector<unsigned char> b(n);
    if (!random_bytes(b.data(), n)) return {};
    std::string t = base64_encode(b.data(), b.size());
    for (char& c : t) c = c == '+' ? '-' : c == '/' ? '_' : c;
    while (!t.empty() && t.back() == '=') t.pop_back();
    return t;
}

}  // namespace agentkit
