// CONFIG records (the event mask changed while tracing): TraceAnalysis keeps
// them in time order and knows when each event kind was not recorded; the
// text report says so instead of printing a bare count, the JSON report
// lists the changes, and -d's description shows the new configuration.
#include "trace_builder.hpp"

#include <cstdio>
#include <gtest/gtest.h>
#include <libltt/event_format.hpp>
#include <libltt/report_render.hpp>
#include <libltt/trace_analysis.hpp>
#include <ltt/module_events.h>
#include <string>

using ltt::test::TraceBuilder;

namespace {

constexpr std::uint64_t kSyscalls =
    LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY) | LTT_EV_BIT(LTT_EV_SYSCALL_EXIT);

ltt_ev_config config(std::uint64_t events) {
    ltt_ev_config c{};
    c.event_mask = events;
    c.details_mask = LTT_EV_MASK_ALL;
    return c;
}

// Two CPUs, one tick per ns, anchor 1000 (ns = tsc - 1000). TRAP is masked
// out from the start; system calls are off from 2000 (ns 1000) to 4000
// (ns 3000), the change made on CPU 1 and then on CPU 0.
TraceBuilder changedTrace() {
    TraceBuilder b(2);
    b.header().config.event_mask = (LTT_EV_MASK_ALL | LTT_EV_MASK_STRUCTURE) &
                                   ~(LTT_EV_BIT(LTT_EV_TRAP_ENTRY) | LTT_EV_BIT(LTT_EV_TRAP_EXIT));
    const std::uint64_t on = b.header().config.event_mask;
    b.block(0, 1000, 100);
    b.ev(1100, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x401000, 39, 0});
    b.ev(1200, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{100});
    b.ev(4000, LTT_EV_CONFIG, LTT_CONFIG_EVENTS, config(on));
    b.ev(4100, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x401000, 39, 0});
    b.ev(4200, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{100});
    b.end(5000);
    b.block(1, 1000, 0);
    b.ev(2000, LTT_EV_CONFIG, LTT_CONFIG_EVENTS, config(on & ~kSyscalls));
    b.ev(2500, LTT_EV_KERNEL_TIMER);
    b.end(5000);
    return b;
}

struct Analyzed {
    std::vector<std::byte> bytes;
    std::unique_ptr<ltt::TraceReader> reader;
    std::unique_ptr<ltt::TraceAnalysis> analysis;
};

Analyzed analyze(const TraceBuilder& b) {
    Analyzed a;
    a.bytes = b.bytes();
    ltt::TraceError e;
    a.reader = ltt::TraceReader::openMemory(a.bytes, "t.trace", &e);
    if (!a.reader)
        throw std::runtime_error(e.str());
    a.analysis = std::make_unique<ltt::TraceAnalysis>(*a.reader, nullptr);
    if (!a.analysis->run())
        throw std::runtime_error(a.analysis->error()->str());
    return a;
}

std::string render(void (*writer)(std::FILE*, const ltt::TraceAnalysis&, const ltt::ReportOptions&),
                   const ltt::TraceAnalysis& a) {
    char* buf = nullptr;
    std::size_t size = 0;
    std::FILE* f = open_memstream(&buf, &size);
    ltt::ReportOptions o;
    o.summarize = true;
    writer(f, a, o);
    std::fclose(f);
    std::string s(buf, size);
    std::free(buf);
    return s;
}

TEST(ConfigChange, ChangesInTimeOrderAndTheIntervalsNotRecorded) {
    auto a = analyze(changedTrace());
    const auto& ch = a.analysis->configChanges();
    ASSERT_EQ(ch.size(), 2u);
    EXPECT_EQ(ch[0].ns, 1000u);
    EXPECT_EQ(ch[0].cpu, 1u);
    EXPECT_EQ(ch[0].config.event_mask & kSyscalls, 0u);
    EXPECT_EQ(ch[1].ns, 3000u);
    EXPECT_EQ(ch[1].cpu, 0u);
    EXPECT_EQ(ch[1].config.event_mask & kSyscalls, kSyscalls);

    const auto off = a.analysis->notRecorded(LTT_EV_SYSCALL_ENTRY);
    ASSERT_EQ(off.size(), 1u);
    EXPECT_EQ(off[0].fromNs, 1000u);
    EXPECT_EQ(off[0].toNs, 3000u);
    EXPECT_TRUE(a.analysis->notRecorded(LTT_EV_SCHEDCHANGE).empty());
    const auto never = a.analysis->notRecorded(LTT_EV_TRAP_ENTRY);
    ASSERT_EQ(never.size(), 1u);
    EXPECT_EQ(never[0].fromNs, a.analysis->firstNs());
    EXPECT_EQ(never[0].toNs, a.analysis->lastNs());
}

TEST(ConfigChange, TextReportSaysWhenEventsWereNotRecorded) {
    auto a = analyze(changedTrace());
    const std::string text = render(ltt::writeTextReport, *a.analysis);
    EXPECT_NE(text.find("Syscall entry                   2 (not recorded from 0.000001000 s to "
                        "0.000003000 s)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("Trap entry                      \u2014 (not recorded)"), std::string::npos)
        << text;
    // A kind recorded throughout keeps its plain count.
    EXPECT_NE(text.find("Kernel timer                    1\n"), std::string::npos) << text;
}

TEST(ConfigChange, JsonListsTheChanges) {
    auto a = analyze(changedTrace());
    const std::string json = render(ltt::writeJsonReport, *a.analysis);
    EXPECT_NE(json.find("\"config_changes\": [\n    {\"time_ns\": 1000, \"cpu\": 1, \"changed\": "
                        "\"events\", \"event_mask\": "),
              std::string::npos)
        << json;
    EXPECT_NE(json.find("{\"time_ns\": 3000, \"cpu\": 0, \"changed\": \"events\""),
              std::string::npos);
}

TEST(ConfigChange, JsonOfAnUnchangedTraceHasNoChanges) {
    TraceBuilder b(1);
    b.block(0, 1000, 100).end(1100);
    auto a = analyze(b);
    EXPECT_TRUE(a.analysis->configChanges().empty());
    EXPECT_EQ(render(ltt::writeJsonReport, *a.analysis).find("config_changes"), std::string::npos);
}

TEST(ConfigChange, DumpDescribesTheNewConfiguration) {
    TraceBuilder b(1);
    b.block(0, 1000, 100);
    ltt_ev_config c = config(LTT_EV_BIT(LTT_EV_SCHEDCHANGE));
    c.filters = LTT_FILTER_PID;
    c.pid = 42;
    c.vars_mask = 3;
    b.ev(1100, LTT_EV_CONFIG, LTT_CONFIG_PID, c);
    b.end(1200);
    auto a = analyze(b);
    auto cur = a.reader->begin();
    std::string desc;
    for (; cur.valid(); cur.next())
        if (cur.event().id == LTT_EV_CONFIG)
            desc = ltt::describeEvent(cur.event());
    EXPECT_EQ(ltt::eventName(LTT_EV_CONFIG), "Config");
    EXPECT_EQ(
        desc, "CHANGED : PID; EVENTS : 0x80; DETAILS : 0x" + [] {
            char h[32];
            std::snprintf(h, sizeof h, "%llx", static_cast<unsigned long long>(LTT_EV_MASK_ALL));
            return std::string(h);
        }() + "; PID : 42; VARS : 0x3");
}

} // namespace
