// toCtf on hand-built traces, checked byte by byte against the layout
// docs/convert.md gives (packet header and context, LTTng's large event
// header, the fields), where the suite's traces cannot reach: a gap too
// long for the compact header's 32-bit timestamp, a loss's empty packet,
// exits whose entries are unknown, an existing output directory.
#include "trace_builder.hpp"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <libltt/convert.hpp>
#include <libltt/proc_file.hpp>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {

using ltt::test::TraceBuilder;
namespace fs = std::filesystem;

// A fresh directory for one test's files.
std::string testDir(const std::string& name) {
    const std::string d = ::testing::TempDir() + "/convert_ctf_" + name;
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

// Writes the trace and a .proc naming task 100 "worker"; returns the
// trace's path (the .proc is beside it).
std::string writeTrace(const std::string& dir, const TraceBuilder& b) {
    const auto bytes = b.bytes();
    std::ofstream(dir + "/t.trace", std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    ltt::ProcSnapshot snap;
    ltt::ProcTask t;
    t.pid = t.tgid = 100;
    t.ppid = 1;
    t.state = 'S';
    t.name = "worker";
    snap.tasks.push_back(t);
    ltt::writeProcFile(dir + "/t.proc", snap);
    return dir + "/t.trace";
}

ltt::convert::Result convert(const std::string& dir, const std::string& out) {
    ltt::convert::Options o;
    o.log = nullptr;
    return ltt::convert::toCtf(dir + "/t.trace", dir + "/t.proc", out, o);
}

// A little-endian reader over one stream file.
struct Bytes {
    std::vector<unsigned char> b;
    std::size_t at = 0;
    explicit Bytes(const std::string& path) {
        std::ifstream f(path, std::ios::binary);
        b.assign(std::istreambuf_iterator<char>(f), {});
    }
    template <class T> T get() {
        T v{};
        EXPECT_LE(at + sizeof v, b.size());
        if (at + sizeof v <= b.size())
            std::memcpy(&v, b.data() + at, sizeof v);
        at += sizeof v;
        return v;
    }
};

struct PacketContext {
    std::uint64_t begin, end, contentBits, packetBits, seq, discarded;
    std::uint32_t cpu;
};

// Reads a packet header (checking magic and stream) and its context.
PacketContext packet(Bytes& s, std::uint32_t cpu) {
    EXPECT_EQ(s.get<std::uint32_t>(), 0xC1FC1FC1u);
    s.at += 16;                             // uuid
    EXPECT_EQ(s.get<std::uint32_t>(), 0u);  // stream_id
    EXPECT_EQ(s.get<std::uint64_t>(), cpu); // stream_instance_id
    PacketContext c{};
    c.begin = s.get<std::uint64_t>();
    c.end = s.get<std::uint64_t>();
    c.contentBits = s.get<std::uint64_t>();
    c.packetBits = s.get<std::uint64_t>();
    c.seq = s.get<std::uint64_t>();
    c.discarded = s.get<std::uint64_t>();
    c.cpu = s.get<std::uint32_t>();
    EXPECT_EQ(c.cpu, cpu);
    EXPECT_EQ(c.contentBits, c.packetBits);
    return c;
}

// An event header: the id, and the timestamp as the reader rebuilds it
// from `clock` (the stream's previous timestamp).
struct Header {
    std::uint32_t id;
    std::uint64_t ns;
    bool extended;
};
Header header(Bytes& s, std::uint64_t clock) {
    Header h{};
    const auto id = s.get<std::uint16_t>();
    if (id == 65535) {
        h.id = s.get<std::uint32_t>();
        h.ns = s.get<std::uint64_t>();
        h.extended = true;
        return h;
    }
    h.id = id;
    const auto low = s.get<std::uint32_t>();
    h.ns = (clock & ~0xffffffffull) | low;
    if (low < (clock & 0xffffffffull))
        h.ns += 1ull << 32;
    return h;
}

// The statedump at the start of CPU 0's stream: start, worker's
// process_state, end, all at `ns`.
void skipStatedump(Bytes& s, std::uint64_t ns) {
    Header h = header(s, ns);
    EXPECT_EQ(h.id, 12u); // lttng_statedump_start
    h = header(s, ns);
    EXPECT_EQ(h.id, 14u); // lttng_statedump_process_state
    EXPECT_EQ(s.get<std::int32_t>(), 100);
    s.at += 4 + 4; // pid, ppid
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(s.b.data() + s.at)), "worker");
    s.at += 16 + 4 * 4 + 4 + 8;
    h = header(s, ns);
    EXPECT_EQ(h.id, 13u); // lttng_statedump_end
}

