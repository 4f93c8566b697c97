// Off-CPU stacks (traceanalyze --offcpu): STACK records decode, blocked
// intervals go to the stack their task blocked in with their exact time,
// and the folded output is what flamegraph.pl reads.
#include "trace_builder.hpp"

#include <cstdio>
#include <cstring>
#include <elf.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <initializer_list>
#include <iterator>
#include <libltt/event_format.hpp>
#include <libltt/offcpu.hpp>
#include <ltt/module_events.h>
#include <string>
#include <unistd.h>
#include <vector>

using ltt::test::TraceBuilder;

namespace {

// A kernel whose functions lie 0x100 apart from kBase.
constexpr std::uint64_t kBase = 0xffffffff81000000ull;
const char* const kKernel[] = {"__traceiter_sched_switch",
                               "__schedule",
                               "schedule",
                               "pipe_read",
                               "vfs_read",
                               "ksys_read",
                               "do_syscall_64",
                               "entry_SYSCALL_64",
                               "do_nanosleep",
                               "hrtimer_nanosleep",
                               "worker_thread"};

std::uint64_t kaddr(const char* fn, std::uint64_t off = 0x10) {
    for (std::size_t i = 0; i < std::size(kKernel); ++i)
        if (std::strcmp(kKernel[i], fn) == 0)
            return kBase + 0x100 * i + off;
    ADD_FAILURE() << fn;
    return 0;
}

std::string writeKallsyms() {
    const std::string path = std::filesystem::temp_directory_path() /
                             ("ltt-offcpu-" + std::to_string(getpid()) + ".kallsyms");
    std::ofstream out(path);
    for (std::size_t i = 0; i < std::size(kKernel); ++i) {
        out << std::hex << kBase + 0x100 * i << " t " << kKernel[i] << "\n";
        // As in a real kernel: the section marker at __schedule's address,
        // listed after it.
        if (std::strcmp(kKernel[i], "__schedule") == 0)
            out << std::hex << kBase + 0x100 * i << " T __sched_text_start\n";
    }
    return path;
}

// A STACK record of `pid` with frames `ips`, innermost first.
ltt_ev_stack stack(std::int32_t pid, std::initializer_list<std::uint64_t> ips) {
    ltt_ev_stack s{};
    s.pid = pid;
    for (std::uint64_t ip : ips)
        s.ip[s.nr++] = ip;
    return s;
}

void addStack(TraceBuilder& b, std::uint64_t t, std::uint8_t sub, const ltt_ev_stack& s) {
    b.evBytes(t, LTT_EV_STACK, sub, &s, LTT_EV_STACK_FIXED + 8 * s.nr);
}

ltt_ev_stack pipeRead(std::int32_t pid) {
    return stack(pid, {kaddr("__traceiter_sched_switch"), kaddr("__schedule"), kaddr("schedule"),
                       kaddr("pipe_read"), kaddr("vfs_read"), kaddr("ksys_read"),
                       kaddr("do_syscall_64"), kaddr("entry_SYSCALL_64")});
}

ltt_ev_stack nanosleep(std::int32_t pid) {
    return stack(pid,
                 {kaddr("__schedule"), kaddr("schedule"), kaddr("do_nanosleep"),
                  kaddr("hrtimer_nanosleep"), kaddr("do_syscall_64"), kaddr("entry_SYSCALL_64")});
}

constexpr std::int32_t kReader = 100, kSleeper = 200, kOther = 300;

TraceBuilder stackTrace() {
    TraceBuilder b(2);
    b.header().config.event_mask |= LTT_EV_BIT(LTT_EV_STACK);
    b.header().config.details_mask |= LTT_EV_BIT(LTT_EV_STACK);
    return b;
}

struct Result {
    ltt::OffCpuReport rep;
    std::string folded;
};

Result run(const TraceBuilder& b, const ltt::OffCpuOptions& o = {},
           const ltt::ProcSnapshot* snap = nullptr, bool kallsyms = true) {
    auto opened = ltt::test::open(b.bytes());
    EXPECT_TRUE(opened.reader) << opened.error.str();
    Result r;
    if (!opened.reader)
        return r;
    ltt::Symbolizer sym;
    if (kallsyms) {
        const std::string ks = writeKallsyms();
        std::string why;
        EXPECT_TRUE(sym.loadKallsyms(ks, &why)) << why;
        std::filesystem::remove(ks);
    }
    r.rep = ltt::analyzeOffCpu(*opened.reader, snap, sym, o);
    EXPECT_FALSE(r.rep.error) << r.rep.error->str();
    char* buf = nullptr;
    std::size_t len = 0;
    std::FILE* f = open_memstream(&buf, &len);
    ltt::writeFolded(f, r.rep);
    std::fclose(f);
    r.folded.assign(buf, len);
    std::free(buf);
    return r;
}

const char* const kPipeFolded = "reader;entry_SYSCALL_64;do_syscall_64;ksys_read;vfs_read;"
                                "pipe_read;schedule;__schedule";

ltt::ProcSnapshot names() {
    ltt::ProcSnapshot s;
    s.tasks.push_back({kReader, 1, kReader, kReader, 0, 0, 'S', false, "reader"});
    s.tasks.push_back({kSleeper, 1, kSleeper, kSleeper, 0, 0, 'S', false, "sleeper"});
    s.tasks.push_back({kOther, 1, kOther, kOther, 0, 0, 'R', false, "other"});
    return s;
}

} // namespace

