// PidTable (analysis/analyze/include/libltt/pid_table.hpp): pids in the paged range,
// at its page edges and outside it are found; unset pids find 0; pages are
// allocated only for the pids set; a move hands the pages over.
#include <cstdint>
#include <gtest/gtest.h>
#include <libltt/pid_table.hpp>
#include <utility>

namespace {

constexpr std::int32_t kPids[] = {1,       4095,       4096, 8191, 3999999, 4194303,
                                  4194304, 2147483647, -1,   -5,   0};

TEST(PidTable, FindsWhatWasSetAndNothingElse) {
    ltt::PidTable t;
    for (std::int32_t pid : kPids)
        EXPECT_EQ(t.find(pid), 0u) << pid;
    std::uint32_t v = 1;
    for (std::int32_t pid : kPids)
        t.set(pid, v++);
    v = 1;
    for (std::int32_t pid : kPids)
        EXPECT_EQ(t.find(pid), v++) << pid;
    for (std::int32_t pid : {2, 4094, 4097, 8192, 4000000, 4194302, 2147483646, -2})
        EXPECT_EQ(t.find(pid), 0u) << pid;
    t.set(4096, 77);
    EXPECT_EQ(t.find(4096), 77u);
    EXPECT_EQ(t.find(4095), 2u);
}

TEST(PidTable, MemoryFollowsThePagesUsed) {
    ltt::PidTable t;
    const std::size_t empty = t.memoryBytes();
    EXPECT_LT(empty, 64u); // no page
    t.set(4194303, 1);     // the last page of 4M pids: one page, not the table
    t.set(4194000, 2);     // the same page
    const std::size_t onePage = t.memoryBytes();
    EXPECT_GE(onePage, 4096 * sizeof(std::uint32_t));
    EXPECT_LT(onePage, 2 * 4096 * sizeof(std::uint32_t));
    t.set(1, 3);
    EXPECT_LT(t.memoryBytes(), 3 * 4096 * sizeof(std::uint32_t));
}

TEST(PidTable, TransformAndMove) {
    ltt::PidTable t;
    std::uint32_t v = 1;
    for (std::int32_t pid : kPids)
        t.set(pid, v++);
    t.transform([](std::uint32_t x) { return x * 10; });
    ltt::PidTable moved(std::move(t));
    v = 1;
    for (std::int32_t pid : kPids) {
        EXPECT_EQ(moved.find(pid), 10 * v++) << pid;
        EXPECT_EQ(t.find(pid), 0u) << pid; // NOLINT(bugprone-use-after-move): left empty
    }
    t.set(4096, 5); // the emptied table is usable, and separate
    EXPECT_EQ(t.find(4096), 5u);
    EXPECT_EQ(moved.find(4096), 30u);
    ltt::PidTable assigned;
    assigned.set(7, 1);
    assigned = std::move(moved);
    EXPECT_EQ(assigned.find(7), 0u);
    EXPECT_EQ(assigned.find(4194303), 60u);
}

} // namespace
