// TraceWriter and makeFileHeader: what they write is what TraceReader reads.
#include "trace_builder.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <ltt/trace_reader.hpp>
#include <ltt/trace_writer.hpp>

TEST(TraceWriter, WritesHeaderAndWholeBlocks) {
    ltt_trace_info info{};
    info.abi_version = LTT_ABI_VERSION;
    info.ncpus = 2;
    info.tsc_khz = 2000000;
    info.anchor_tsc = 500;
    info.anchor_realtime_ns = 123456789;
    info.config.event_mask = LTT_EV_MASK_CORE;
    const ltt_file_header h = ltt::makeFileHeader(info, "unit 1.0");
    EXPECT_EQ(std::string(h.producer), "unit 1.0");
    EXPECT_EQ(std::string(h.sysname), "Linux");
    EXPECT_EQ(h.header_size, sizeof(ltt_file_header));
    EXPECT_EQ(h.config.event_mask, LTT_EV_MASK_CORE);

    ltt::test::TraceBuilder b(2);
    b.block(1, 600, 7).ev(700, LTT_EV_KERNEL_TIMER).end(800);
    const auto built = b.bytes();
    const std::span<const std::byte> block(built.data() + sizeof(ltt_file_header),
                                           built.size() - sizeof(ltt_file_header));
    const std::string path = ::testing::TempDir() + "/w.trace";
    {
        ltt::TraceWriter w(path, h);
        w.append(block);
        w.sync();
        EXPECT_EQ(w.bytesWritten(), sizeof(ltt_file_header) + block.size());
        w.close();
        w.close(); // idempotent
        EXPECT_THROW(w.append(block), std::system_error);
    }
    ltt::TraceError e;
    auto r = ltt::TraceReader::open(path, &e);
    ASSERT_TRUE(r) << e.str();
    EXPECT_EQ(r->header().tsc_khz, 2000000u);
    EXPECT_EQ(r->eventCount(), 3u);
    EXPECT_EQ(r->nsFromAnchor(700), 100u);
}

TEST(TraceWriter, CreateFailureNamesThePath) {
    ltt_file_header h{};
    try {
        ltt::TraceWriter w("/nonexistent/dir/x.trace", h);
        FAIL() << "no exception";
    } catch (const std::system_error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/x.trace"), std::string::npos);
    }
}
