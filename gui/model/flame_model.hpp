// What the off-CPU flame graph shows, from libltt's OffCpuReport (the
// stacks traceanalyze --offcpu --folded writes): the stacks merged into a
// tree, frame by frame from the root, and the tree laid out as boxes the
// way FlameGraph's flamegraph.pl draws it (a box per frame, as wide as the
// blocked time spent below it, its children side by side above it in name
// order). No toolkit: gui/widgets/flame_view.cpp only paints the boxes.
#pragma once

#include <cstdint>
#include <libltt/offcpu.hpp>
#include <string>
#include <vector>

namespace traceview {

struct FlameNode {
    std::string name;
    std::uint64_t ns = 0;            // blocked time of the stacks through this frame
    std::uint64_t selfNs = 0;        // of the stacks that end here
    std::vector<FlameNode> children; // by name
};

// The root ("all", every stack's time) and the tree under it.
FlameNode flameTree(const ltt::OffCpuReport& report);

// One box: its row (0: the root, at the bottom), its horizontal extent as
// fractions of the root's width, and its frame.
struct FlameBox {
    int depth = 0;
    double x0 = 0, x1 = 0;
    const FlameNode* node = nullptr;
};

// The boxes of `root`'s tree, parents before their children; a box
// narrower than `minWidth` (a fraction of the root's) is left out with
// everything above it.
std::vector<FlameBox> flameLayout(const FlameNode& root, double minWidth = 0.0005);

// The box at horizontal fraction `x` in row `depth`, or null.
const FlameBox* flameBoxAt(const std::vector<FlameBox>& boxes, double x, int depth);

// "pipe_read: 10.980 ms, 45.2 % of 24.300 ms": a box's text for the
// tooltip and the status line.
std::string flameLabel(const FlameNode& node, std::uint64_t totalNs);

// The rows the boxes take (the deepest box's depth + 1).
int flameDepth(const std::vector<FlameBox>& boxes);

} // namespace traceview