TEST(OffCpu, StackRecordsDescribeTheirFrames) {
    TraceBuilder b = stackTrace();
    b.block(0, 1000, kReader);
    addStack(b, 1100, LTT_STACK_KERNEL,
             stack(kReader, {0xffffffff81000110ull, 0xffffffff81000210ull}));
    ltt_ev_stack u = stack(kReader, {0x401000});
    u.flags = LTT_STACK_F_TRUNCATED;
    addStack(b, 1200, LTT_STACK_USER, u);
    b.end(2000, LTT_BLOCK_F_FINAL);
    auto o = ltt::test::open(b.bytes());
    ASSERT_TRUE(o.reader) << o.error.str();
    std::vector<std::string> lines;
    for (auto c = o.reader->begin(); c.valid(); c.next())
        if (c.event().id == LTT_EV_STACK) {
            std::string s;
            ltt::describeEvent(c.event(), s);
            lines.push_back(s);
        }
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0], "KERNEL PID : 100; FRAMES : 2; 0xffffffff81000110 0xffffffff81000210");
    EXPECT_EQ(lines[1], "USER PID : 100; FRAMES : 1 (truncated); 0x401000");
}

TEST(OffCpu, BlockedTimeGoesToTheStackItBlockedIn) {
    TraceBuilder b = stackTrace();
    // CPU 0: the reader blocks in a pipe read twice (5 us, then 3 us), the
    // sleeper in nanosleep (2.4 us); CPU 1 switches them back in.
    b.block(0, 1000, kReader);
    addStack(b, 1010, LTT_STACK_KERNEL, pipeRead(kReader));
    b.ev(1020, LTT_EV_SCHEDCHANGE, 0,
         ltt_ev_schedchange{kSleeper, kReader, LTT_TASK_INTERRUPTIBLE, 0});
    addStack(b, 1030, LTT_STACK_KERNEL, nanosleep(kSleeper));
    b.ev(1040, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{0, kSleeper, LTT_TASK_INTERRUPTIBLE, 0});
    b.ev(9000, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{kReader, 0, LTT_TASK_RUNNING, 0});
    addStack(b, 9010, LTT_STACK_KERNEL, pipeRead(kReader));
    b.ev(9020, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{0, kReader, LTT_TASK_INTERRUPTIBLE, 0});
    b.end(20000, LTT_BLOCK_F_FINAL);
    b.block(1, 1000, 0);
    b.ev(3440, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{kSleeper, 0, LTT_TASK_RUNNING, 0});
    // Preempted: runnable, not blocked, so no interval.
    b.ev(4000, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{kOther, kSleeper, LTT_TASK_RUNNING, 0});
    b.ev(5000, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{kSleeper, kOther, LTT_TASK_RUNNING, 0});
    b.ev(12020, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{kReader, kSleeper, LTT_TASK_RUNNING, 0});
    b.end(20000, LTT_BLOCK_F_FINAL);
    const auto snap = names();
    const Result r = run(b, {}, &snap);
    EXPECT_EQ(r.rep.intervals, 3u);
    EXPECT_EQ(r.rep.blockedNs, 7980u + 2400u + 3000u);
    EXPECT_EQ(r.rep.withoutStack, 0u);
    EXPECT_EQ(r.rep.stackRecords, 3u);
    ASSERT_EQ(r.rep.stacks.size(), 2u);
    // Root first; the hook's frame above __schedule is gone.
    EXPECT_EQ(r.folded, std::string(kPipeFolded) + " 11\n" +
                            "sleeper;entry_SYSCALL_64;do_syscall_64;hrtimer_nanosleep;"
                            "do_nanosleep;schedule;__schedule 2\n");
    EXPECT_EQ(r.rep.stacks[0].intervals, 2u);
    EXPECT_EQ(r.rep.stacks[0].ns, 10980u);
    // No user stack; the kernel frames down to __schedule; one process each.
    EXPECT_EQ(r.rep.stacks[0].userFrames, 0u);
    EXPECT_EQ(r.rep.stacks[0].kernelFrames, 7u);
    EXPECT_TRUE(r.rep.stacks[0].recorded);
    ASSERT_EQ(r.rep.stacks[0].shares.size(), 1u);
    EXPECT_EQ(r.rep.stacks[0].shares[0].pid, kReader);
    EXPECT_EQ(r.rep.stacks[0].shares[0].ns, 10980u);
    ASSERT_EQ(r.rep.processes.size(), 2u);
    EXPECT_EQ(r.rep.processes[0].pid, kReader);
    EXPECT_EQ(r.rep.processes[0].name, "reader");
    EXPECT_EQ(r.rep.processes[0].intervals, 2u);
    EXPECT_EQ(r.rep.processes[1].pid, kSleeper);
    EXPECT_EQ(r.rep.processes[1].ns, 2400u);
    // The interval counted: the trace's first event to its last.
    EXPECT_EQ(r.rep.toNs - r.rep.fromNs, 19000u);

    // -p: one task only; --from/--to: clipped.
    ltt::OffCpuOptions o;
    o.pid = kSleeper;
    EXPECT_EQ(run(b, o, &snap).rep.blockedNs, 2400u);
    o.pid = -1;
    o.fromNs = 2000; // since the first event (t = 1000)
    o.toNs = 9500;
    const Result clipped = run(b, o, &snap);
    // The reader's first interval from 3000 to 9000, the sleeper's from
    // 3000 to 3440, the reader's second from 9020 to 10500 (still blocked).
    EXPECT_EQ(clipped.rep.blockedNs, 6000u + 440u + 1480u);
    EXPECT_EQ(clipped.rep.intervals, 3u);
    EXPECT_EQ(clipped.rep.toNs - clipped.rep.fromNs, 7500u);
}