constexpr std::uint32_t kSysEntry = 1000, kSysExit = 2000, kLtt = 64;
constexpr std::uint32_t kNrRead = 0;

TEST(ConvertCtf, GapBeyond32BitsTakesTheExtendedHeader) {
    const std::string dir = testDir("gap");
    // 1 tick = 1 ns, anchor at tick 1000: ns = tick - 1000.
    TraceBuilder b(1);
    const std::uint64_t far = 6000002000ull; // 6 s on: more than 2^32 ns
    ltt_ev_syscall_entry entry{0x401000, kNrRead, 0};
    ltt_ev_syscall_exit exit{7};
    b.block(0, 1000, 100)
        .ev(2000, LTT_EV_SYSCALL_ENTRY, 0, entry)
        .heartbeat(far)
        .ev(far + 500, LTT_EV_SYSCALL_EXIT, 0, exit)
        .ev(far + 1000, LTT_EV_TRAP_EXIT)
        .end(far + 2000);
    writeTrace(dir, b);
    const auto r = convert(dir, dir + "/out");
    EXPECT_EQ(r.eventsRead, 6u); // block start and end, heartbeat, three events
    EXPECT_EQ(r.eventsWritten, 3u);
    EXPECT_EQ(r.eventsDropped, 3u);
    EXPECT_EQ(r.eventsAdded, 3u);
    EXPECT_EQ(r.lost, 0u);
    ASSERT_GT(r.droppedByEvent.size(), std::size_t(LTT_EV_HEARTBEAT));
    EXPECT_EQ(r.droppedByEvent[LTT_EV_HEARTBEAT], 1u);
    EXPECT_EQ(r.droppedByEvent[LTT_EV_BLOCK_START], 1u);
    EXPECT_EQ(r.droppedByEvent[LTT_EV_BLOCK_END], 1u);

    Bytes s(dir + "/out/channel0_0");
    const PacketContext c = packet(s, 0);
    EXPECT_EQ(c.begin, 0u);
    EXPECT_EQ(c.end, far + 2000 - 1000); // the block's end
    EXPECT_EQ(c.seq, 0u);
    EXPECT_EQ(c.discarded, 0u);
    EXPECT_EQ(c.contentBits, s.b.size() * 8);
    skipStatedump(s, 0);
    Header h = header(s, 0);
    EXPECT_EQ(h.id, kSysEntry + kNrRead);
    EXPECT_EQ(h.ns, 1000u);
    EXPECT_FALSE(h.extended);
    h = header(s, h.ns);
    EXPECT_EQ(h.id, kSysExit + kNrRead);
    EXPECT_EQ(h.ns, far + 500 - 1000);
    EXPECT_TRUE(h.extended);
    EXPECT_EQ(s.get<std::int64_t>(), 7);
    h = header(s, h.ns);
    EXPECT_EQ(h.id, kLtt + LTT_EV_TRAP_EXIT);
    EXPECT_EQ(h.ns, far + 1000 - 1000);
    EXPECT_FALSE(h.extended);
    EXPECT_EQ(s.at, s.b.size());
}

