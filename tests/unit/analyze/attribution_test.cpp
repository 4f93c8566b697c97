// Attribution (docs/analysis.md): every event goes to the task the trace
// says is current on its CPU, or, where the trace does not say, to the
// "unattributed" entry with the reason; never to another process. The
// reader's Event::pid follows the same rule (kUnknownPid), and the text and
// JSON reports show the entry.
#include "analysis_equal.hpp"
#include "trace_builder.hpp"

#include <cstdio>
#include <cstring>
#include <gtest/gtest.h>
#include <libltt/report_render.hpp>
#include <libltt/trace_analysis.hpp>
#include <ltt/module_events.h>
#include <memory>
#include <stdexcept>
#include <string>

using ltt::Unattributed;
using ltt::test::TraceBuilder;

namespace {

constexpr std::uint32_t kWrite = 1, kGetpid = 39;
constexpr std::int32_t kDaemon = 50, kProg = 200, kOther = 300;

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

const ltt::Process* find(const ltt::TraceAnalysis& a, std::int32_t pid) {
    for (const ltt::Process& p : a.processes())
        if (p.pid == pid && !p.exited)
            return &p;
    return nullptr;
}

std::uint64_t calls(const ltt::Process* p, std::uint32_t nr) {
    if (!p)
        return 0;
    const ltt::SyscallStats* s = p->stats.syscallTable.find(nr);
    return s ? s->count : 0;
}

// `n` getpid calls and one write, as a program makes them.
void work(TraceBuilder& b, std::uint64_t& t, int n) {
    for (int i = 0; i < n; ++i) {
        b.ev(t += 10, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x401000, kGetpid, 0});
        b.ev(t += 10, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{kProg});
    }
    b.ev(t += 10, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x401000, kWrite, 0});
    b.ev(t += 10, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{5});
}

// `tracedaemon -e SYSCALL -- prog`: the daemon's thread opens the block,
// then prog runs on the same CPU without a recorded switch.
TraceBuilder syscallsOnly(bool context) {
    TraceBuilder b(2);
    b.header().config.event_mask =
        LTT_EV_MASK_STRUCTURE | LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY) | LTT_EV_BIT(LTT_EV_SYSCALL_EXIT);
    if (context)
        b.header().flags |= LTT_TRACE_F_CONTEXT;
    std::uint64_t t = 1000;
    b.block(0, t, kDaemon);
    b.ev(t += 10, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x402000, 0, 0}); // read
    b.ev(t += 10, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{8});
    if (context)
        b.ev(t += 10, LTT_EV_CONTEXT, LTT_CONTEXT_SWITCH, ltt_ev_context{kProg, kProg});
    work(b, t, 7);
    if (context)
        b.ev(t += 10, LTT_EV_CONTEXT, LTT_CONTEXT_SWITCH, ltt_ev_context{kDaemon, kDaemon});
    b.ev(t += 10, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x402000, 0, 0});
    b.ev(t += 10, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{8});
    b.end(t + 10);
    // A second block of CPU 0 that starts while prog runs.
    b.block(0, t += 100, kProg);
    work(b, t, 3);
    b.end(t + 10);
    b.block(1, 1000, 0);
    b.end(2000);
    return b;
}

} // namespace

// Before: all 12 getpid, 2 write and 2 read calls went to the daemon (the
// block's pid), and prog had none.
TEST(Attribution, SyscallsOnlyWithoutContextAreUnattributed) {
    const Analyzed a = analyze(syscallsOnly(false));
    const ltt::TraceAnalysis& an = *a.analysis;
    EXPECT_EQ(calls(find(an, kDaemon), kGetpid), 0u);
    EXPECT_EQ(calls(find(an, kDaemon), 0), 0u);
    EXPECT_EQ(find(an, kProg), nullptr);
    EXPECT_EQ(calls(&an.unattributed(), kGetpid), 10u);
    EXPECT_EQ(calls(&an.unattributed(), kWrite), 2u);
    EXPECT_EQ(calls(&an.unattributed(), 0), 2u);
    EXPECT_EQ(an.unattributed().stats.syscalls, 14u);
    // Every record after the CPUs' first block starts: CPU 0's 2 + 16 + 2
    // + 8 calls, its second BLOCK_START and two BLOCK_ENDs, CPU 1's
    // BLOCK_END.
    EXPECT_EQ(an.unattributedEvents(Unattributed::NoContext), 28u + 4u);
    EXPECT_EQ(an.unattributedEvents(), an.unattributedEvents(Unattributed::NoContext));
    // The reader says the same: no event of CPU 0 carries a task.
    for (auto c = a.reader->begin(); c.valid(); c.next()) {
        if (c.event().cpu == 0) {
            EXPECT_EQ(c.event().pid, ltt::kUnknownPid) << "record at " << c.event().offset;
        }
    }
    EXPECT_EQ(ltt::test::runMatchesMergedOrder(*a.reader, nullptr), "");
}

