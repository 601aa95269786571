// agentkit/core/result.hpp — result<T>: a value or a structured error.
#pragma once

#include <agentkit/core/error.hpp>

#include <tl/expected.hpp>

#include <string>
#include <string_view>
#include <utility>

namespace agentkit {

/// A value of T, or an agentkit::error. Nothing in agentkit throws on bad input:
/// every fallible operation returns a result.
template <class T>
using result = tl::expected<T, error>;

/// The error side, for `return fail(...)`.
using unexpected_error = tl::unexpected<error>;

/// Build the error side of a result: `return agentkit::fail(errc::args_invalid, "...", "hint");`
[[nodiscard]] inline unexpected_error fail(std::string_view code, std::string message, std::string hint = {},
                                           json details = nullptr) {
    return unexpected_error(error(code, std::move(message), std::move(hint), std::move(details)));
}

/// Forward an existing error: `if (!r) return agentkit::fail(r.error());`
[[nodiscard]] inline unexpected_error fail(error e) { return unexpected_error(std::move(e)); }

}  // namespace agentkit