TEST(ConvertCtf, LossGetsAnEmptyPacketAndUnmatchedExitsAreDropped) {
    const std::string dir = testDir("lost");
    TraceBuilder b(2);
    ltt_ev_syscall_entry entry{0x401000, kNrRead, 0};
    ltt_ev_syscall_exit exit{3};
    ltt_ev_irq_entry irq{14, 0};
    b.block(0, 1000, 100)
        .ev(1500, LTT_EV_IRQ_EXIT) // its entry came before the trace
        .ev(2000, LTT_EV_SYSCALL_ENTRY, 0, entry)
        .end(3000);
    // CPU 1 loses 5 events; then the exit of the call opened before the
    // loss is not trusted: it may be another call's.
    b.block(1, 2500, 0).ev(2600, LTT_EV_IRQ_ENTRY, 0, irq).ev(2700, LTT_EV_IRQ_EXIT).end(2800);
    b.block(0, 9000, 100, 5).ev(9100, LTT_EV_SYSCALL_EXIT, 0, exit).end(9500);
    writeTrace(dir, b);
    const auto r = convert(dir, dir + "/out");
    EXPECT_EQ(r.lost, 5u);
    ASSERT_GT(r.droppedByEvent.size(), std::size_t(LTT_EV_LOST));
    EXPECT_EQ(r.droppedByEvent[LTT_EV_SYSCALL_EXIT], 1u);
    EXPECT_EQ(r.droppedByEvent[LTT_EV_IRQ_EXIT], 1u);
    EXPECT_EQ(r.droppedByEvent[LTT_EV_LOST], 1u);
    EXPECT_EQ(r.eventsWritten + r.eventsDropped, r.eventsRead);

    Bytes s(dir + "/out/channel0_0");
    PacketContext c = packet(s, 0);
    EXPECT_EQ(c.discarded, 0u);
    skipStatedump(s, 0);
    Header h = header(s, c.begin);
    EXPECT_EQ(h.id, kSysEntry + kNrRead);
    EXPECT_EQ(h.ns, 1000u);
    EXPECT_EQ(c.end, 1000u); // the packet ends with the last event before the loss
    EXPECT_EQ(s.at * 8, c.contentBits);
    // The loss: an empty packet from that event to the block after it.
    c = packet(s, 0);
    EXPECT_EQ(c.seq, 1u);
    EXPECT_EQ(c.discarded, 5u);
    EXPECT_EQ(c.begin, 1000u);
    EXPECT_EQ(c.end, 8000u);
    EXPECT_EQ(c.contentBits, (32u + 52u) * 8);
    // Then the rest, with the running total; the exit was dropped.
    c = packet(s, 0);
    EXPECT_EQ(c.seq, 2u);
    EXPECT_EQ(c.discarded, 5u);
    EXPECT_EQ(c.end, 8500u);
    EXPECT_EQ(s.at, s.b.size());

    Bytes s1(dir + "/out/channel0_1");
    c = packet(s1, 1);
    h = header(s1, c.begin);
    EXPECT_EQ(h.id, 6u); // irq_handler_entry
    EXPECT_EQ(s1.get<std::int32_t>(), 14);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(s1.b.data() + s1.at)), "irq 14");
    s1.at += 7;
    h = header(s1, h.ns);
    EXPECT_EQ(h.id, 7u); // irq_handler_exit, with its entry's number
    EXPECT_EQ(s1.get<std::int32_t>(), 14);
    EXPECT_EQ(s1.get<std::int32_t>(), 1);
    EXPECT_EQ(s1.at, s1.b.size());
}

TEST(ConvertCtf, OutputIsPrivateAndForeignFilesAreRefused) {
    const std::string dir = testDir("out");
    TraceBuilder b(1);
    b.block(0, 1000, 100).ev(2000, LTT_EV_KERNEL_TIMER).end(3000);
    writeTrace(dir, b);
    const mode_t old = ::umask(0);
    convert(dir, dir + "/out");
    ::umask(old);
    struct stat st;
    ASSERT_EQ(::stat((dir + "/out").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0700u);
    for (const char* f : {"metadata", "channel0_0"}) {
        ASSERT_EQ(::stat((dir + "/out/" + f).c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & 07777, 0600u) << f;
    }
    std::ofstream(dir + "/out/notes.txt") << "x";
    try {
        convert(dir, dir + "/out");
        ADD_FAILURE() << "a directory holding other files was written";
    } catch (const ltt::convert::Error& e) {
        EXPECT_NE(std::string(e.what()).find("it holds notes.txt"), std::string::npos) << e.what();
    }
    try {
        convert(dir, dir + "/t.proc");
        ADD_FAILURE() << "a regular file was taken for the output directory";
    } catch (const ltt::convert::Error& e) {
        EXPECT_NE(std::string(e.what()).find("not a directory"), std::string::npos) << e.what();
    }
}

} // namespace

namespace {

// babeltrace2's text output for `dir`, and its exit status.
std::string babeltrace(const std::string& dir, int* status) {
    std::string out;
    FILE* p = ::popen(
        ("babeltrace2 --no-delta --fields=loglevel --clock-seconds '" + dir + "' 2>&1").c_str(),
        "r");
    if (!p) {
        *status = -1;
        return out;
    }
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, p))
        out.append(buf, n);
    *status = ::pclose(p);
    return out;
}

