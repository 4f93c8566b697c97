// Kernel-state variables and strace-style system calls (syscall_args.hpp):
// variable names, VARS records decoded and described, calls formatted with
// their arguments, and the tracker that joins entry, arguments, file names
// and exit.
#include "trace_builder.hpp"

#include <cstring>
#include <gtest/gtest.h>
#include <libltt/event_format.hpp>
#include <libltt/syscall_args.hpp>
#include <vector>

using ltt::test::TraceBuilder;

namespace {

// A VARS record's details: the changed word, nr, then the values.
std::vector<std::byte> vars(std::uint32_t changed, std::uint32_t nr,
                            std::initializer_list<std::uint64_t> values) {
    std::vector<std::byte> b(8 + 8 * values.size());
    std::memcpy(b.data(), &changed, 4);
    std::memcpy(b.data() + 4, &nr, 4);
    std::size_t i = 0;
    for (std::uint64_t v : values)
        std::memcpy(b.data() + 8 + 8 * i++, &v, 8);
    return b;
}

std::string call(std::uint32_t nr, std::initializer_list<std::uint64_t> args,
                 std::vector<std::string> paths = {}) {
    std::vector<std::uint64_t> a(args);
    std::string out;
    ltt::appendSyscall(out, nr, a.data(), static_cast<unsigned>(a.size()), paths.data(),
                       static_cast<unsigned>(paths.size()));
    return out;
}

// Every event of `b`'s trace, described; exit lines with the tracker's call.
std::vector<std::string> walk(TraceBuilder& b) {
    auto bytes = b.bytes();
    auto r = ltt::TraceReader::openMemory(bytes, "t", nullptr);
    std::vector<std::string> lines;
    ltt::SyscallTracker t;
    for (auto c = r->begin(); c.valid(); c.next()) {
        t.feed(c.event());
        if (!t.exitLine().empty())
            lines.push_back(t.exitLine());
    }
    return lines;
}

constexpr std::uint64_t kAtFdcwd = static_cast<std::uint64_t>(-100);

} // namespace

TEST(SyscallArgs, VariableNames) {
    EXPECT_EQ(ltt::varName(LTT_VAR_ARGS), "args");
    EXPECT_EQ(ltt::varName(LTT_VAR_MINFLT), "minflt");
    EXPECT_EQ(ltt::varName(LTT_VAR_COUNT), "");
    EXPECT_EQ(ltt::parseVarList("pid,PPID"), LTT_VAR_BIT(LTT_VAR_PID) | LTT_VAR_BIT(LTT_VAR_PPID));
    EXPECT_EQ(ltt::parseVarList("all"), std::uint32_t(LTT_VAR_MASK_ALL));
    std::string bad;
    EXPECT_FALSE(ltt::parseVarList("pid,,uid", &bad));
    EXPECT_EQ(bad, "");
    EXPECT_FALSE(ltt::parseVarList("pid,nr_running", &bad));
    EXPECT_EQ(bad, "nr_running");
    EXPECT_EQ(ltt::varNames().substr(0, 17), "args,pid,ppid,pgi");
}