TEST(OffCpu, ProcessesWithOneNameShareAStack) {
    // Two processes named "reader" block in the same pipe read: one stack,
    // its time split between them; a thread of the first counts with it.
    constexpr std::int32_t kSecond = 101, kThread = 102;
    TraceBuilder b = stackTrace();
    b.block(0, 1000, kReader);
    addStack(b, 1010, LTT_STACK_KERNEL, pipeRead(kReader));
    b.ev(1020, LTT_EV_SCHEDCHANGE, 0,
         ltt_ev_schedchange{kSecond, kReader, LTT_TASK_INTERRUPTIBLE, 0});
    addStack(b, 1030, LTT_STACK_KERNEL, pipeRead(kSecond));
    b.ev(1040, LTT_EV_SCHEDCHANGE, 0,
         ltt_ev_schedchange{kThread, kSecond, LTT_TASK_INTERRUPTIBLE, 0});
    b.ev(1050, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{0, kThread, LTT_TASK_INTERRUPTIBLE, 0});
    b.ev(3020, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{kReader, 0, LTT_TASK_RUNNING, 0});
    b.ev(4040, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{kSecond, kReader, LTT_TASK_RUNNING, 0});
    b.ev(5040, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{kThread, kSecond, LTT_TASK_RUNNING, 0});
    b.end(6000, LTT_BLOCK_F_FINAL);
    ltt::ProcSnapshot snap = names();
    snap.tasks.push_back({kSecond, 1, kSecond, kSecond, 0, 0, 'S', false, "reader"});
    snap.tasks.push_back({kThread, 1, kReader, kReader, 0, 0, 'S', false, "reader-worker"});
    const Result r = run(b, {}, &snap);
    EXPECT_EQ(r.rep.intervals, 3u);
    ASSERT_EQ(r.rep.stacks.size(), 2u);
    const ltt::OffCpuStack& pipe = r.rep.stacks[0]; // "reader;..." sorts first
    EXPECT_EQ(pipe.ns, 2000u + 3000u);
    ASSERT_EQ(pipe.shares.size(), 2u);
    EXPECT_EQ(pipe.shares[0].pid, kReader);
    EXPECT_EQ(pipe.shares[0].ns, 2000u);
    EXPECT_EQ(pipe.shares[1].pid, kSecond);
    EXPECT_EQ(pipe.shares[1].ns, 3000u);
    // The thread blocked without a stack record: its name alone.
    const ltt::OffCpuStack& bare = r.rep.stacks[1];
    EXPECT_EQ(bare.frames, std::vector<std::string>{"reader-worker"});
    EXPECT_FALSE(bare.recorded);
    EXPECT_EQ(bare.userFrames + bare.kernelFrames, 0u);
    ASSERT_EQ(r.rep.processes.size(), 2u);
    EXPECT_EQ(r.rep.processes[0].pid, kReader);
    EXPECT_EQ(r.rep.processes[0].name, "reader"); // the leader's name
    EXPECT_EQ(r.rep.processes[0].intervals, 2u);
    EXPECT_EQ(r.rep.processes[0].ns, 2000u + 3990u);
    EXPECT_EQ(r.rep.processes[0].withoutStack, 1u);
    EXPECT_EQ(r.rep.processes[0].withoutStackNs, 3990u);
    EXPECT_EQ(r.rep.processes[1].pid, kSecond);
    EXPECT_EQ(r.rep.processes[1].ns, 3000u);
}

