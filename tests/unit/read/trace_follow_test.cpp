// TraceFollower: a trace written step by step (header in parts, blocks cut
// in half then completed, the .proc late) is followed without a false
// alarm, and ends with what a plain open of the finished file gives.
#include "analysis_equal.hpp"
#include "trace_builder.hpp"

#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <libltt/trace_analysis.hpp>
#include <libltt/trace_follow.hpp>
#include <libltt/unique_fd.hpp>
#include <thread>
#include <unistd.h>

using ltt::TraceFollower;
using ltt::test::poke;
using ltt::test::TraceBuilder;
using End = TraceFollower::End;

namespace {

// A private directory, removed with its files.
struct TempDir {
    std::string path;
    TempDir() {
        char tmpl[] = "/tmp/ltt-follow-XXXXXX";
        path = ::mkdtemp(tmpl) ? tmpl : "";
    }
    ~TempDir() {
        if (!path.empty())
            std::filesystem::remove_all(path);
    }
};

// Two CPUs, three blocks each; with `final`, each CPU's last block is FINAL.
std::vector<std::byte> threeBlocksEach(bool final, std::vector<std::size_t>* offsets) {
    TraceBuilder b(2);
    ltt_ev_syscall_entry se{0x401000, 1, 0};
    ltt_ev_syscall_exit sx{0};
    for (int i = 0; i < 3; ++i)
        for (std::uint16_t cpu = 0; cpu < 2; ++cpu) {
            const std::uint64_t t = 1000 + 1000 * i + 10 * cpu;
            b.block(cpu, t, 100 + cpu)
                .ev(t + 100, LTT_EV_SYSCALL_ENTRY, 0, se)
                .ev(t + 300, LTT_EV_SYSCALL_EXIT, 0, sx)
                .end(t + 500);
        }
    std::vector<std::byte> bytes = b.bytes();
    if (final)
        for (std::size_t k = 4; k < 6; ++k)
            poke<std::uint16_t>(bytes, b.blockOffsets[k] + 8 + 30, LTT_BLOCK_F_FINAL);
    *offsets = b.blockOffsets;
    offsets->push_back(bytes.size());
    return bytes;
}

class Producer {
public:
    explicit Producer(const std::string& path)
        : fd_m(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) {}
    void append(const std::vector<std::byte>& bytes, std::size_t from, std::size_t to) {
        ASSERT_EQ(::write(fd_m.get(), bytes.data() + from, to - from), ssize_t(to - from));
    }
    void close() { fd_m.reset(); }

private:
    ltt::UniqueFd fd_m;
};

void writeProc(const std::string& path) {
    std::ofstream(path + ".tmp") << "# ltt-proc 1\nPID: 100; PPID: 1; NAME: first\n"
                                    "PID: 101; PPID: 1; NAME: second\n";
    std::filesystem::rename(path + ".tmp", path);
}

} // namespace

TEST(TraceFollower, FollowsBlockByBlockAndEndsAsAPlainOpen) {
    TempDir dir;
    ASSERT_FALSE(dir.path.empty());
    const std::string trace = dir.path + "/t.trace", proc = dir.path + "/t.proc";
    std::vector<std::size_t> at;
    const auto bytes = threeBlocksEach(true, &at);
    TraceFollower f(trace, proc);

    // Nothing there yet: waiting, no error.
    EXPECT_FALSE(f.poll());
    EXPECT_EQ(f.end(), End::Following);
    EXPECT_EQ(f.reader(), nullptr);

    Producer p(trace);
    p.append(bytes, 0, 100); // the header, in part
    EXPECT_FALSE(f.poll());
    EXPECT_EQ(f.end(), End::Following);
    EXPECT_EQ(f.reader(), nullptr);
    p.append(bytes, 100, at[0]);
    EXPECT_TRUE(f.poll());
    ASSERT_NE(f.reader(), nullptr);
    EXPECT_EQ(f.reader()->blocks().size(), 0u);

    for (std::size_t k = 0; k < 6; ++k) {
        SCOPED_TRACE("block " + std::to_string(k));
        const std::size_t half = (at[k] + at[k + 1]) / 2 & ~std::size_t{7};
        p.append(bytes, at[k], half); // cut short: the producer is still writing it
        EXPECT_FALSE(f.poll());
        EXPECT_EQ(f.end(), End::Following) << f.endReason();
        EXPECT_EQ(f.reader()->blocks().size(), k);
        p.append(bytes, half, at[k + 1]);
        EXPECT_TRUE(f.poll());
        EXPECT_EQ(f.reader()->blocks().size(), k + 1);
        if (k == 2) {
            EXPECT_EQ(f.snapshot(), nullptr);
            writeProc(proc); // late, as tracedaemon's snapshot thread may be
            EXPECT_TRUE(f.poll());
            ASSERT_NE(f.snapshot(), nullptr);
            EXPECT_EQ(f.snapshot()->tasks.size(), 2u);
        }
    }
    // Every CPU's FINAL block is there, but the producer still has the file
    // open: a CPU that wrote nothing yet may follow within the grace time.
    EXPECT_EQ(f.end(), End::Following);
    p.close();
    EXPECT_TRUE(f.poll());
    EXPECT_EQ(f.end(), End::Final) << f.endReason();
    EXPECT_EQ(f.endReason(), "every CPU wrote its final block");
    EXPECT_FALSE(f.poll()); // nothing after the end

    const auto& r = *f.reader();
    EXPECT_FALSE(r.truncation());
    EXPECT_FALSE(r.unfinished());
    ltt::TraceError err;
    auto plain = ltt::TraceReader::open(trace, &err);
    ASSERT_TRUE(plain) << err.str();
    ltt::TraceAnalysis followed(r, f.snapshot().get());
    ASSERT_TRUE(followed.run());
    ltt::ProcParseError perr;
    auto snap = ltt::readProcFile(proc, &perr);
    ASSERT_TRUE(snap) << perr.str();
    ltt::TraceAnalysis whole(*plain, &*snap);
    ASSERT_TRUE(whole.run());
    EXPECT_EQ(ltt::test::analysisDifference(followed, whole), "");
    EXPECT_EQ(followed.events(), 6u * 4);
}