TEST(SyscallArgs, FormatsCommonCallsLikeStrace) {
    EXPECT_EQ(call(257, {kAtFdcwd, 0x7ffc, 0, 0}, {"/etc/passwd"}),
              "openat(AT_FDCWD, \"/etc/passwd\", O_RDONLY)");
    EXPECT_EQ(call(257, {5, 0x7ffc, 0x241, 0644}),
              "openat(5, 0x7ffc, O_WRONLY|O_CREAT|O_TRUNC, 0644)");
    EXPECT_EQ(call(0, {3, 0x7ffc0000, 4096}), "read(3, 0x7ffc0000, 4096)");
    EXPECT_EQ(call(3, {3}), "close(3)");
    EXPECT_EQ(call(9, {0, 8192, 3, 0x22, static_cast<std::uint64_t>(-1), 0}),
              "mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, NULL)");
    EXPECT_EQ(call(10, {0x1000, 4096, 0}), "mprotect(0x1000, 4096, PROT_NONE)");
    EXPECT_EQ(call(56, {0x1200011, 0, 0, 0x7f00, 0}),
              "clone(CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, NULL, NULL, 0x7f00, NULL)");
    EXPECT_EQ(call(41, {2, 0x80001, 0}), "socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, 0)");
    EXPECT_EQ(call(62, {42, 9}), "kill(42, SIGKILL)");
    EXPECT_EQ(call(165, {0x10, 0x20, 0x30, 0, 0}, {"none", "/mnt"}),
              "mount(\"none\", \"/mnt\", 0x30, 0, NULL)");
    EXPECT_EQ(call(166, {0x20, 2}, {"/mnt"}), "umount2(\"/mnt\", MNT_DETACH)");
    // Calls without a table entry: hex; unknown numbers by number.
    EXPECT_EQ(call(39, {}), "getpid()");
    EXPECT_EQ(call(228, {1, 0x7ffc}), "clock_gettime(0x1, 0x7ffc)");
    EXPECT_EQ(call(9999, {1}), "syscall_9999(0x1)");
    // Fewer arguments recorded than the table knows: those shown.
    EXPECT_EQ(call(0, {3}), "read(3)");
    // A file name with a newline cannot forge a line.
    EXPECT_EQ(call(2, {1, 0, 0}, {"a\nb"}), "open(\"a\\nb\", O_RDONLY)");
}

TEST(SyscallArgs, ReturnValues) {
    auto ret = [](std::uint32_t nr, std::int64_t r) {
        std::string s;
        ltt::appendSyscallReturn(s, nr, r);
        return s;
    };
    EXPECT_EQ(ret(257, 3), " = 3");
    EXPECT_EQ(ret(2, -2), " = -1 ENOENT");
    EXPECT_EQ(ret(0, -4096 + 1), " = -1 errno 4095");
    EXPECT_EQ(ret(9, 0x7f0012340000), " = 0x7f0012340000");
    EXPECT_EQ(ret(60, -1000000), " = -1000000");
}

TEST(SyscallArgs, DecodesAndDescribesVarsRecords) {
    // ARGS with 3 arguments (subtype 3), then PID and MINFLT.
    auto d =
        vars(LTT_VAR_BIT(LTT_VAR_ARGS) | LTT_VAR_BIT(LTT_VAR_PID) | LTT_VAR_BIT(LTT_VAR_MINFLT), 1,
             {4, 0x7ffc, 100, 321, 17});
    TraceBuilder b(1);
    b.block(0, 10, 321).evBytes(20, LTT_EV_VARS, 3, d.data(), d.size()).end(30);
    auto bytes = b.bytes();
    auto r = ltt::TraceReader::openMemory(bytes, "t", nullptr);
    auto c = r->atIndex(1);
    auto v = ltt::decodeVars(c.event());
    ASSERT_TRUE(v);
    EXPECT_EQ(v->nargs, 3u);
    EXPECT_EQ(v->args[2], 100u);
    EXPECT_EQ(v->values[LTT_VAR_PID], 321u);
    EXPECT_EQ(v->values[LTT_VAR_MINFLT], 17u);
    EXPECT_EQ(ltt::describeEvent(c.event()),
              "CALL : write(4, 0x7ffc, 100); PID : 321; MINFLT : 17");
    EXPECT_EQ(ltt::eventName(LTT_EV_VARS), "Variables");
}