bool haveBabeltrace() {
    return std::system("command -v babeltrace2 >/dev/null 2>&1") == 0;
}

} // namespace

// Every ltt event and subtype, an event whose details were masked out and
// an event id this version does not know: the metadata declares each one
// the trace uses, and babeltrace2 reads them all (suite 25's traces hold
// only some types). Without babeltrace2 this fails: it is a test
// dependency (scripts/install-deps.sh).
TEST(ConvertCtf, EveryEventTypeReadsInBabeltrace2) {
    ASSERT_TRUE(haveBabeltrace()) << "babeltrace2 not found: scripts/install-deps.sh installs it";
    const std::string dir = testDir("every");
    TraceBuilder b(1);
    b.block(0, 1000, 100);
    std::uint64_t t = 2000;
    const ltt_ev_trace_start start{1000000, 1000, 0, ~0ull, ~0ull};
    b.ev(t++, LTT_EV_TRACE_START, 0, start);
    b.ev(t++, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x401000, 4000, 0}); // no name
    b.ev(t++, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{-38});
    b.ev(t++, LTT_EV_TRAP_ENTRY, 0, ltt_ev_trap_entry{0x401000, 0xdead000, 14, 6});
    b.ev(t++, LTT_EV_TRAP_EXIT);
    b.ev(t++, LTT_EV_IRQ_ENTRY, 0, ltt_ev_irq_entry{0xec, LTT_IRQ_VECTOR});
    b.ev(t++, LTT_EV_IRQ_ENTRY, 0, ltt_ev_irq_entry{0x33, LTT_IRQ_VECTOR}); // no name
    b.ev(t++, LTT_EV_IRQ_EXIT);
    b.ev(t++, LTT_EV_IRQ_EXIT);
    b.ev(t++, LTT_EV_KERNEL_TIMER);
    for (std::uint8_t sub = 0; sub < LTT_SOFTIRQ_MAX; ++sub)
        b.ev(t++, LTT_EV_SOFT_IRQ, sub, ltt_ev_soft_irq{sub < 2 ? 9u : 0xffffffff81000000ull});
    for (std::uint8_t sub = 0; sub < LTT_PROCESS_MAX; ++sub)
        b.ev(t++, LTT_EV_PROCESS, sub, ltt_ev_process{200 + sub, 0, 17});
    for (std::uint8_t sub = 0; sub < LTT_FS_MAX; ++sub) {
        ltt_ev_file_system f{};
        f.fd = 3;
        f.arg = 42;
        std::strcpy(f.name, "/usr/bin/tool");
        const bool named = sub == LTT_FS_EXEC || sub == LTT_FS_OPEN;
        b.evBytes(t++, LTT_EV_FILE_SYSTEM, sub, &f, named ? LTT_EV_FS_FIXED + 14 : LTT_EV_FS_FIXED);
    }
    for (std::uint8_t sub = 0; sub < LTT_TIMER_MAX; ++sub)
        b.ev(t++, LTT_EV_TIMER, sub, ltt_ev_timer{1000, 1, 0});
    for (std::uint8_t sub = 0; sub < LTT_MEMORY_MAX; ++sub)
        b.ev(t++, LTT_EV_MEMORY, sub, ltt_ev_memory{0x7f0000000000ull, 2});
    for (std::uint8_t sub = 0; sub < LTT_SOCKET_MAX; ++sub)
        b.ev(t++, LTT_EV_SOCKET, sub, ltt_ev_socket{3, 4, 1, 0, 99});
    for (std::uint8_t sub = 0; sub < LTT_IPC_MAX; ++sub)
        b.ev(t++, LTT_EV_IPC, sub, ltt_ev_ipc{1, 5, 0600, 0});
    for (std::uint8_t sub = 0; sub < LTT_NETWORK_MAX; ++sub)
        b.ev(t++, LTT_EV_NETWORK, sub, ltt_ev_network{0x0800, 0});
    ltt_ev_custom c{};
    c.id = 7;
    c.length = 3;
    std::memcpy(c.data, "abc", 3);
    b.evBytes(t++, LTT_EV_CUSTOM, 0, &c, LTT_EV_CUSTOM_FIXED + 3);
    b.ev(t++, LTT_EV_SCHEDCHANGE); // details masked out
    const std::uint64_t unknown = 0x1122334455667788ull;
    b.ev(t++, 40, 2, unknown);
    b.end(t + 100);
    writeTrace(dir, b);
    const auto r = convert(dir, dir + "/out");
    EXPECT_EQ(r.eventsWritten + r.eventsDropped, r.eventsRead);

    int status = 0;
    const std::string out = babeltrace(dir + "/out", &status);
    EXPECT_EQ(status, 0) << out;
    for (const char* want : {
             "ltt_trace_start: { cpu_id = 0 }, { tsc_khz = 1000000,",
             "syscall_entry_unknown: { cpu_id = 0 }, { id = 4000 }",
             "syscall_exit_unknown: { cpu_id = 0 }, { id = 4000, ret = -38 }",
             "ltt_trap_entry: { cpu_id = 0 }, { ip = 0x401000, address = 0xDEAD000, trap = 14, "
             "error_code = 6 }",
             "x86_irq_vectors_local_timer_entry: { cpu_id = 0 }, { vector = 236 }",
             "irq_handler_entry: { cpu_id = 0 }, { irq = 51, name = \"vector 51\" }",
             "irq_handler_exit: { cpu_id = 0 }, { irq = 51, ret = 1 }",
             "x86_irq_vectors_local_timer_exit: { cpu_id = 0 }, { vector = 236 }",
             "irq_softirq_entry: { cpu_id = 0 }, { vec = 9, name = ( \"RCU\" : container = 9 ) }",
             "ltt_soft_irq: { cpu_id = 0 }, { subtype = ( \"TASKLET_EXIT\" : container = 3 ), "
             "id = 0xFFFFFFFF81000000 }",
             "sched_process_fork: { cpu_id = 0 }, { parent_comm = \"worker\", parent_tid = 100,",
             "child_comm = \"worker\", child_tid = 200,",
             // 202 was never named: neither in the .proc nor forked.
             "sched_process_exit: { cpu_id = 0 }, { comm = \"unknown\", tid = 202, prio = 20 }",
             "sched_process_wait: { cpu_id = 0 }, { comm = \"worker\", tid = 203, prio = 20 }",
             "ltt_process: { cpu_id = 0 }, { subtype = ( \"SIGNAL\" : container = 4 ), pid = 204,",
             "sched_wakeup: { cpu_id = 0 }, { comm = \"unknown\", tid = 205, prio = 20, "
             "target_cpu = 0 }",
             "sched_process_exec: { cpu_id = 0 }, { filename = \"/usr/bin/tool\", tid = 100, "
             "old_tid = 100 }",
             "ltt_file_system: { cpu_id = 0 }, { subtype = ( \"OPEN\" : container = 3 ), fd = 3, "
             "aux = 0, arg = 42, name = \"/usr/bin/tool\" }",
             "ltt_file_system: { cpu_id = 0 }, { subtype = ( \"POLL\" : container = 10 ), fd = 3, "
             "aux = 0, arg = 42, name = \"\" }",
             "ltt_timer: { cpu_id = 0 }, { subtype = ( \"SET_TIMEOUT\" : container = 2 ), arg = "
             "1000, aux = 1,",
             "ltt_memory: { cpu_id = 0 }, { subtype = ( \"PAGE_WAIT_END\" : container = 5 ), "
             "address = 0x7F0000000000, arg = 2 }",
             "ltt_socket: { cpu_id = 0 }, { subtype = ( \"SO_RECEIVE\" : container = 3 ), call = "
             "3, "
             "id = 4, type = 1, reserved = 0, size = 99 }",
             "ltt_ipc: { cpu_id = 0 }, { subtype = ( \"SHM_CREATE\" : container = 3 ), call = 1, "
             "id = 5, flags = 384,",
             "ltt_network: { cpu_id = 0 }, { subtype = ( \"PACKET_OUT\" : container = 1 ), "
             "protocol = 0x800,",
             "ltt_custom: { cpu_id = 0 }, { id = 7, length = 3, data = [ [0] = 97, [1] = 98, [2] = "
             "99 ] }",
             "ltt_schedchange: { cpu_id = 0 }, { in = 0, out = 0, out_state = 0, reserved = 0 }",
             "ltt_unknown: { cpu_id = 0 }, { ltt_event = 40, subtype = 2, length = 8, details = [",
         })
        EXPECT_NE(out.find(want), std::string::npos) << "missing: " << want << "\n" << out;
}
