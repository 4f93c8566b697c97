// The off-CPU flame graph's model: see flame_model.hpp.
#include "flame_model.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace traceview {

namespace {

// The tree while it is built: children by name.
struct Building {
    std::uint64_t ns = 0, selfNs = 0;
    std::map<std::string, Building> children;
};

void convert(const std::string& name, const Building& b, FlameNode& out) {
    out.name = name;
    out.ns = b.ns;
    out.selfNs = b.selfNs;
    out.children.reserve(b.children.size());
    for (const auto& [n, c] : b.children) {
        out.children.emplace_back();
        convert(n, c, out.children.back());
    }
}

void place(const FlameNode& n, int depth, double x0, double width, double minWidth,
           std::vector<FlameBox>& out) {
    out.push_back({depth, x0, x0 + width, &n});
    if (!n.ns)
        return;
    double x = x0;
    for (const FlameNode& c : n.children) {
        const double w = width * double(c.ns) / double(n.ns);
        if (w >= minWidth)
            place(c, depth + 1, x, w, minWidth, out);
        x += w;
    }
}

std::string millis(std::uint64_t ns) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f ms", double(ns) / 1e6);
    return buf;
}

} // namespace

FlameNode flameTree(const ltt::OffCpuReport& report) {
    Building root;
    for (const ltt::OffCpuStack& s : report.stacks) {
        root.ns += s.ns;
        Building* at = &root;
        for (const std::string& f : s.frames) {
            at = &at->children[f];
            at->ns += s.ns;
        }
        at->selfNs += s.ns;
    }
    FlameNode out;
    convert("all", root, out);
    return out;
}

std::vector<FlameBox> flameLayout(const FlameNode& root, double minWidth) {
    std::vector<FlameBox> out;
    place(root, 0, 0.0, 1.0, minWidth, out);
    return out;
}

const FlameBox* flameBoxAt(const std::vector<FlameBox>& boxes, double x, int depth) {
    for (const FlameBox& b : boxes)
        if (b.depth == depth && x >= b.x0 && x < b.x1)
            return &b;
    return nullptr;
}

std::string flameLabel(const FlameNode& node, std::uint64_t totalNs) {
    char share[32];
    std::snprintf(share, sizeof share, "%.1f %%",
                  totalNs ? 100.0 * double(node.ns) / double(totalNs) : 0.0);
    return node.name + ": " + millis(node.ns) + ", " + share + " of " + millis(totalNs);
}

int flameDepth(const std::vector<FlameBox>& boxes) {
    int d = 0;
    for (const FlameBox& b : boxes)
        d = std::max(d, b.depth + 1);
    return d;
}

} // namespace traceview