TEST(SyscallArgs, MalformedVarsRecordsAreSaidSo) {
    struct Case {
        std::vector<std::byte> d;
        std::uint8_t sub;
    };
    const Case cases[] = {
        {vars(LTT_VAR_BIT(LTT_VAR_PID) | LTT_VAR_BIT(LTT_VAR_UID), 0, {1}), 0}, // one value short
        {vars(LTT_VAR_BIT(LTT_VAR_PID), 0, {1}), 2},                            // args without ARGS
        {vars(LTT_VAR_BIT(LTT_VAR_ARGS), 0, {1, 2, 3, 4, 5, 6, 7}), 7},         // 7 arguments
        {vars(1u << 30, 0, {1}), 0},                                            // unknown variable
    };
    for (const Case& k : cases) {
        TraceBuilder b(1);
        b.block(0, 10, 1).evBytes(20, LTT_EV_VARS, k.sub, k.d.data(), k.d.size()).end(30);
        auto bytes = b.bytes();
        auto r = ltt::TraceReader::openMemory(bytes, "t", nullptr);
        auto c = r->atIndex(1);
        EXPECT_FALSE(ltt::decodeVars(c.event()));
        EXPECT_EQ(ltt::describeEvent(c.event()).substr(0, 11), "MALFORMED; ");
    }
}

TEST(SyscallArgs, TrackerJoinsArgumentsPathAndReturn) {
    auto args = vars(LTT_VAR_BIT(LTT_VAR_ARGS), 257, {kAtFdcwd, 0x7ffc, 0, 0});
    ltt_ev_file_system open{3, 0, 0, {}};
    std::strcpy(open.name, "/etc/passwd");
    TraceBuilder b(1);
    b.block(0, 10, 55)
        .ev(20, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x401000, 257, 0})
        .evBytes(20, LTT_EV_VARS, 4, args.data(), args.size())
        .evBytes(25, LTT_EV_FILE_SYSTEM, LTT_FS_OPEN, &open, LTT_EV_FS_FIXED + 12)
        .ev(30, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{3})
        // An entry whose arguments were not recorded: no line.
        .ev(40, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x401000, 39, 0})
        .ev(45, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{55})
        .end(50);
    EXPECT_EQ(walk(b), std::vector<std::string>{"openat(AT_FDCWD, \"/etc/passwd\", O_RDONLY) = 3"});
}

TEST(SyscallArgs, TrackerTakesMountPathsWhenTheyPrecedeTheExit) {
    auto args = vars(LTT_VAR_BIT(LTT_VAR_ARGS), 165, {0x10, 0x20, 0x30, 0, 0});
    ltt_ev_mount m{0, 0, {}};
    std::memcpy(m.names, "/mnt\0none", 10);
    TraceBuilder b(1);
    b.block(0, 10, 55)
        .ev(20, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x401000, 165, 0})
        .evBytes(20, LTT_EV_VARS, 5, args.data(), args.size())
        .evBytes(25, LTT_EV_MOUNT, LTT_MOUNT_MOUNT, &m, LTT_EV_MOUNT_FIXED + 10)
        .ev(30, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{0})
        .end(50);
    EXPECT_EQ(walk(b), std::vector<std::string>{"mount(\"none\", \"/mnt\", 0x30, 0, NULL) = 0"});
}

TEST(SyscallArgs, MountAndLockDescriptions) {
    ltt_ev_mount m{-16, 0x1, {}};
    std::memcpy(m.names, "/mnt\0none", 10);
    TraceBuilder b(1);
    b.block(0, 10, 55)
        .evBytes(20, LTT_EV_MOUNT, LTT_MOUNT_MOUNT, &m, LTT_EV_MOUNT_FIXED + 10)
        .ev(25, LTT_EV_LOCK, LTT_LOCK_CONTENDED, ltt_ev_lock{0xffff888001234560, 0x20, 0})
        .ev(26, LTT_EV_LOCK, LTT_LOCK_ACQUIRED, ltt_ev_lock{0xffff888001234560, 0, -4})
        .end(50);
    auto bytes = b.bytes();
    auto r = ltt::TraceReader::openMemory(bytes, "t", nullptr);
    EXPECT_EQ(ltt::describeEvent(r->atIndex(1).event()),
              "MOUNT : \"/mnt\"; SOURCE : \"none\"; FLAGS : 0x1; RET : -16");
    EXPECT_EQ(ltt::describeEvent(r->atIndex(2).event()),
              "CONTENDED : 0xffff888001234560; FLAGS : 0x20");
    EXPECT_EQ(ltt::describeEvent(r->atIndex(3).event()), "ACQUIRED : 0xffff888001234560; RET : -4");
}
