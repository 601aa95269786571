// agentkit/browser/detail/page_part.hpp — which part of a large page a snapshot reads: the
// first nodes in document order, as whole subtrees to ask the accessibility tree for and the
// elements above them to read alone.
//
// A snapshot shows the page within a token budget, controls first in document order up to the
// first that does not fit. On a page many times its budget, everything after that control is
// cut whatever it is, so the engine reads the page's first part only (Accessibility.queryAXTree
// per subtree instead of Accessibility.getFullAXTree, whose cost is the whole page) and checks
// that the budget did cut a control within it: the refs shown are then exactly those of a full
// read. browser/impl/capture.hpp drives it; this header is the plan, a pure function of the DOM
// snapshot's document order.
#pragma once

#include <agentkit/browser/dom_index.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace agentkit::browser::detail {

/// The part of a document a snapshot reads.
struct page_part {
    /// Elements read alone (their own accessibility node), from the document down: the ones the
    /// part's end falls inside.
    std::vector<std::int64_t> ancestors;
    /// Subtrees read whole, in document order.
    std::vector<std::int64_t> units;
    std::size_t nodes = 0;  ///< DOM nodes the part covers
    std::size_t total = 0;  ///< DOM nodes of the document
    /// The first node (document order) the part does not cover; 0 when it covers the document.
    std::int64_t boundary = 0;
    std::size_t boundary_pos = 0;  ///< its position in document order (total when 0)
    /// A digest of every node from the boundary on: two reads of the same part tell whether the
    /// page changed beyond it.
    std::uint64_t tail_digest = 0;
    [[nodiscard]] bool whole() const noexcept { return boundary == 0; }
};

/// Subtree sizes (nodes, itself included) of every position of `o`.
inline std::vector<std::uint32_t> subtree_sizes(const dom_order& o) {
    std::vector<std::uint32_t> size(o.size(), 1);
    for (std::size_t i = o.size(); i-- > 0;)
        if (o.parent[i] != dom_order::no_parent) size[o.parent[i]] += size[i];
    return size;
}

/// Whether an element can be read alone with its children read one by one: its children are
/// all elements (pseudo-elements too: a list item's ::marker is read as its own subtree), text
/// or comments. A shadow root's content is only read through its host's subtree.
inline bool splittable(const dom_order& o, const std::vector<std::uint32_t>& size, std::size_t at) {
    if (o.type[at] != 1 && o.type[at] != 9) return false;
    for (std::size_t c = at + 1; c < at + size[at]; c += size[c]) {
        const auto t = o.type[c];
        if (t != 1 && t != 3 && t != 8 && t != 10) return false;
    }
    return true;
}

/// Plan the part of `o` to read: about `want` nodes from the start (never splitting a subtree of
/// at most `atom` nodes, nor a shadow host), or when `until` names a node of
/// `o`, exactly the nodes before it (the same part as a read that ended there). The whole
/// document when the part would cover it, or when `o` is empty or not one tree.
inline page_part plan_page_part(const dom_order& o, std::size_t want, std::size_t atom = 256, std::int64_t until = 0) {
    page_part part;
    part.total = o.size();
    part.boundary_pos = o.size();
    part.nodes = o.size();
    if (o.size() == 0 || o.parent[0] != dom_order::no_parent) return part;
    const auto size = subtree_sizes(o);
    if (size[0] != o.size()) return part;  // not one tree: read it whole
    std::size_t end = o.size();  // the part is [0, end)
    if (until != 0) {
        for (std::size_t i = 0; i < o.size(); ++i)
            if (o.id[i] == until) {
                end = i;
                break;
            }
        if (end == o.size()) return part;  // the node is gone: the whole document
    } else if (want < o.size()) {
        end = want;
    }
    if (end == 0) end = 1;
    // Move the end out of any subtree it splits that is small or cannot be split: the
    // shallowest such ancestor of the end's node is read whole.
    if (end < o.size()) {
        std::vector<std::size_t> chain;  // ancestors of `end`, innermost first
        for (auto p = o.parent[end]; p != dom_order::no_parent; p = o.parent[p]) chain.push_back(p);
        for (std::size_t k = chain.size(); k-- > 0;) {
            const std::size_t a = chain[k];
            if (a == 0) continue;
            if (size[a] <= atom || !splittable(o, size, a)) {
                end = a + size[a];
                break;
            }
        }
        if (!splittable(o, size, 0)) end = o.size();
    }
    if (end >= o.size()) return part;
    part.boundary = o.id[end];
    part.boundary_pos = end;
    part.nodes = end;
    for (std::size_t i = end; i < o.size(); ++i) part.tail_digest = part.tail_digest * 0x100000001b3ull + o.hash[i];
    // The end's ancestors are read alone; every child of one of them that lies before the end is
    // a whole subtree (a pre-order range that ends before `end`).
    std::vector<std::size_t> chain;
    for (auto p = o.parent[end]; p != dom_order::no_parent; p = o.parent[p]) chain.push_back(p);
    for (std::size_t k = chain.size(); k-- > 0;) {
        const std::size_t a = chain[k];
        part.ancestors.push_back(o.id[a]);
        const std::size_t next = k > 0 ? chain[k - 1] : end;  // the child on the way to the end
        for (std::size_t c = a + 1; c < next; c += size[c]) {
            if (o.type[c] == 8 || o.type[c] == 10 || (o.type[c] == 3 && o.minor[c])) continue;  // nothing to read
            part.units.push_back(o.id[c]);
        }
    }
    return part;
}

}  // namespace agentkit::browser::detail
