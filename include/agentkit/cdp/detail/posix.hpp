// agentkit/cdp/detail/posix.hpp — small POSIX helpers shared by the CDP transports:
// an owning file descriptor, deadline arithmetic for poll(), an eventfd used to wake a
// blocked reader, and errno text. Linux only (eventfd).
#pragma once

#include <agentkit/core/result.hpp>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <string>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace agentkit::cdp::detail {

using clock = std::chrono::steady_clock;

/// Thread-safe text for an errno value.
[[nodiscard]] inline std::string errno_message(int e) { return std::system_category().message(e); }

/// An owning file descriptor (closed on destruction), move-only.
class unique_fd {
public:
    unique_fd() noexcept = default;
    explicit unique_fd(int fd) noexcept : fd_(fd) {}
    unique_fd(const unique_fd&) = delete;
    unique_fd& operator=(const unique_fd&) = delete;
    unique_fd(unique_fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
    unique_fd& operator=(unique_fd&& o) noexcept {
        if (this != &o) reset(std::exchange(o.fd_, -1));
        return *this;
    }
    ~unique_fd() { reset(); }

    [[nodiscard]] int get() const noexcept { return fd_; }
    [[nodiscard]] explicit operator bool() const noexcept { return fd_ >= 0; }
    int release() noexcept { return std::exchange(fd_, -1); }
    void reset(int fd = -1) noexcept {
        if (fd_ >= 0) ::close(fd_);  // close() is not retried on EINTR on Linux: the fd is gone either way
        fd_ = fd;
    }

private:
    int fd_ = -1;
};

/// now + d without overflowing (d may be huge to mean "forever").
[[nodiscard]] inline clock::time_point deadline_after(std::chrono::milliseconds d) noexcept {
    const auto now = clock::now();
    if (d.count() < 0) return now;
    if (d >= std::chrono::duration_cast<std::chrono::milliseconds>(clock::time_point::max() - now))
        return clock::time_point::max();
    return now + d;
}

/// Milliseconds left until `deadline` as a poll() timeout (rounded up; -1 = forever).
[[nodiscard]] inline int poll_timeout(clock::time_point deadline) noexcept {
    if (deadline == clock::time_point::max()) return -1;
    const auto now = clock::now();
    if (deadline <= now) return 0;
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
    return ms > INT_MAX ? INT_MAX : static_cast<int>(ms);
}

/// poll() retried on EINTR until the deadline. Returns poll()'s result (0 = timed out).
inline int poll_until(pollfd* fds, nfds_t n, clock::time_point deadline) noexcept {
    for (;;) {
        const int r = ::poll(fds, n, poll_timeout(deadline));
        if (r >= 0 || errno != EINTR) return r;
    }
}

/// An eventfd that another thread writes to wake a reader blocked in poll().
/// Once notified it stays readable (we never drain it): it signals a terminal state.
class wake_fd {
public:
    wake_fd() noexcept : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
    [[nodiscard]] bool valid() const noexcept { return static_cast<bool>(fd_); }
    [[nodiscard]] int fd() const noexcept { return fd_.get(); }
    void notify() const noexcept {
        const std::uint64_t one = 1;
        [[maybe_unused]] const auto n = ::write(fd_.get(), &one, sizeof one);
    }

private:
    unique_fd fd_;
};

/// Duplicate `fd` to a descriptor >= `min_fd` with close-on-exec set, closing the original.
[[nodiscard]] inline unique_fd move_fd_above(unique_fd fd, int min_fd) noexcept {
    if (!fd || fd.get() >= min_fd) return fd;
    const int moved = ::fcntl(fd.get(), F_DUPFD_CLOEXEC, min_fd);
    if (moved < 0) return unique_fd{};
    return unique_fd(moved);
}

/// Set or clear O_NONBLOCK.
inline bool set_nonblocking(int fd, bool on) noexcept {
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0) return false;
    const int want = on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
    return want == flags || ::fcntl(fd, F_SETFL, want) == 0;
}

}  // namespace agentkit::cdp::detail