TEST(OffCpu, WithoutStacksOrKallsyms) {
    TraceBuilder b = stackTrace();
    b.block(0, 1000, kReader);
    b.ev(1020, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{0, kReader, LTT_TASK_UNINTERRUPTIBLE, 0});
    b.ev(3020, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{kReader, 0, LTT_TASK_RUNNING, 0});
    // A stack of another task does not belong to this switch.
    addStack(b, 3030, LTT_STACK_KERNEL, pipeRead(kOther));
    b.ev(3040, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{0, kReader, LTT_TASK_INTERRUPTIBLE, 0});
    b.ev(4040, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{kReader, 0, LTT_TASK_RUNNING, 0});
    addStack(b, 4050, LTT_STACK_KERNEL, stack(kReader, {kaddr("__schedule"), kaddr("schedule")}));
    b.ev(4060, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{0, kReader, LTT_TASK_INTERRUPTIBLE, 0});
    b.ev(5060, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{kReader, 0, LTT_TASK_RUNNING, 0});
    b.end(6000, LTT_BLOCK_F_FINAL);
    const Result r = run(b, {}, nullptr, false);
    EXPECT_EQ(r.rep.intervals, 3u);
    EXPECT_EQ(r.rep.withoutStack, 2u);
    EXPECT_EQ(r.rep.withoutStackNs, 3000u);
    // No kallsyms: raw addresses; no .proc: the task is "unknown".
    char line[160];
    std::snprintf(line, sizeof line, "unknown;0x%llx;0x%llx 1\n",
                  static_cast<unsigned long long>(kaddr("schedule")),
                  static_cast<unsigned long long>(kaddr("__schedule")));
    EXPECT_EQ(r.folded, "unknown 3\n" + std::string(line));
}

