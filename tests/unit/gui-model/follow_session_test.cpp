// FollowSession, the decisions of traceview's follow mode, without a
// display: on a trace written block by block it asks for a re-open when
// whole blocks arrived (never while the window is busy or a re-open runs),
// keeps the view from the second update on, asks for the last re-open once
// every CPU's FINAL block is in, then stops; and says so in the status bar.
#include "follow_session.hpp"

#include <filesystem>
#include <gtest/gtest.h>
#include <libltt/block_codec.hpp>
#include <libltt/trace_writer.hpp>
#include <ltt/events.h>
#include <memory>

namespace {

using traceview::FollowSession;
using Step = FollowSession::Step;

struct TempDir {
    std::string path;
    TempDir() {
        char tmpl[] = "/tmp/traceview-follow-XXXXXX";
        path = ::mkdtemp(tmpl) ? tmpl : "";
    }
    ~TempDir() {
        if (!path.empty())
            std::filesystem::remove_all(path);
    }
};

// A producer of a two-CPU trace: the header at once, then blocks on demand.
class Producer {
public:
    explicit Producer(const std::string& path) {
        ltt_trace_info info{};
        info.abi_version = LTT_ABI_VERSION;
        info.ncpus = 2;
        info.tsc_khz = 1000000;
        info.anchor_tsc = 1000;
        info.max_block = 16384;
        info.config.event_mask = LTT_EV_MASK_ALL;
        info.config.details_mask = LTT_EV_MASK_ALL;
        info.config.pid = info.config.pgrp = -1;
        writer_m = std::make_unique<ltt::TraceWriter>(
            path, ltt::makeFileHeader(info, "follow session test"));
    }
    // One block of `cpu` with a system call, FINAL when `final`.
    void block(std::uint16_t cpu, bool final) {
        const std::uint64_t t = 2000 + 1000 * seq_m;
        b_m.start(cpu, seq_m++, t, 100 + cpu);
        b_m.record(t + 100, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x401000, 39, 0});
        b_m.record(t + 200, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{0});
        writer_m->append(b_m.finish(t + 500, final ? LTT_BLOCK_F_FINAL : 0));
    }
    // The producer closes the file (tracedaemon's exit).
    void close() {
        writer_m->close();
        writer_m.reset();
    }

private:
    std::unique_ptr<ltt::TraceWriter> writer_m;
    ltt::BlockBuilder b_m;
    std::uint32_t seq_m = 0;
};

TEST(FollowSession, ReloadsAsBlocksArriveThenEndsAtTheFinalBlocks) {
    TempDir dir;
    ASSERT_FALSE(dir.path.empty());
    const std::string trace = dir.path + "/live.trace", proc = dir.path + "/live.proc";
    FollowSession s(trace, proc);
    EXPECT_EQ(s.waitingText(), "Following live.trace: waiting for whole blocks…");
    // No file yet: nothing to show.
    EXPECT_EQ(s.tick(false), Step::Wait);
    Producer p(trace);
    p.block(0, false);
    // A busy window is never asked to re-open, and the file is not looked at.
    const auto updates = s.follower().updates();
    EXPECT_EQ(s.tick(true), Step::Wait);
    EXPECT_EQ(s.follower().updates(), updates);
    // The first whole block: re-open, not keeping a view (none of this
    // trace is shown yet); while it runs, nothing more is asked.
    EXPECT_FALSE(s.keepView());
    EXPECT_EQ(s.tick(false), Step::Reload);
    EXPECT_TRUE(s.reloading());
    p.block(1, false);
    EXPECT_EQ(s.tick(false), Step::Wait);
    s.reloaded(false, true);
    EXPECT_EQ(s.reloads(), 1u);
    EXPECT_TRUE(s.keepView());
    // The block that arrived meanwhile: the next update.
    EXPECT_EQ(s.tick(false), Step::Reload);
    s.reloaded(false, true);
    EXPECT_EQ(s.tick(false), Step::Wait); // nothing new
    EXPECT_EQ(s.followingText("2 events"),
              "Following live.trace: 2 events   (live.proc not there yet)");
    // Every CPU's FINAL block and the producer's close: the last re-open,
    // then the end.
    p.block(0, true);
    p.block(1, true);
    p.close();
    EXPECT_EQ(s.tick(false), Step::ReloadLast);
    EXPECT_EQ(s.follower().end(), ltt::TraceFollower::End::Final);
    EXPECT_EQ(s.tick(false), Step::Wait);
    EXPECT_FALSE(s.finished());
    s.reloaded(true, true);
    EXPECT_TRUE(s.finished());
    EXPECT_EQ(s.reloads(), 3u);
    EXPECT_EQ(s.tick(false), Step::Stop);
    EXPECT_EQ(s.endedSuffix(), "   (following ended: " + s.follower().endReason() + ")");
    EXPECT_NE(s.endedSuffix().find("final block"), std::string::npos) << s.endedSuffix();
}

TEST(FollowSession, AFailedFirstReopenKeepsNoView) {
    TempDir dir;
    const std::string trace = dir.path + "/t.trace";
    FollowSession s(trace, "");
    Producer p(trace);
    p.block(0, false);
    ASSERT_EQ(s.tick(false), Step::Reload);
    s.reloaded(false, false); // cancelled, or nothing shown
    EXPECT_FALSE(s.keepView());
    // Without a .proc nothing is said about it.
    EXPECT_EQ(s.followingText("x"), "Following t.trace: x");
}

TEST(FollowSession, AFinishedFileIsOneLastReopen) {
    TempDir dir;
    const std::string trace = dir.path + "/done.trace";
    {
        Producer p(trace);
        p.block(0, true);
        p.block(1, true);
    }
    // Written a while ago: its FINAL blocks are not waited on.
    std::filesystem::last_write_time(trace, std::filesystem::file_time_type::clock::now() -
                                                std::chrono::hours(1));
    FollowSession s(trace, "");
    EXPECT_EQ(s.tick(false), Step::ReloadLast);
    EXPECT_FALSE(s.keepView());
    s.reloaded(true, true);
    EXPECT_EQ(s.tick(false), Step::Stop);
    EXPECT_EQ(s.reloads(), 1u);
}

} // namespace
