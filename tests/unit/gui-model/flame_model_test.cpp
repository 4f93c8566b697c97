// The off-CPU flame graph's model: stacks merged frame by frame, boxes as
// wide as their time, children in name order, narrow boxes left out.
#include "flame_model.hpp"

#include <gtest/gtest.h>

using traceview::FlameBox;
using traceview::FlameNode;

namespace {

ltt::OffCpuReport report() {
    ltt::OffCpuReport r;
    // 6 ms in a pipe read, 3 ms sleeping, 1 ms in another task's read.
    r.stacks.push_back({{"cat", "main", "read", "pipe_read"}, 6000000, 2});
    r.stacks.push_back({{"cat", "main", "sleep"}, 3000000, 1});
    r.stacks.push_back({{"sh", "read", "pipe_read"}, 1000000, 1});
    return r;
}

const FlameNode* child(const FlameNode& n, const std::string& name) {
    for (const FlameNode& c : n.children)
        if (c.name == name)
            return &c;
    return nullptr;
}

} // namespace

TEST(FlameModel, StacksMergeFrameByFrame) {
    const FlameNode root = traceview::flameTree(report());
    EXPECT_EQ(root.name, "all");
    EXPECT_EQ(root.ns, 10000000u);
    ASSERT_EQ(root.children.size(), 2u);
    EXPECT_EQ(root.children[0].name, "cat"); // name order
    EXPECT_EQ(root.children[1].name, "sh");
    const FlameNode* main = child(root.children[0], "main");
    ASSERT_NE(main, nullptr);
    EXPECT_EQ(main->ns, 9000000u);
    EXPECT_EQ(main->selfNs, 0u);
    const FlameNode* sleep = child(*main, "sleep");
    ASSERT_NE(sleep, nullptr);
    EXPECT_EQ(sleep->selfNs, 3000000u);
    EXPECT_TRUE(sleep->children.empty());
}

TEST(FlameModel, BoxesAreAsWideAsTheirTime) {
    const FlameNode root = traceview::flameTree(report());
    const auto boxes = traceview::flameLayout(root);
    // all, cat, main, read, pipe_read, sleep, sh, read, pipe_read.
    ASSERT_EQ(boxes.size(), 9u);
    EXPECT_EQ(traceview::flameDepth(boxes), 5);
    EXPECT_EQ(boxes[0].node, &root);
    EXPECT_DOUBLE_EQ(boxes[0].x1, 1.0);
    const FlameBox* cat = traceview::flameBoxAt(boxes, 0.1, 1);
    ASSERT_NE(cat, nullptr);
    EXPECT_EQ(cat->node->name, "cat");
    EXPECT_DOUBLE_EQ(cat->x0, 0.0);
    EXPECT_DOUBLE_EQ(cat->x1, 0.9);
    const FlameBox* sleep = traceview::flameBoxAt(boxes, 0.8, 3);
    ASSERT_NE(sleep, nullptr);
    EXPECT_EQ(sleep->node->name, "sleep"); // after "read" under main
    EXPECT_DOUBLE_EQ(sleep->x0, 0.6);
    EXPECT_DOUBLE_EQ(sleep->x1, 0.9);
    const FlameBox* sh = traceview::flameBoxAt(boxes, 0.95, 3); // sh;read;pipe_read
    ASSERT_NE(sh, nullptr);
    EXPECT_EQ(sh->node->name, "pipe_read");
    EXPECT_EQ(traceview::flameBoxAt(boxes, 0.8, 4), nullptr); // nothing above sleep
    EXPECT_EQ(traceview::flameLabel(*sleep->node, root.ns), "sleep: 3.000 ms, 30.0 % of 10.000 ms");
    // Boxes under 15 % of the width go, with what is above them.
    EXPECT_EQ(traceview::flameLayout(root, 0.15).size(), 6u);
    // An empty report: the root alone.
    const FlameNode none = traceview::flameTree({});
    EXPECT_EQ(traceview::flameLayout(none).size(), 1u);
}
