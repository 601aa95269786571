// agentkit/core/declared_order.hpp — a schema's properties written in the order they were declared.
//
// agentkit's `json` keeps an object's members ordered by key, so a tool whose arguments are
// declared (query, limit, offset) would reach a model, an MCP client or a gateway's client as
// (limit, offset, query). The declared order is remembered where it is known (a described type's
// schema; the text of a remote server's tool list) and `dump_declared` writes it back wherever
// agentkit puts JSON on the wire: the model client's requests, the MCP server's and client's
// messages. The values themselves stay plain `json`: JSON gives object members no meaning by
// order, so a reordering is never a change of value, only of what a reader sees first.
#pragma once

#include <agentkit/core/json.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace agentkit {

namespace detail {

/// The orders remembered in this process, keyed by the property names a `properties` object has
/// (sorted: its key order). Two schemas with the same names and different orders are told apart
/// by their content. Bounded: a remote server cannot make it grow without end.
class declared_orders {
public:
    static constexpr std::size_t max_entries = 4096;  ///< the orders kept; later ones are not remembered
    static constexpr std::size_t max_names = 1024;    ///< an object with more properties is not remembered

    static declared_orders& instance() {
        static declared_orders orders;
        return orders;
    }

    void remember(const json& properties, std::vector<std::string> order) {
        if (!properties.is_object() || properties.size() < 2 || properties.size() > max_names) return;
        std::string names = names_key(properties);
        std::string content = properties.dump(-1, ' ', false, json::error_handler_t::replace);
        std::unique_lock lock(m_);
        auto it = by_names_.find(names);
        if (it != by_names_.end())
            for (auto& e : it->second)
                if (e.content == content) {
                    e.order = std::move(order);
                    return;
                }
        if (count_.load(std::memory_order_relaxed) >= max_entries) return;  // full: not even its names are kept
        if (it == by_names_.end()) it = by_names_.emplace(std::move(names), std::vector<entry>{}).first;
        it->second.push_back({std::move(content), std::move(order)});
        count_.fetch_add(1, std::memory_order_release);
    }

    /// The remembered order of these properties, or nothing (never seen, or seen with other
    /// orders that its content does not tell apart).
    [[nodiscard]] std::optional<std::vector<std::string>> order_of(const json& properties) const {
        if (empty() || !properties.is_object() || properties.size() < 2) return std::nullopt;
        const std::string names = names_key(properties);
        std::shared_lock lock(m_);
        auto it = by_names_.find(names);
        if (it == by_names_.end() || it->second.empty()) return std::nullopt;
        const auto& list = it->second;
        const bool one_order = std::all_of(list.begin(), list.end(), [&](const entry& e) { return e.order == list.front().order; });
        if (one_order) return list.front().order;
        const std::string content = properties.dump(-1, ' ', false, json::error_handler_t::replace);
        for (const auto& e : list)
            if (e.content == content) return e.order;
        return std::nullopt;
    }

    [[nodiscard]] bool empty() const noexcept { return count_.load(std::memory_order_acquire) == 0; }

    /// The sets of names an order is kept for (never more than max_entries).
    [[nodiscard]] std::size_t name_sets() const {
        std::shared_lock lock(m_);
        return by_names_.size();
    }

private:
    struct entry {
        std::string content;
        std::vector<std::string> order;
    };
    static std::string names_key(const json& properties) {
        std::string k;
        for (auto it = properties.begin(); it != properties.end(); ++it) {
            k += it.key();
            k += '\x1f';
        }
        return k;
    }

