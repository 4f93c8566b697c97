// tracedaemon --control: each command line becomes the module's ioctl with
// the right argument (relative masks against the last one sent), bad lines
// get a message naming them and send nothing; the FIFO is created 0600,
// reused when it is one, refused when something else is at its path, and
// delivers whole lines however they were written.
#include "control_fifo.hpp"
#include "fake_device.hpp"

#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <gtest/gtest.h>
#include <ltt/module_events.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using ltt::daemon::ControlFifo;
using ltt::daemon::ControlState;
using ltt::daemon::runControlLine;
using ltt::daemon::testing::FakeDevice;
using ltt::daemon::testing::FakeState;

constexpr std::uint64_t kSyscalls =
    LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY) | LTT_EV_BIT(LTT_EV_SYSCALL_EXIT);

template <class T> T lastArg(FakeState& s, unsigned long req) {
    T v{};
    auto it = s.args.find(req);
    EXPECT_NE(it, s.args.end());
    if (it != s.args.end() && it->second.size() == sizeof v)
        std::memcpy(&v, it->second.data(), sizeof v);
    return v;
}

struct Control : ::testing::Test {
    std::shared_ptr<FakeState> s = std::make_shared<FakeState>();
    FakeDevice dev{s};
    ControlState st;
    void SetUp() override {
        st.config.event_mask = LTT_EV_MASK_ALL;
        st.config.details_mask = LTT_EV_MASK_ALL;
    }
};

TEST_F(Control, EventsRelativeAndAbsolute) {
    EXPECT_EQ(runControlLine(dev, st, "events -SYSCALL"), "");
    EXPECT_EQ(lastArg<__u64>(*s, LTT_IOC_SET_EVENT_MASK), LTT_EV_MASK_ALL & ~kSyscalls);
    EXPECT_EQ(runControlLine(dev, st, "  events +syscall  "), "");
    EXPECT_EQ(lastArg<__u64>(*s, LTT_IOC_SET_EVENT_MASK), LTT_EV_MASK_ALL);
    EXPECT_EQ(runControlLine(dev, st, "events SCHED"), "");
    EXPECT_EQ(lastArg<__u64>(*s, LTT_IOC_SET_EVENT_MASK), LTT_EV_BIT(LTT_EV_SCHEDCHANGE));
    EXPECT_EQ(runControlLine(dev, st, "details -FS"), "");
    EXPECT_EQ(lastArg<__u64>(*s, LTT_IOC_SET_DETAILS_MASK),
              LTT_EV_MASK_ALL & ~LTT_EV_BIT(LTT_EV_FILE_SYSTEM));
}

TEST_F(Control, FiltersAndVars) {
    EXPECT_EQ(runControlLine(dev, st, "pid 42"), "");
    EXPECT_EQ(lastArg<__s32>(*s, LTT_IOC_TRACK_PID), 42);
    EXPECT_EQ(st.config.filters, LTT_FILTER_PID);
    EXPECT_EQ(runControlLine(dev, st, "pid off"), "");
    EXPECT_EQ(lastArg<__s32>(*s, LTT_IOC_TRACK_PID), -1);
    EXPECT_EQ(st.config.filters, 0u);
    EXPECT_EQ(runControlLine(dev, st, "pgrp 7"), "");
    EXPECT_EQ(lastArg<__s32>(*s, LTT_IOC_TRACK_PGRP), 7);
    EXPECT_EQ(runControlLine(dev, st, "uid 0"), "");
    EXPECT_EQ(lastArg<__s64>(*s, LTT_IOC_TRACK_UID), 0);
    EXPECT_EQ(runControlLine(dev, st, "gid off"), "");
    EXPECT_EQ(lastArg<__s64>(*s, LTT_IOC_TRACK_GID), -1);
    EXPECT_EQ(runControlLine(dev, st, "vars pid,uid"), "");
    EXPECT_EQ(lastArg<__u32>(*s, LTT_IOC_SET_VARS_MASK),
              LTT_VAR_BIT(LTT_VAR_PID) | LTT_VAR_BIT(LTT_VAR_UID));
    EXPECT_EQ(runControlLine(dev, st, "vars none"), "");
    EXPECT_EQ(lastArg<__u32>(*s, LTT_IOC_SET_VARS_MASK), 0u);
    EXPECT_EQ(runControlLine(dev, st, "# a comment"), "");
    EXPECT_EQ(runControlLine(dev, st, ""), "");
}

TEST_F(Control, BadLinesAreNamedAndSendNothing) {
    EXPECT_EQ(runControlLine(dev, st, "bogus 1"),
              "control line 'bogus 1': unknown command (known: events, details, vars, pid, "
              "pgrp, uid, gid)");
    EXPECT_EQ(runControlLine(dev, st, "events FSX"),
              "control line 'events FSX': unknown event 'FSX'");
    EXPECT_EQ(runControlLine(dev, st, "pid 0"),
              "control line 'pid 0': expected a number from 1 or off");
    EXPECT_EQ(runControlLine(dev, st, "uid -3"),
              "control line 'uid -3': expected an id from 0 or off");
    EXPECT_EQ(runControlLine(dev, st, "events"), "control line 'events': missing [+|-]LIST");
    EXPECT_TRUE(s->requests.empty());
    s->failWith[LTT_IOC_TRACK_PID] = EBUSY;
    EXPECT_EQ(runControlLine(dev, st, "pid 5"),
              "control line 'pid 5': the module refused it: Device or resource busy");
    EXPECT_EQ(st.config.filters, 0u); // unchanged
}

