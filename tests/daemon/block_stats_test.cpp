// Block accounting and the lost-events report.
#include "block_stats.hpp"
#include "commit_buffer.hpp"
#include "fake_device.hpp"

#include <csignal>
#include <cstring>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <system_error>
#include <unistd.h>

using namespace ltt;
using namespace ltt::daemon;
using namespace ltt::daemon::testing;

TEST(BlockStats, CountsWholeBlocksPerCpu) {
    Bytes data = makeBlock(0, 0, 10);
    Bytes b1 = makeBlock(1, 0, 5, 7);
    Bytes b2 = makeBlock(0, 1, 3, 0, 2000, true);
    data.insert(data.end(), b1.begin(), b1.end());
    data.insert(data.end(), b2.begin(), b2.end());
    BlockStats s;
    EXPECT_TRUE(s.scan(std::as_bytes(std::span(data))));
    EXPECT_EQ(s.totalBlocks(), 3u);
    EXPECT_EQ(s.totalBytes(), data.size());
    EXPECT_EQ(s.cpu(0).blocks, 2u);
    EXPECT_EQ(s.cpu(0).records, 12u + 5u);
    EXPECT_TRUE(s.cpu(0).final);
    EXPECT_EQ(s.cpu(1).lost, 7u);
    EXPECT_EQ(s.cpu(1).maxLost, 7u);
    EXPECT_EQ(s.cpu(1).records, 8u);
    EXPECT_EQ(s.cpusSeen(), 2u);
    EXPECT_EQ(s.totalLost(), 7u);
}

TEST(BlockStats, MalformedDataIsReportedWithOffset) {
    Bytes good = makeBlock(0, 0, 2);
    Bytes data = good;
    Bytes bad = makeBlock(0, 1, 2);
    bad[8] = std::byte{0}; // magic
    data.insert(data.end(), bad.begin(), bad.end());
    BlockStats s;
    EXPECT_FALSE(s.scan(std::as_bytes(std::span(data))));
    EXPECT_EQ(s.totalBlocks(), 1u);
    EXPECT_EQ(s.malformed(), 1u);
    EXPECT_EQ(s.lastProblem(), "no block start at offset " + std::to_string(good.size()) +
                                   " of a " + std::to_string(data.size()) + "-byte read");

    Bytes shortBlock = makeBlock(0, 0, 2);
    shortBlock.resize(shortBlock.size() - 8);
    BlockStats t;
    EXPECT_FALSE(t.scan(std::as_bytes(std::span(shortBlock))));
    EXPECT_NE(t.lastProblem().find("bad block length"), std::string::npos);

    Bytes cpu = makeBlock(70, 0, 1);
    BlockStats u;
    EXPECT_FALSE(u.scan(std::as_bytes(std::span(cpu))));
    EXPECT_NE(u.lastProblem().find("bad CPU 70"), std::string::npos);
}

TEST(LossReport, NoLoss) {
    BlockStats s;
    Bytes b = makeBlock(0, 0, 4);
    s.scan(std::as_bytes(std::span(b)));
    LossReport r = makeLossReport(s, nullptr, 65536, 2);
    EXPECT_EQ(r.totalLost, 0u);
    EXPECT_TRUE(r.cpus.empty());
    EXPECT_EQ(r.text(), "no events lost\n");
}