    mutable std::shared_mutex m_;
    std::unordered_map<std::string, std::vector<entry>> by_names_;
    std::atomic<std::size_t> count_{0};
};

/// Whether `v` holds a member named "properties" whose value is an object, at any depth.
inline bool has_properties_member(const json& v) {
    if (v.is_object()) {
        for (auto it = v.begin(); it != v.end(); ++it)
            if ((it.key() == "properties" && it->is_object()) || has_properties_member(*it)) return true;
    } else if (v.is_array()) {
        for (const auto& e : v)
            if (has_properties_member(e)) return true;
    }
    return false;
}

/// The names of `properties` in their remembered order; names the order lacks follow, by key.
inline std::vector<std::string> ordered_names(const json& properties) {
    std::vector<std::string> out;
    if (!properties.is_object()) return out;
    if (auto order = declared_orders::instance().order_of(properties)) {
        for (auto& n : *order)
            if (properties.contains(n) && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(std::move(n));
    }
    for (auto it = properties.begin(); it != properties.end(); ++it)
        if (std::find(out.begin(), out.end(), it.key()) == out.end()) out.push_back(it.key());
    return out;
}

inline void write_declared(const json& v, std::string& out, bool is_properties, json::error_handler_t h);

inline void write_member(const std::string& key, const json& value, std::string& out, bool& first, json::error_handler_t h) {
    if (!first) out += ',';
    first = false;
    out += json(key).dump(-1, ' ', false, h);
    out += ':';
    write_declared(value, out, key == "properties" && value.is_object(), h);
}

inline void write_declared(const json& v, std::string& out, bool is_properties, json::error_handler_t h) {
    if (v.is_object()) {
        out += '{';
        bool first = true;
        if (is_properties) {
            for (const std::string& name : ordered_names(v)) write_member(name, v[name], out, first, h);
        } else {
            for (auto it = v.begin(); it != v.end(); ++it) write_member(it.key(), *it, out, first, h);
        }
        out += '}';
    } else if (v.is_array()) {
        out += '[';
        bool first = true;
        for (const auto& e : v) {
            if (!first) out += ',';
            first = false;
            write_declared(e, out, false, h);
        }
        out += ']';
    } else {
        out += v.dump(-1, ' ', false, h);
    }
}

/// A JSON reader that notes the member order of every object held by a member named
/// "properties", with the JSON pointer to it (no value is built).
class properties_order_reader : public nlohmann::json_sax<json> {
public:
    struct found {
        std::string pointer;
        std::vector<std::string> order;
    };
    std::vector<found> objects;

    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t&) override { return value(); }
    bool string(string_t&) override { return value(); }
    bool binary(binary_t&) override { return value(); }
    bool start_object(std::size_t) override { return open(true); }
    bool key(string_t& k) override {
        frames_.back().key = k;
        if (frames_.back().record && frames_.back().order.size() < declared_orders::max_names) frames_.back().order.push_back(k);
        return true;
    }
    bool end_object() override {
        if (frames_.back().record) objects.push_back({std::move(frames_.back().pointer), std::move(frames_.back().order)});
        frames_.pop_back();
        return true;
    }
    bool start_array(std::size_t) override { return open(false); }
    bool end_array() override {
        frames_.pop_back();
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

private:
    struct frame {
        bool object = false;
        bool record = false;
        std::string pointer;
        std::string key;        // the member being read (objects)
        std::size_t index = 0;  // the element being read (arrays)
        std::vector<std::string> order;
    };
    std::vector<frame> frames_;

    // The pointer token of the value about to be read in the innermost container.
    std::string next_token() {
        frame& f = frames_.back();
        if (!f.object) return std::to_string(f.index++);
        std::string t;
        for (char c : f.key) {
            if (c == '~') t += "~0";
            else if (c == '/') t += "~1";
            else t += c;
        }
        return t;
    }
    bool value() {
        if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
        return true;
    }
    bool open(bool object) {
        frame f;
        f.object = object;
        if (!frames_.empty()) {
            f.record = object && frames_.back().object && frames_.back().key == "properties";
            f.pointer = frames_.back().pointer + "/" + next_token();
        }
        frames_.push_back(std::move(f));
        return true;
    }
};

}  // namespace detail

/// Remembers that these schema properties (a JSON Schema's `properties` object) were declared in
/// `order`; `dump_declared` writes them so. Names the order lacks follow it, by key. Thread-safe.
inline void remember_declared_order(const json& properties, std::vector<std::string> order) {
    detail::declared_orders::instance().remember(properties, std::move(order));
}

/// Remembers the member order of every `properties` object in `text`, a JSON text that `parsed`
/// was read from (e.g. a server's tool list). Text that is not JSON, or that does not match
/// `parsed`, teaches nothing. Thread-safe.
inline void remember_declared_orders(std::string_view text, const json& parsed) {
    if (text.find("\"properties\"") == std::string_view::npos) return;
    detail::properties_order_reader reader;
    if (!json::sax_parse(text.begin(), text.end(), &reader, json::input_format_t::json, false)) return;
    for (auto& o : reader.objects) {
        const json::json_pointer at(o.pointer);
        if (!parsed.contains(at)) continue;
        const json& props = parsed.at(at);
        if (props.is_object() && props.size() == o.order.size()) remember_declared_order(props, std::move(o.order));
    }
}

/// The names of these properties in their declared order (by key when none is remembered).
[[nodiscard]] inline std::vector<std::string> declared_order(const json& properties) { return detail::ordered_names(properties); }

/// `v` as compact JSON text (as `v.dump()` writes it, with error handler `h`), every schema's
/// `properties` in its declared order where one is remembered. Every message agentkit sends
/// (model requests, MCP messages) is written with it; a host that sends agentkit's schemas on
/// its own (tools/export.hpp) uses it to keep their order.
[[nodiscard]] inline std::string dump_declared(const json& v, json::error_handler_t h = json::error_handler_t::strict) {
    if (detail::declared_orders::instance().empty() || !detail::has_properties_member(v)) return v.dump(-1, ' ', false, h);
    std::string out;
    detail::write_declared(v, out, false, h);
    return out;
}

}  // namespace agentkit