struct ControlFifoPath : ::testing::Test {
    std::filesystem::path dir;
    void SetUp() override {
        char t[] = "/tmp/ltt-control-XXXXXX";
        ASSERT_NE(::mkdtemp(t), nullptr);
        dir = t;
    }
    void TearDown() override { std::filesystem::remove_all(dir); }
};

TEST_F(ControlFifoPath, FifoIsCreatedPrivateAndRemoved) {
    const auto p = (dir / "ctl").string();
    {
        ControlFifo f(p);
        struct stat st {};
        ASSERT_EQ(::lstat(p.c_str(), &st), 0);
        EXPECT_TRUE(S_ISFIFO(st.st_mode));
        EXPECT_EQ(st.st_mode & 0777, 0600u);
        EXPECT_TRUE(f.readLines().empty());
        int w = ::open(p.c_str(), O_WRONLY | O_NONBLOCK);
        ASSERT_GE(w, 0);
        ASSERT_EQ(::write(w, "events -SYSCALL\npid ", 20), 20);
        EXPECT_EQ(f.readLines(), std::vector<std::string>{"events -SYSCALL"});
        ::close(w); // a writer leaving is no end of file
        w = ::open(p.c_str(), O_WRONLY | O_NONBLOCK);
        ASSERT_EQ(::write(w, "42\n\nvars none\n", 14), 14);
        ::close(w);
        EXPECT_EQ(f.readLines(), (std::vector<std::string>{"pid 42", "", "vars none"}));
    }
    EXPECT_FALSE(std::filesystem::exists(p));
}

TEST_F(ControlFifoPath, ExistingFifoIsReusedAndKept) {
    const auto p = (dir / "ctl").string();
    ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
    { ControlFifo f(p); }
    EXPECT_TRUE(std::filesystem::exists(p));
}

TEST_F(ControlFifoPath, ExistingOtherFileIsRefused) {
    const auto p = (dir / "ctl").string();
    ::close(::open(p.c_str(), O_CREAT | O_WRONLY, 0600));
    try {
        ControlFifo f(p);
        FAIL() << "accepted a regular file";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), "--control " + p + ": exists and is not a FIFO");
    }
    EXPECT_TRUE(std::filesystem::is_regular_file(p));
    try {
        ControlFifo f((dir / "no" / "ctl").string());
        FAIL() << "created a FIFO in a missing directory";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot create the FIFO: No such file or directory"),
                  std::string::npos);
    }
}

// Another user's FIFO, one others may write to, or a symbolic link (to a
// FIFO of ours, or to anything) is refused before it is read from: whoever
// can write to the FIFO reconfigures the trace.
TEST_F(ControlFifoPath, ForeignOrOpenFifoOrSymlinkIsRefused) {
    auto refused = [&](const std::string& p, const std::string& why) {
        try {
            ControlFifo f(p);
            ADD_FAILURE() << p << " accepted";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
        }
        EXPECT_TRUE(std::filesystem::exists(std::filesystem::symlink_status(p)));
    };
    const auto open = (dir / "open").string();
    ASSERT_EQ(::mkfifo(open.c_str(), 0600), 0);
    ASSERT_EQ(::chmod(open.c_str(), 0666), 0);
    refused(open, "the FIFO has mode 0666, not 0600");
    const auto group = (dir / "group").string();
    ASSERT_EQ(::mkfifo(group.c_str(), 0600), 0);
    ASSERT_EQ(::chmod(group.c_str(), 0620), 0);
    refused(group, "not 0600");
    const auto mine = (dir / "mine").string();
    ASSERT_EQ(::mkfifo(mine.c_str(), 0600), 0);
    const auto link = (dir / "link").string();
    ASSERT_EQ(::symlink(mine.c_str(), link.c_str()), 0);
    refused(link, "is a symbolic link");
    const auto dangling = (dir / "dangling").string();
    ASSERT_EQ(::symlink((dir / "nothing").c_str(), dangling.c_str()), 0);
    refused(dangling, "is a symbolic link");
    if (::geteuid() == 0) {
        const auto other = (dir / "other").string();
        ASSERT_EQ(::mkfifo(other.c_str(), 0600), 0);
        ASSERT_EQ(::chown(other.c_str(), 1000, 1000), 0);
        refused(other, "the FIFO belongs to uid 1000, not to 0");
    }
}

// A line with no end is cut, not kept growing without bound.
TEST_F(ControlFifoPath, AnEndlessLineIsBounded) {
    const auto p = (dir / "ctl").string();
    ControlFifo f(p);
    int w = ::open(p.c_str(), O_WRONLY | O_NONBLOCK);
    ASSERT_GE(w, 0);
    std::string junk(4096, 'x');
    std::size_t total = 0;
    for (int round = 0; round < 64; ++round) {
        for (int i = 0; i < 8; ++i)
            if (::write(w, junk.data(), junk.size()) > 0)
                total += junk.size();
        EXPECT_TRUE(f.readLines().empty());
    }
    ASSERT_EQ(::write(w, "\npid 3\n", 8), 8);
    ::close(w);
    auto lines = f.readLines();
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_GT(total, 1024u * 1024);
    EXPECT_LE(lines[0].size(), 64u * 1024);
    EXPECT_EQ(lines[1], "pid 3");
}

} // namespace