TEST(LossReport, SuggestsABufferThatHoldsTheLargestBurst) {
    // Records of 24 bytes; CPU 1 lost 1000 events in one burst: 24000 bytes
    // more than the 16 KiB buffer, so 64 KiB (next power of two >= 40384).
    BlockStats s;
    Bytes data;
    for (unsigned i = 0; i < 4; ++i) {
        Bytes b = makeBlock(1, i, 100, i == 2 ? 1000 : (i == 3 ? 10 : 0));
        data.insert(data.end(), b.begin(), b.end());
    }
    for (unsigned i = 0; i < 10; ++i) {
        Bytes c0 = makeBlock(0, i, 100);
        data.insert(data.end(), c0.begin(), c0.end());
    }
    s.scan(std::as_bytes(std::span(data)));
    LossReport r = makeLossReport(s, nullptr, 16384, 2);
    EXPECT_EQ(r.totalLost, 1010u);
    ASSERT_EQ(r.cpus.size(), 1u);
    EXPECT_EQ(r.cpus[0].cpu, 1u);
    EXPECT_EQ(r.cpus[0].largestBurst, 1000u);
    EXPECT_EQ(r.cpus[0].suggestedBuffer, 65536u);
    EXPECT_EQ(r.suggestedBuffer, 65536u);
    std::string text = r.text();
    EXPECT_EQ(text.find("more events were lost than recorded"), std::string::npos) << text;
    EXPECT_NE(text.find("1010 events lost"), std::string::npos) << text;
    EXPECT_NE(text.find("cpu 1: 1010 lost"), std::string::npos) << text;
    EXPECT_NE(text.find("largest loss 1000 events; a buffer of 64.0 KiB would have held it"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("to avoid these losses, trace with -b 64K"), std::string::npos) << text;
}

TEST(LossReport, ModuleCountsIncludeLossesNoBlockShowed) {
    BlockStats s;
    Bytes b = makeBlock(0, 0, 100);
    s.scan(std::as_bytes(std::span(b)));
    ltt_lost_counts lc{};
    lc.ncpus = 2;
    lc.per_cpu[0] = 500;
    lc.recorded[0] = 100;
    lc.total = 500;
    LossReport r = makeLossReport(s, &lc, 1 << 20, 2);
    EXPECT_EQ(r.totalLost, 500u);
    ASSERT_EQ(r.cpus.size(), 1u);
    EXPECT_EQ(r.cpus[0].largestBurst, 500u);
    EXPECT_EQ(r.cpus[0].suggestedBuffer, 2u << 20);
    // More lost than recorded: a sustained overload, not a burst.
    EXPECT_NE(r.text().find("more events were lost than recorded"), std::string::npos) << r.text();
}

TEST(LossReport, BeyondTheLargestBuffer) {
    BlockStats s;
    Bytes b = makeBlock(0, 0, 100, 10'000'000);
    s.scan(std::as_bytes(std::span(b)));
    LossReport r = makeLossReport(s, nullptr, LTT_BUFFER_MAX, 1);
    EXPECT_EQ(r.suggestedBuffer, 0u);
    EXPECT_NE(r.text().find("record fewer events"), std::string::npos);
}

TEST(BufferSizes, RoundingAndFormatting) {
    EXPECT_EQ(roundBufferSize(1), 4096u);
    EXPECT_EQ(roundBufferSize(4097), 8192u);
    EXPECT_EQ(roundBufferSize(LTT_BUFFER_MAX), LTT_BUFFER_MAX);
    EXPECT_EQ(roundBufferSize(LTT_BUFFER_MAX + 1ull), 0u);
    EXPECT_EQ(sizeOption(2u << 20), "2M");
    EXPECT_EQ(sizeOption(8192), "8K");
    EXPECT_EQ(sizeOption(5000), "5000");
    EXPECT_EQ(formatBytes(512), "512 B");
    EXPECT_EQ(formatBytes(1536), "1.5 KiB");
}

TEST(CommitBuffer, CommitsWholeHalvesInOrder) {
    std::string path = ::testing::TempDir() + "/commit.trace";
    ltt_trace_info info{};
    info.abi_version = LTT_ABI_VERSION;
    info.ncpus = 1;
    info.tsc_khz = 1000000;
    Bytes expect;
    {
        TraceWriter w(path, makeFileHeader(info, "test", LTT_FILE_VERSION));
        CommitBuffer buf(w, 1024);
        for (unsigned i = 0; i < 50; ++i) {
            Bytes b = makeBlock(0, i, i % 5);
            if (buf.space().size() < b.size())
                buf.rotate();
            std::memcpy(buf.space().data(), b.data(), b.size());
            buf.commit(b.size());
            expect.insert(expect.end(), b.begin(), b.end());
        }
        buf.flush();
        EXPECT_GT(buf.commits(), 5u);
        w.close();
    }
    std::ifstream in(path, std::ios::binary);
    std::vector<char> all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_EQ(all.size(), sizeof(ltt_file_header) + expect.size());
    EXPECT_EQ(std::memcmp(all.data() + sizeof(ltt_file_header), expect.data(), expect.size()), 0);
    std::remove(path.c_str());
}

TEST(CommitBuffer, WriteErrorSurfacesOnTheNextRotate) {
    // A pipe whose reader went away: the header fits in the pipe, the first
    // commit fails with EPIPE in the writer thread and reaches the caller.
    ::signal(SIGPIPE, SIG_IGN);
    int p[2];
    ASSERT_EQ(::pipe(p), 0);
    ltt_trace_info info{};
    info.abi_version = LTT_ABI_VERSION;
    info.ncpus = 1;
    info.tsc_khz = 1000000;
    TraceWriter w(UniqueFd(p[1]), "pipe", makeFileHeader(info, "test", LTT_FILE_VERSION));
    ::close(p[0]);
    CommitBuffer buf(w, 4096);
    Bytes b = makeBlock(0, 0, 3);
    std::memcpy(buf.space().data(), b.data(), b.size());
    buf.commit(b.size());
    try {
        buf.flush();
        FAIL() << "no error";
    } catch (const std::system_error& e) {
        EXPECT_EQ(e.code().value(), EPIPE);
        EXPECT_NE(std::string(e.what()).find("cannot write"), std::string::npos) << e.what();
    }
}