TEST(Attribution, SyscallsOnlyWithContextRecordsGoToTheirTask) {
    const Analyzed a = analyze(syscallsOnly(true));
    const ltt::TraceAnalysis& an = *a.analysis;
    const ltt::Process* prog = find(an, kProg);
    ASSERT_NE(prog, nullptr);
    EXPECT_EQ(calls(prog, kGetpid), 10u);
    EXPECT_EQ(calls(prog, kWrite), 2u);
    EXPECT_EQ(calls(prog, 0), 0u);
    EXPECT_EQ(prog->tgid, kProg);
    EXPECT_EQ(calls(find(an, kDaemon), 0), 2u);
    EXPECT_EQ(calls(find(an, kDaemon), kGetpid), 0u);
    EXPECT_EQ(an.unattributedEvents(), 0u);
    EXPECT_EQ(an.unattributed().stats.syscalls, 0u);
    std::int32_t last = 0;
    for (auto c = a.reader->begin(); c.valid(); c.next())
        if (c.event().cpu == 0 && c.event().id == LTT_EV_SYSCALL_ENTRY)
            last = c.event().pid;
    EXPECT_EQ(last, kProg);
    EXPECT_EQ(ltt::test::runMatchesMergedOrder(*a.reader, nullptr), "");
}

// A restricted session: the owner's program became the owner's through su
// (setuid, exec) while it ran, so the last switch showed pid 0 (a task the
// session may not see). Before: its calls were dropped or charged to pid 0.
TEST(Attribution, RestrictedTaskThatBecameVisibleIsUnattributed) {
    auto build = [](bool context) {
        TraceBuilder b(1);
        b.header().flags |= LTT_TRACE_F_RESTRICTED | (context ? LTT_TRACE_F_CONTEXT : 0);
        std::uint64_t t = 1000;
        b.block(0, t, 0);
        b.ev(t += 10, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{kOther, 0, LTT_TASK_RUNNING, 0});
        b.ev(t += 10, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{0, kOther, LTT_TASK_RUNNING, 0});
        if (context)
            b.ev(t += 10, LTT_EV_CONTEXT, LTT_CONTEXT_OWNED, ltt_ev_context{kProg, kProg});
        work(b, t, 5);
        b.ev(t += 10, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{0, kProg, LTT_TASK_RUNNING, 0});
        b.ev(t += 10, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{kProg, 0, LTT_TASK_RUNNING, 0});
        work(b, t, 2);
        b.end(t + 10);
        return b;
    };
    {
        const Analyzed a = analyze(build(false));
        const ltt::TraceAnalysis& an = *a.analysis;
        EXPECT_EQ(calls(find(an, kProg), kGetpid), 2u);
        EXPECT_EQ(calls(&an.unattributed(), kGetpid), 5u);
        EXPECT_EQ(calls(&an.unattributed(), kWrite), 1u);
        // The 12 records from the first entry on (the schedchange that ends
        // them excluded).
        EXPECT_EQ(an.unattributedEvents(Unattributed::HiddenTask), 12u);
        EXPECT_EQ(calls(find(an, kOther), kGetpid), 0u);
        EXPECT_TRUE(an.restricted());
        EXPECT_EQ(ltt::test::runMatchesMergedOrder(*a.reader, nullptr), "");
    }
    {
        const Analyzed a = analyze(build(true));
        const ltt::TraceAnalysis& an = *a.analysis;
        EXPECT_EQ(calls(find(an, kProg), kGetpid), 7u);
        EXPECT_EQ(calls(find(an, kProg), kWrite), 2u);
        EXPECT_EQ(an.unattributedEvents(), 0u);
        EXPECT_EQ(ltt::test::runMatchesMergedOrder(*a.reader, nullptr), "");
    }
}