TEST(TraceFollower, ProducerThatClosesWithoutFinalBlocksEndsWithTheWarning) {
    TempDir dir;
    const std::string trace = dir.path + "/t.trace";
    std::vector<std::size_t> at;
    const auto bytes = threeBlocksEach(false, &at);
    TraceFollower f(trace, "");
    Producer p(trace);
    p.append(bytes, 0, at[3]);
    EXPECT_TRUE(f.poll());
    p.append(bytes, at[3], at[4] - 16); // killed in the middle of a block
    EXPECT_FALSE(f.poll());
    p.close();
    EXPECT_TRUE(f.poll());
    EXPECT_EQ(f.end(), End::Closed);
    ASSERT_TRUE(f.reader()->truncation());
    EXPECT_NE(f.reader()->truncation()->message.find("last block is cut short"), std::string::npos)
        << f.reader()->truncation()->message;
    ASSERT_TRUE(f.reader()->unfinished());
    EXPECT_EQ(f.reader()->blocks().size(), 3u);
}

TEST(TraceFollower, FileThatStopsGrowingEndsAfterTheIdleTimeout) {
    TempDir dir;
    const std::string trace = dir.path + "/t.trace";
    std::vector<std::size_t> at;
    const auto bytes = threeBlocksEach(false, &at);
    ltt::FollowOptions o;
    o.idleTimeout = std::chrono::milliseconds(500);
    TraceFollower f(trace, "", o);
    Producer p(trace); // stays open: a producer that hangs
    p.append(bytes, 0, at[2] + 40);
    EXPECT_TRUE(f.poll());
    EXPECT_EQ(f.end(), End::Following);
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    EXPECT_TRUE(f.poll());
    EXPECT_EQ(f.end(), End::Idle);
    EXPECT_EQ(f.endReason(), "the file has not grown for 0.5 s");
    ASSERT_TRUE(f.reader()->truncation());
    EXPECT_EQ(f.reader()->truncation()->offset, at[2]);
}

TEST(TraceFollower, CorruptionIsAnErrorNotSomethingToWaitFor) {
    TempDir dir;
    const std::string trace = dir.path + "/t.trace";
    std::vector<std::size_t> at;
    auto bytes = threeBlocksEach(true, &at);
    poke<std::uint32_t>(bytes, at[1] + 8, 0xdeadbeef); // block 1's magic; block 2 is whole
    TraceFollower f(trace, "");
    Producer p(trace);
    p.append(bytes, 0, at[1] + 24); // block 1 cut: it could still be being written
    f.poll();
    EXPECT_EQ(f.end(), End::Following);
    p.append(bytes, at[1] + 24, at[3]);
    EXPECT_TRUE(f.poll());
    EXPECT_EQ(f.end(), End::Error);
    ASSERT_TRUE(f.error());
    EXPECT_EQ(f.error()->offset, at[1] + 8) << f.error()->str();
}

TEST(TraceFollower, TraceReplacedByANewOneIsFollowedFromItsStart) {
    TempDir dir;
    const std::string trace = dir.path + "/t.trace";
    std::vector<std::size_t> at;
    const auto bytes = threeBlocksEach(true, &at);
    {
        Producer old(trace); // an older trace of the same name, unfinished
        old.append(bytes, 0, at[4]);
    }
    ltt::FollowOptions o;
    o.idleTimeout = std::chrono::milliseconds(0);
    TraceFollower f(trace, "", o);
    EXPECT_TRUE(f.poll());
    EXPECT_EQ(f.reader()->blocks().size(), 4u);
    Producer p(trace); // truncates it, as tracedaemon does when it starts
    EXPECT_TRUE(f.poll());
    EXPECT_EQ(f.end(), End::Following);
    EXPECT_EQ(f.reader(), nullptr);
    p.append(bytes, 0, at[1]);
    EXPECT_TRUE(f.poll());
    EXPECT_EQ(f.reader()->blocks().size(), 1u);
    p.append(bytes, at[1], at[6]);
    p.close();
    EXPECT_TRUE(f.poll());
    EXPECT_EQ(f.end(), End::Final);
    EXPECT_EQ(f.reader()->blocks().size(), 6u);
}