TEST(OffCpu, LostEventsDropTheIntervalsTheyCut) {
    TraceBuilder b = stackTrace();
    b.block(0, 1000, kReader);
    addStack(b, 1010, LTT_STACK_KERNEL, pipeRead(kReader));
    b.ev(1020, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{0, kReader, LTT_TASK_INTERRUPTIBLE, 0});
    b.end(2000);
    // CPU 0's next block says 5 events were lost: the reader may have run
    // and blocked again meanwhile, so its interval is not known.
    b.block(0, 8000, 0, 5);
    b.ev(9000, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{kReader, 0, LTT_TASK_RUNNING, 0});
    addStack(b, 9010, LTT_STACK_KERNEL, pipeRead(kReader));
    b.ev(9020, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{0, kReader, LTT_TASK_INTERRUPTIBLE, 0});
    b.ev(9520, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{kReader, 0, LTT_TASK_RUNNING, 0});
    addStack(b, 9530, LTT_STACK_KERNEL, pipeRead(kReader));
    b.ev(9540, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{0, kReader, LTT_TASK_INTERRUPTIBLE, 0});
    b.end(10000, LTT_BLOCK_F_FINAL);
    const auto snap = names();
    const Result r = run(b, {}, &snap);
    EXPECT_EQ(r.rep.droppedLost, 1u);
    EXPECT_EQ(r.rep.intervals, 1u);
    EXPECT_EQ(r.rep.blockedNs, 500u);
    EXPECT_EQ(r.rep.openAtEnd, 1u);
    EXPECT_EQ(r.folded, std::string(kPipeFolded) + " 1\n");
}

TEST(OffCpu, UserFramesAreSymbolizedWithTheMappings) {
    namespace fs = std::filesystem;
    const std::string built = std::string(LTT_WORKLOAD_DIR) + "/wl_callsites-dyn";
    // The ELF address of make_getpids + 4, and the file offset it lies at.
    std::uint64_t fn = 0;
    {
        std::FILE* p = popen(("nm " + built).c_str(), "r");
        ASSERT_NE(p, nullptr);
        char l[512];
        while (std::fgets(l, sizeof l, p)) {
            unsigned long long a;
            char type, name[256];
            if (std::sscanf(l, "%llx %c %255s", &a, &type, name) == 3 &&
                std::strcmp(name, "make_getpids") == 0)
                fn = a;
        }
        pclose(p);
    }
    ASSERT_NE(fn, 0u);
    std::ifstream in(built, std::ios::binary);
    const std::vector<char> elf{std::istreambuf_iterator<char>(in),
                                std::istreambuf_iterator<char>()};
    Elf64_Ehdr eh;
    ASSERT_GE(elf.size(), sizeof eh);
    std::memcpy(&eh, elf.data(), sizeof eh);
    std::uint64_t off = 0;
    for (unsigned i = 0; i < eh.e_phnum; ++i) {
        Elf64_Phdr ph;
        std::memcpy(&ph, elf.data() + eh.e_phoff + i * eh.e_phentsize, sizeof ph);
        if (ph.p_type == PT_LOAD && fn + 4 >= ph.p_vaddr && fn + 4 - ph.p_vaddr < ph.p_filesz)
            off = fn + 4 - ph.p_vaddr + ph.p_offset;
    }
    ASSERT_NE(off, 0u);
    constexpr std::uint64_t kMapBase = 0x555555554000ull;
    ltt::ProcSnapshot snap = names();
    snap.maps.push_back(
        {kReader, kMapBase, kMapBase + fs::file_size(built) + 0x10000, "r-xp", 0, built});

    TraceBuilder b = stackTrace();
    b.block(0, 1000, kReader);
    addStack(b, 1010, LTT_STACK_KERNEL, pipeRead(kReader));
    // Innermost first: an address no mapping holds, then the return
    // address into make_getpids (the call is the byte before it).
    addStack(b, 1011, LTT_STACK_USER, stack(kReader, {0x7f0000001234ull, kMapBase + off + 1}));
    b.ev(1020, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{0, kReader, LTT_TASK_INTERRUPTIBLE, 0});
    b.ev(4020, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{kReader, 0, LTT_TASK_RUNNING, 0});
    b.end(5000, LTT_BLOCK_F_FINAL);
    const Result r = run(b, {}, &snap);
    EXPECT_EQ(r.folded, "reader;make_getpids;0x7f0000001234;entry_SYSCALL_64;do_syscall_64;"
                        "ksys_read;vfs_read;pipe_read;schedule;__schedule 3\n");
    ASSERT_EQ(r.rep.stacks.size(), 1u);
    EXPECT_EQ(r.rep.stacks[0].userFrames, 2u);
    EXPECT_EQ(r.rep.stacks[0].kernelFrames, 7u);
}