// A CONFIG record drops scheduling changes on CPU 1 while CPU 0 runs
// prog: from then on neither CPU knows its task, until CPU 0's next
// schedchange after they are restored.
TEST(Attribution, MaskChangeWithoutSchedchangesEndsWhatEveryCpuKnows) {
    TraceBuilder b(2);
    const std::uint64_t all = b.header().config.event_mask;
    ltt_ev_config off{}, on{};
    off.event_mask = all & ~LTT_EV_BIT(LTT_EV_SCHEDCHANGE);
    on.event_mask = all;
    b.block(0, 1000, kProg);
    std::uint64_t t = 1000;
    work(b, t, 3); // to t = 1080
    t = 2000;
    work(b, t, 4); // after the drop: unattributed
    b.ev(t = 4000, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{kProg, 0, LTT_TASK_RUNNING, 0});
    work(b, t, 1);
    b.end(t + 10);
    b.block(1, 1000, 0);
    b.ev(1500, LTT_EV_CONFIG, LTT_CONFIG_EVENTS, off);
    b.ev(3000, LTT_EV_CONFIG, LTT_CONFIG_EVENTS, on);
    b.end(5000);
    const Analyzed a = analyze(b);
    const ltt::TraceAnalysis& an = *a.analysis;
    EXPECT_EQ(calls(find(an, kProg), kGetpid), 4u);
    EXPECT_EQ(calls(find(an, kProg), kWrite), 2u);
    EXPECT_EQ(calls(&an.unattributed(), kGetpid), 4u);
    EXPECT_EQ(calls(&an.unattributed(), kWrite), 1u);
    // CPU 0: 10 records; CPU 1: the restoring CONFIG and its BLOCK_END.
    EXPECT_EQ(an.unattributedEvents(Unattributed::NoContext), 12u);
    EXPECT_EQ(ltt::test::runMatchesMergedOrder(*a.reader, nullptr), "");
}

// A block whose header names no task (pid -1), and a snapshot whose first
// blocks were overwritten: each CPU's task is its first block's.
TEST(Attribution, BlockWithoutTaskAndSnapshotBlocks) {
    TraceBuilder b(2);
    b.header().flags |= LTT_TRACE_F_SNAPSHOT;
    std::uint64_t t = 5000;
    b.block(0, t, -1, 0, 7);
    work(b, t, 2);
    b.end(t + 10);
    t = 5000;
    b.block(1, t, kProg, 0, 3);
    work(b, t, 6);
    b.end(t + 10, LTT_BLOCK_F_FINAL);
    t += 100;
    b.block(0, t, kOther, 0, 8);
    work(b, t, 1);
    b.end(t + 10, LTT_BLOCK_F_FINAL);
    const Analyzed a = analyze(b);
    const ltt::TraceAnalysis& an = *a.analysis;
    EXPECT_EQ(calls(find(an, kProg), kGetpid), 6u);
    EXPECT_EQ(calls(find(an, kOther), kGetpid), 1u);
    EXPECT_EQ(calls(&an.unattributed(), kGetpid), 2u);
    EXPECT_EQ(an.unattributedEvents(Unattributed::NoBlockTask), 7u);
    EXPECT_EQ(ltt::test::runMatchesMergedOrder(*a.reader, nullptr), "");
}

namespace {
std::string render(void (*writer)(std::FILE*, const ltt::TraceAnalysis&, const ltt::ReportOptions&),
                   const ltt::TraceAnalysis& a) {
    char* buf = nullptr;
    std::size_t size = 0;
    std::FILE* f = open_memstream(&buf, &size);
    ltt::ReportOptions o;
    o.summarize = true;
    o.analyze = true;
    writer(f, a, o);
    std::fclose(f);
    std::string s(buf, size);
    std::free(buf);
    return s;
}
} // namespace

TEST(Attribution, ReportsShowTheUnattributedEntry) {
    const Analyzed a = analyze(syscallsOnly(false));
    const std::string text = render(ltt::writeTextReport, *a.analysis);
    EXPECT_NE(text.find("!!! WARNING: 32 EVENTS COULD NOT BE ATTRIBUTED TO A TASK"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("!!!   32: the trace records neither scheduling changes"),
              std::string::npos);
    EXPECT_NE(text.find("\nunattributed (events of tasks the trace does not name"),
              std::string::npos);
    EXPECT_NE(text.find("  getpid:                        10"), std::string::npos) << text;
    const std::string json = render(ltt::writeJsonReport, *a.analysis);
    EXPECT_NE(json.find("\"unattributed\": {\"events\": 32, \"reasons\": [{\"key\": "
                        "\"no_context\", \"events\": 32, \"reason\": "),
              std::string::npos)
        << json;
    EXPECT_NE(json.find("\"syscalls\": 14"), std::string::npos);
    // A trace that attributes everything has neither.
    const Analyzed b = analyze(syscallsOnly(true));
    EXPECT_EQ(render(ltt::writeTextReport, *b.analysis).find("unattributed"), std::string::npos);
    EXPECT_EQ(render(ltt::writeJsonReport, *b.analysis).find("unattributed"), std::string::npos);
}
