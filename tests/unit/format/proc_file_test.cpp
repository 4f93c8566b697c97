// The .proc file: round trip, LTT's original line format, and errors that
// name the file and line.
#include <fstream>
#include <gtest/gtest.h>
#include <libltt/proc_file.hpp>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace {

std::string tmp(const std::string& name) {
    return ::testing::TempDir() + "/" + name;
}

void writeText(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

} // namespace

TEST(ProcFile, RoundTrips) {
    ltt::ProcSnapshot s;
    ltt::ProcTask t;
    t.pid = 120;
    t.ppid = 1;
    t.tgid = 120;
    t.pgrp = 120;
    t.uid = 1000;
    t.gid = 100;
    t.state = 'R';
    t.name = "sh; with semicolons: and colons";
    s.tasks.push_back(t);
    t.pid = 2;
    t.ppid = 0;
    t.kthread = true;
    t.name = "kthreadd";
    s.tasks.push_back(t);
    s.irqs.push_back({"LOC", "Local timer interrupts"});
    s.maps.push_back({120, 0x400000, 0x401000, "r-xp", 0x1000, "/bin/busy box"});
    const auto path = tmp("rt.proc");
    ltt::writeProcFile(path, s);
    ltt::ProcParseError e;
    auto r = ltt::readProcFile(path, &e);
    ASSERT_TRUE(r) << e.str();
    ASSERT_EQ(r->tasks.size(), 2u);
    EXPECT_EQ(r->tasks[0].name, "sh; with semicolons: and colons");
    EXPECT_EQ(r->tasks[0].uid, 1000);
    EXPECT_EQ(r->tasks[0].state, 'R');
    EXPECT_TRUE(r->tasks[1].kthread);
    ASSERT_EQ(r->irqs.size(), 1u);
    EXPECT_EQ(r->irqs[0].irq, "LOC");
    EXPECT_EQ(r->irqs[0].name, "Local timer interrupts");
    ASSERT_EQ(r->maps.size(), 1u);
    EXPECT_EQ(r->maps[0].start, 0x400000u);
    EXPECT_EQ(r->maps[0].offset, 0x1000u);
    EXPECT_EQ(r->maps[0].path, "/bin/busy box");
}

TEST(ProcFile, ReadsLttOriginalLinesAndSkipsUnknownKinds) {
    const auto path = tmp("ltt.proc");
    writeText(path, "PID: 1; PPID: 0; NAME: init\nFUTURE: 3; X: y\n# comment\n\n"
                    "PID: 120; PPID: 1; NAME: sh\r\n");
    auto r = ltt::readProcFile(path, nullptr);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->tasks.size(), 2u);
    EXPECT_EQ(r->tasks[1].name, "sh");
    EXPECT_EQ(r->tasks[1].tgid, 0); // unknown: readers use the pid
}

TEST(ProcFile, ErrorsNameFileAndLine) {
    const auto path = tmp("bad.proc");
    auto check = [&](const std::string& text, std::uint64_t line, const std::string& msg) {
        writeText(path, text);
        ltt::ProcParseError e;
        EXPECT_FALSE(ltt::readProcFile(path, &e));
        EXPECT_EQ(e.line, line);
        EXPECT_EQ(e.str(), path + ":" + std::to_string(line) + ": " + msg);
    };
    check("# ltt-proc 1\nPID: x1; PPID: 0; NAME: a\n", 2, "bad PID value \"x1\"");
    check("PID: 1; NAME: a\n", 1, "PID line without PPID");
    check("PID: 1; PPID: 0\n", 1, "PID line without NAME");
    check("PID: 1; PPID: 0; NAME: a\ngarbage\n", 2, "field without \": \": \"garbage\"");
    ltt::ProcParseError e;
    EXPECT_FALSE(ltt::readProcFile(tmp("missing.proc"), &e));
    EXPECT_NE(e.str().find("cannot open"), std::string::npos);
}

// A crash while the file was written leaves its last line without the
// newline, possibly without fields or digits: ignored, with a warning.
TEST(ProcFile, CutLastLineIsIgnoredWithAWarning) {
    const auto path = tmp("cut.proc");
    for (const std::string& tail :
         {std::string("PID: 1234; PP"), std::string("PID: 12"),
          std::string("PID: 100; PPID: 1; NAME: ba"), std::string(9, '\0')}) {
        writeText(path, "# ltt-proc 1\nPID: 1; PPID: 0; NAME: init\n" + tail);
        ltt::ProcParseError e;
        std::optional<ltt::ProcParseError> cut;
        auto r = ltt::readProcFile(path, &e, &cut);
        ASSERT_TRUE(r) << e.str();
        ASSERT_EQ(r->tasks.size(), 1u);
        EXPECT_EQ(r->tasks[0].name, "init");
        ASSERT_TRUE(cut);
        EXPECT_EQ(cut->str(),
                  path + ":3: last line is cut short (no newline at the end of the file); ignored");
    }
    writeText(path, "PID: 1; PPID: 0; NAME: init\n");
    std::optional<ltt::ProcParseError> cut;
    ASSERT_TRUE(ltt::readProcFile(path, nullptr, &cut));
    EXPECT_FALSE(cut);
}

TEST(ProcFile, ErrorsShowTheLineEscaped) {
    const auto path = tmp("esc.proc");
    writeText(path, "PID: 1\x1b[2J; PPID: 0; NAME: a\n");
    ltt::ProcParseError e;
    EXPECT_FALSE(ltt::readProcFile(path, &e));
    EXPECT_EQ(e.message, "bad PID value \"1\\x1b[2J\"");
}

TEST(ProcFile, WriteFailureNamesThePath) {
    try {
        ltt::writeProcFile("/nonexistent/dir/x.proc", {});
        FAIL() << "no exception";
    } catch (const std::system_error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/x.proc"), std::string::npos);
    }
}

TEST(ProcFile, WriteNeverFollowsASymbolicLinkAndIsPrivate) {
    const auto victim = tmp("victim.txt");
    const auto link = tmp("planted.proc");
    writeText(victim, "keep");
    std::remove(link.c_str());
    ASSERT_EQ(::symlink(victim.c_str(), link.c_str()), 0);
    EXPECT_THROW(ltt::writeProcFile(link, {}), std::system_error);
    std::ifstream in(victim);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, "keep");

    const auto path = tmp("private.proc");
    std::remove(path.c_str());
    const mode_t old = ::umask(0);
    ltt::writeProcFile(path, {});
    ::umask(old);
    struct stat st;
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
}
