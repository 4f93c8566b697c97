// tracedaemon's `-- COMMAND` child: held until release(), run then, and
// never run (and reaped at once) when the daemon gives up before starting.
#include "command_child.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace ltt::daemon;
using namespace std::chrono_literals;

namespace {

sigset_t noSignals() {
    sigset_t s;
    sigemptyset(&s);
    return s;
}

std::filesystem::path scratch(const char* name) {
    auto p = std::filesystem::temp_directory_path() /
             (std::string("ltt-command-child-") + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove(p);
    return p;
}

// Waits up to `limit` for the child to end.
bool reapWithin(CommandChild& c, std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (!c.reap()) {
        if (std::chrono::steady_clock::now() > end)
            return false;
        std::this_thread::sleep_for(5ms);
    }
    return true;
}

} // namespace

// The daemon failed after the fork (a bad output path, a refused START):
// destroying the child unreleased must end it without running the command.
// Before the child closed its copy of the release pipe's write end, its read
// never saw EOF and the destructor's waitpid() hung for ever.
TEST(CommandChild, UnreleasedChildEndsWithoutRunningTheCommand) {
    const auto marker = scratch("unreleased");
    auto child = std::make_unique<CommandChild>(
        std::vector<std::string>{"sh", "-c", "touch " + marker.string()}, false, noSignals());
    const pid_t pid = child->pid();
    ASSERT_GT(pid, 0);
    auto done = std::async(std::launch::async, [&child] { child.reset(); });
    if (done.wait_for(10s) != std::future_status::ready) {
        ::kill(pid, SIGKILL); // unblock the destructor's waitpid()
        done.wait();
        FAIL() << "destroying an unreleased CommandChild did not return within 10 s";
    }
    EXPECT_FALSE(std::filesystem::exists(marker)) << "the command ran without release()";
    errno = 0;
    EXPECT_EQ(::kill(pid, 0), -1) << "the child was not reaped";
    EXPECT_EQ(errno, ESRCH);
}

TEST(CommandChild, ReleasedChildRunsTheCommand) {
    const auto marker = scratch("released");
    CommandChild child({"sh", "-c", "touch " + marker.string() + "; exit 3"}, false, noSignals());
    EXPECT_FALSE(std::filesystem::exists(marker)) << "the command ran before release()";
    EXPECT_EQ(child.release(), 0);
    ASSERT_TRUE(reapWithin(child, 10s));
    EXPECT_EQ(CommandChild::exitCode(*child.status()), 3);
    EXPECT_TRUE(std::filesystem::exists(marker));
    std::filesystem::remove(marker);
}

TEST(CommandChild, AFailedExecReportsItsErrno) {
    CommandChild child({"/nonexistent/ltt-no-such-command"}, false, noSignals());
    EXPECT_EQ(child.release(), ENOENT);
    ASSERT_TRUE(child.ended());
    EXPECT_EQ(CommandChild::exitCode(*child.status()), 127);
}

TEST(CommandChild, OwnGroupMakesTheChildALeader) {
    CommandChild child({"true"}, true, noSignals());
    EXPECT_EQ(::getpgid(child.pid()), child.pid());
    EXPECT_EQ(child.release(), 0);
    ASSERT_TRUE(reapWithin(child, 10s));
    EXPECT_EQ(CommandChild::exitCode(*child.status()), 0);
}
