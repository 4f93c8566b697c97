// Event names, LTT-style descriptions, the syscall table and the
// control-event rule (paper §3.5).
#include "sibling_program.hpp"
#include "trace_builder.hpp"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <libltt/event_format.hpp>
#include <libltt/event_names.hpp>
#include <libltt/symbolize.hpp>
#include <optional>
#include <sstream>
#include <unistd.h>

using ltt::test::TraceBuilder;

namespace {

// Decodes the single event (after BLOCK_START) of a one-event trace.
class OneEvent {
public:
    template <class T> OneEvent(std::uint8_t id, std::uint8_t sub, const T& d) {
        TraceBuilder b(1);
        b.block(0, 10, 120).ev(20, id, sub, d).end(30);
        init(b);
    }
    OneEvent(std::uint8_t id, std::uint8_t sub = 0) {
        TraceBuilder b(1);
        b.block(0, 10, 120).ev(20, id, sub).end(30);
        init(b);
    }
    OneEvent(std::uint8_t id, std::uint8_t sub, const void* d, std::size_t n) {
        TraceBuilder b(1);
        b.block(0, 10, 120).evBytes(20, id, sub, d, n).end(30);
        init(b);
    }
    const ltt::Event& event() const { return cursor_m->event(); }
    std::string text() const { return ltt::describeEvent(event()); }
    std::string text(const ltt::Symbolizer& kernel) const {
        std::string s;
        ltt::describeEvent(event(), s,
                           [&kernel](std::uint64_t a) { return kernel.kernelSymbol(a); });
        return s;
    }

private:
    void init(TraceBuilder& b) {
        bytes_m = b.bytes();
        reader_m = ltt::TraceReader::openMemory(bytes_m, "t", nullptr);
        cursor_m.emplace(reader_m->atIndex(1));
    }
    std::vector<std::byte> bytes_m;
    std::unique_ptr<ltt::TraceReader> reader_m;
    std::optional<ltt::TraceCursor> cursor_m;
};

// The detail bytes of a FILE_SYSTEM record without a name, and of a CUSTOM
// record with its payload.
struct FsFixed {
    std::int32_t fd;
    std::uint32_t aux;
    std::int64_t arg;
};
FsFixed fsRecord(std::int32_t fd, std::uint32_t aux, std::int64_t arg) {
    return {fd, aux, arg};
}
struct Custom {
    std::uint32_t id, length;
    char data[8];
};
Custom customRecord(std::uint32_t id, const char* payload) {
    Custom c{id, static_cast<std::uint32_t>(std::strlen(payload)), {}};
    std::memcpy(c.data, payload, c.length);
    return c;
}

} // namespace

// Every event and subtype the schema describes with a template
// (event_schema.hpp), an unknown subtype of each (the event's own
// template), with the text LTT's raw trace gave them.
TEST(EventFormat, TemplatesOfEverySubtype) {
    auto check = [](std::uint8_t id, std::uint8_t sub, const auto& d, const char* want) {
        EXPECT_EQ(OneEvent(id, sub, d).text(), want)
            << "event " << unsigned(id) << " subtype " << unsigned(sub);
    };
    check(LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{-38}, "RET : -38");
    check(LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{1234, 0, 0x402, 0},
          "IN : 1234; OUT : 0; STATE : 1026");
    check(LTT_EV_SOFT_IRQ, LTT_SOFTIRQ_ENTRY, ltt_ev_soft_irq{3}, "SOFTIRQ ENTRY : 3");
    check(LTT_EV_SOFT_IRQ, LTT_SOFTIRQ_EXIT, ltt_ev_soft_irq{9}, "SOFTIRQ EXIT : 9");
    check(LTT_EV_SOFT_IRQ, LTT_TASKLET_ENTRY, ltt_ev_soft_irq{0x81001230},
          "TASKLET ENTRY : 0x81001230");
    check(LTT_EV_SOFT_IRQ, LTT_TASKLET_EXIT, ltt_ev_soft_irq{0x81001230},
          "TASKLET EXIT : 0x81001230");
    check(LTT_EV_SOFT_IRQ, 7, ltt_ev_soft_irq{0x10}, "UNKNOWN : 0x10");
    check(LTT_EV_PROCESS, LTT_PROCESS_KTHREAD, ltt_ev_process{77, 0, 0xffffffff81234560},
          "KTHREAD PID : 77; FUNCTION : 0xffffffff81234560");
    check(LTT_EV_PROCESS, LTT_PROCESS_FORK, ltt_ev_process{78, 0, 0x3d0f00},
          "FORK PID : 78; FLAGS : 0x3d0f00");
    check(LTT_EV_PROCESS, LTT_PROCESS_EXIT, ltt_ev_process{79, 0, ~0ull},
          "EXIT PID : 79; CODE : -1");
    check(LTT_EV_PROCESS, LTT_PROCESS_WAIT, ltt_ev_process{-1, 0, 5}, "WAIT PID : -1");
    check(LTT_EV_PROCESS, LTT_PROCESS_SIGNAL, ltt_ev_process{80, 0, 9},
          "SIGNAL SIGNAL : 9; PID : 80");
    check(LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, ltt_ev_process{81, 0, 2},
          "WAKEUP PID : 81; STATE : 2");
    check(LTT_EV_PROCESS, 9, ltt_ev_process{82, 0, 255}, "UNKNOWN PID : 82; ARG : 0xff");
    check(LTT_EV_FILE_SYSTEM, LTT_FS_BUF_WAIT_START, fsRecord(0, 0, 0), "START I/O WAIT");
    check(LTT_EV_FILE_SYSTEM, LTT_FS_BUF_WAIT_END, fsRecord(1, 0, 0), "END I/O WAIT");
    check(LTT_EV_FILE_SYSTEM, LTT_FS_CLOSE, fsRecord(3, 0, 0), "CLOSE : 3");
    check(LTT_EV_FILE_SYSTEM, LTT_FS_READ, fsRecord(4, 0, 100), "READ : 4; COUNT : 100");
    check(LTT_EV_FILE_SYSTEM, LTT_FS_WRITE, fsRecord(5, 0, -9), "WRITE : 5; COUNT : -9");
    check(LTT_EV_FILE_SYSTEM, LTT_FS_SEEK, fsRecord(6, 2, 4096),
          "SEEK : 6; OFFSET : 4096; WHENCE : 2");
    check(LTT_EV_FILE_SYSTEM, LTT_FS_IOCTL, fsRecord(7, 0, 0x5401), "IOCTL : 7; COMMAND : 0x5401");
    check(LTT_EV_FILE_SYSTEM, LTT_FS_SELECT, fsRecord(8, 0, -1), "SELECT : 8; TIMEOUT : -1");
    check(LTT_EV_FILE_SYSTEM, LTT_FS_POLL, fsRecord(9, 0, 1000), "POLL : 9; TIMEOUT : 1000");
    check(LTT_EV_FILE_SYSTEM, 12, fsRecord(10, 0, 77), "UNKNOWN : 10; ARG : 77");
    check(LTT_EV_TIMER, LTT_TIMER_EXPIRED, ltt_ev_timer{0, 0, 0}, "EXPIRED : 0");
    check(LTT_EV_TIMER, LTT_TIMER_SETITIMER, ltt_ev_timer{10000000, 1, 0},
          "SET ITIMER : 1; INTERVAL : 10000000");
    check(LTT_EV_TIMER, LTT_TIMER_SETTIMEOUT, ltt_ev_timer{-1, 0, 0}, "SET TIMEOUT : -1");
    check(LTT_EV_TIMER, 5, ltt_ev_timer{25, 3, 0}, "UNKNOWN : 25");
    check(LTT_EV_MEMORY, LTT_MEM_PAGE_ALLOC, ltt_ev_memory{0x7f0000001000, 3},
          "PAGE ALLOC : 0x7f0000001000; ORDER : 3");
    check(LTT_EV_MEMORY, LTT_MEM_PAGE_FREE, ltt_ev_memory{0x1000, 0},
          "PAGE FREE : 0x1000; ORDER : 0");
    check(LTT_EV_MEMORY, LTT_MEM_SWAP_IN, ltt_ev_memory{0x2000, 1}, "SWAP IN : 0x2000");
    check(LTT_EV_MEMORY, LTT_MEM_SWAP_OUT, ltt_ev_memory{0x3000, 1}, "SWAP OUT : 0x3000");
    check(LTT_EV_MEMORY, LTT_MEM_PAGE_WAIT_START, ltt_ev_memory{0x4000, 0},
          "PAGE WAIT START : 0x4000");
    check(LTT_EV_MEMORY, LTT_MEM_PAGE_WAIT_END, ltt_ev_memory{0x5000, 0}, "PAGE WAIT END : 0x5000");
    check(LTT_EV_MEMORY, 8, ltt_ev_memory{0x6000, 0}, "UNKNOWN : 0x6000");
    check(LTT_EV_SOCKET, LTT_SOCKET_CALL, ltt_ev_socket{41, 5, 0, 0, 0}, "SO CALL : 41; FD : 5");
    check(LTT_EV_SOCKET, LTT_SOCKET_CREATE, ltt_ev_socket{41, 6, 10u << 16 | 2, 0, 0},
          "SO CREATE : FD 6; FAMILY : 10; TYPE : 2");
    check(LTT_EV_SOCKET, LTT_SOCKET_SEND, ltt_ev_socket{0, 7, 1, 0, 512},
          "SO SEND : TYPE 1; SIZE : 512");
    check(LTT_EV_SOCKET, LTT_SOCKET_RECEIVE, ltt_ev_socket{0, 7, 2, 0, -11},
          "SO RECEIVE : TYPE 2; SIZE : -11");
    check(LTT_EV_SOCKET, 6, ltt_ev_socket{0, 7, 5, 0, 1}, "UNKNOWN : TYPE 5; SIZE : 1");
    check(LTT_EV_IPC, LTT_IPC_CALL, ltt_ev_ipc{66, 9, 0, 0}, "IPC CALL : 66; ID : 9");
    check(LTT_EV_IPC, LTT_IPC_MSG_CREATE, ltt_ev_ipc{0, 10, 0x1ff, 0},
          "MSG CREATE : ID 10; FLAGS : 0x1ff");
    check(LTT_EV_IPC, LTT_IPC_SEM_CREATE, ltt_ev_ipc{0, 11, 0x200, 0},
          "SEM CREATE : ID 11; FLAGS : 0x200");
    check(LTT_EV_IPC, LTT_IPC_SHM_CREATE, ltt_ev_ipc{0, -1, 0, 0},
          "SHM CREATE : ID -1; FLAGS : 0x0");
    check(LTT_EV_IPC, 4, ltt_ev_ipc{0, 12, 1, 0}, "UNKNOWN : ID 12; FLAGS : 0x1");
    check(LTT_EV_NETWORK, LTT_NET_PACKET_IN, ltt_ev_network{0x86dd, 0},
          "PACKET IN : PROTOCOL 0x86dd");
    check(LTT_EV_NETWORK, LTT_NET_PACKET_OUT, ltt_ev_network{0x8, 0},
          "PACKET OUT : PROTOCOL 0x0008");
    check(LTT_EV_NETWORK, 3, ltt_ev_network{0x12345, 0}, "UNKNOWN : PROTOCOL 0x12345");
    // The records that frame a block are not inner records a trace can
    // hold: described from an Event made by hand.
    auto framing = [](std::uint8_t id, const auto& d, const char* want) {
        alignas(8) std::byte record[sizeof(ltt_record_header) + sizeof d]{};
        std::memcpy(record + sizeof(ltt_record_header), &d, sizeof d);
        ltt::Event e;
        e.record = record;
        e.size = sizeof record;
        e.id = id;
        EXPECT_EQ(ltt::describeEvent(e), want) << "event " << unsigned(id);
    };
    framing(LTT_EV_BLOCK_END, ltt_block_end{123, 42, 0}, "EVENTS : 42");
    framing(LTT_EV_HEARTBEAT, ltt_ev_heartbeat{987654321}, "TSC : 987654321");
    check(LTT_EV_LOST, 0, ltt_ev_lost{17, 5}, "LOST : 17 EVENTS");
    check(LTT_EV_CUSTOM, 0, customRecord(0xbeef, "abcd"), "ID : 0xbeef; LENGTH : 4");
    check(LTT_EV_LOCK, LTT_LOCK_CONTENDED, ltt_ev_lock{0xffff888012345678, 0x21, 0},
          "CONTENDED : 0xffff888012345678; FLAGS : 0x21");
    check(LTT_EV_LOCK, LTT_LOCK_ACQUIRED, ltt_ev_lock{0xffff888012345678, 0, -4},
          "ACQUIRED : 0xffff888012345678; RET : -4");
    check(LTT_EV_LOCK, 2, ltt_ev_lock{0x10, 1, 2}, "UNKNOWN : 0x10; RET : 2");
    check(LTT_EV_CONTEXT, LTT_CONTEXT_SWITCH, ltt_ev_context{55, 50}, "SWITCH PID : 55; TGID : 50");
    check(LTT_EV_CONTEXT, LTT_CONTEXT_OWNED, ltt_ev_context{56, 56}, "OWNED PID : 56; TGID : 56");
    check(LTT_EV_CONTEXT, LTT_CONTEXT_HIDDEN, ltt_ev_context{0, 0}, "HIDDEN PID : 0; TGID : 0");
    check(LTT_EV_CONTEXT, 3, ltt_ev_context{1, 1}, "UNKNOWN PID : 1; TGID : 1");
}

// Masked details: the subtype's name alone, or nothing for an event without
// subtypes; a FILE_SYSTEM record's name as the template places it.
TEST(EventFormat, TemplatesWithoutDetails) {
    EXPECT_EQ(OneEvent(LTT_EV_SCHEDCHANGE).text(), "");
    EXPECT_EQ(OneEvent(LTT_EV_PROCESS, LTT_PROCESS_FORK).text(), "FORK");
    EXPECT_EQ(OneEvent(LTT_EV_FILE_SYSTEM, LTT_FS_READ, "12345678", 8).text(), "READ");
    EXPECT_EQ(OneEvent(LTT_EV_CONTEXT, 9).text(), "UNKNOWN");
    ltt_ev_file_system fs{};
    fs.fd = 3;
    std::memcpy(fs.name, "/a\nb", 5);
    EXPECT_EQ(OneEvent(LTT_EV_FILE_SYSTEM, LTT_FS_EXEC, &fs, LTT_EV_FS_FIXED + 8).text(),
              "EXEC : /a\\nb"); // the newline escaped
}

TEST(EventFormat, DescribesLikeLtt) {
    EXPECT_EQ(OneEvent(LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x7f12345678, 1, 0}).text(),
              "SYSCALL : write; IP : 0x7f12345678");
    EXPECT_EQ(OneEvent(LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{0, 120, 2, 0}).text(),
              "IN : 0; OUT : 120; STATE : 2");
    EXPECT_EQ(OneEvent(LTT_EV_IRQ_ENTRY, 0, ltt_ev_irq_entry{14, LTT_IRQ_IN_KERNEL}).text(),
              "IRQ : 14, IN-KERNEL");
    EXPECT_EQ(OneEvent(LTT_EV_PROCESS, LTT_PROCESS_WAKEUP, ltt_ev_process{120, 0, 0}).text(),
              "WAKEUP PID : 120; STATE : 0");
    EXPECT_EQ(OneEvent(LTT_EV_FILE_SYSTEM, LTT_FS_BUF_WAIT_START, ltt_ev_process{}).text(),
              "START I/O WAIT");
    EXPECT_EQ(OneEvent(LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{-2}).text(), "RET : -2");
    EXPECT_EQ(OneEvent(LTT_EV_TRAP_ENTRY, 0,
                       ltt_ev_trap_entry{0x401000, 0xdead000, LTT_TRAP_PAGE_FAULT, 6})
                  .text(),
              "TRAP : page fault; IP : 0x401000; ADDRESS : 0xdead000");
    ltt_ev_file_system fs{};
    fs.fd = 3;
    std::strcpy(fs.name, "/etc/passwd");
    EXPECT_EQ(OneEvent(LTT_EV_FILE_SYSTEM, LTT_FS_OPEN, &fs, LTT_EV_FS_FIXED + 12).text(),
              "OPEN : /etc/passwd; FD : 3");
    fs.arg = 437;
    fs.fd = 1;
    EXPECT_EQ(OneEvent(LTT_EV_FILE_SYSTEM, LTT_FS_WRITE, &fs, LTT_EV_FS_FIXED).text(),
              "WRITE : 1; COUNT : 437");
}

// With a kallsyms copy, a trap's IP in the kernel and a kernel thread's
// start function are followed by their symbol; user addresses, addresses
// before the first symbol and a Symbolizer without kallsyms leave the text
// as it was.
TEST(EventFormat, KernelAddressesGainTheirSymbol) {
    char path[] = "/tmp/ltt-format-kallsyms-XXXXXX";
    const int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    std::ofstream(path) << "ffffffff81000000 T _stext\n"
                           "ffffffff81234500 t do_user_addr_fault\n"
                           "ffffffff81300000 T kthreadd\n"
                           "ffffffffc0001000 t ltt_worker\t[ltt_tracer]\n";
    ltt::Symbolizer kernel;
    std::string err;
    const bool loaded = kernel.loadKallsyms(path, &err);
    unlink(path);
    ASSERT_TRUE(loaded) << err;

    const OneEvent kfault(LTT_EV_TRAP_ENTRY, 0,
                          ltt_ev_trap_entry{0xffffffff8123451aull, 0x10, LTT_TRAP_PAGE_FAULT, 0});
    EXPECT_EQ(kfault.text(kernel), "TRAP : page fault; IP : 0xffffffff8123451a "
                                   "(do_user_addr_fault+0x1a); ADDRESS : 0x10");
    EXPECT_EQ(kfault.text(), "TRAP : page fault; IP : 0xffffffff8123451a; ADDRESS : 0x10");
    const OneEvent ufault(LTT_EV_TRAP_ENTRY, 0,
                          ltt_ev_trap_entry{0x401000, 0xdead000, LTT_TRAP_PAGE_FAULT, 6});
    EXPECT_EQ(ufault.text(kernel), "TRAP : page fault; IP : 0x401000; ADDRESS : 0xdead000");
    const OneEvent below(LTT_EV_TRAP_ENTRY, 0, ltt_ev_trap_entry{0xffff888000001000ull, 0, 3, 0});
    EXPECT_EQ(below.text(kernel), "TRAP : breakpoint; IP : 0xffff888000001000");

    const OneEvent kthread(LTT_EV_PROCESS, LTT_PROCESS_KTHREAD,
                           ltt_ev_process{42, 0, 0xffffffffc0001010ull});
    EXPECT_EQ(kthread.text(kernel),
              "KTHREAD PID : 42; FUNCTION : 0xffffffffc0001010 (ltt_tracer!ltt_worker+0x10)");
    EXPECT_EQ(kthread.text(ltt::Symbolizer()), "KTHREAD PID : 42; FUNCTION : 0xffffffffc0001010");
}

// traceanalyze -d reads the trace's NAME.kallsyms: with it the kernel trap
// and the kernel thread show their symbols; without it (or with a copy that
// hides the addresses, with a warning) the lines are the plain ones.
TEST(EventFormat, TraceanalyzeDumpUsesTheTracesKallsyms) {
#if defined(__SANITIZE_ADDRESS__)
    // The sanitizer build (suite 10) makes the unit tests and ltt-synth only.
    GTEST_SKIP() << "traceanalyze is not part of the sanitizer build";
#endif
    const auto tool = ltt::test::siblingProgram("traceanalyze");
    ASSERT_TRUE(std::filesystem::exists(tool)) << tool << " not built";
    const auto dir =
        std::filesystem::temp_directory_path() / ("dump-kallsyms-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    TraceBuilder b(1);
    b.block(0, 10, 120)
        .ev(20, LTT_EV_TRAP_ENTRY, 0,
            ltt_ev_trap_entry{0xffffffff8123451aull, 0x10, LTT_TRAP_PAGE_FAULT, 0})
        .ev(25, LTT_EV_TRAP_ENTRY, 0,
            ltt_ev_trap_entry{0x401000, 0xdead000, LTT_TRAP_PAGE_FAULT, 6})
        .ev(30, LTT_EV_PROCESS, LTT_PROCESS_KTHREAD, ltt_ev_process{42, 0, 0xffffffff81300008ull})
        .end(40);
    const auto bytes = b.bytes();
    std::ofstream(dir / "t.trace", std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    auto dump = [&] {
        const std::string cmd = tool.string() + " -d " + (dir / "t.trace").string() + " >" +
                                (dir / "out").string() + " 2>" + (dir / "err").string();
        EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
        std::ostringstream out, err;
        out << std::ifstream(dir / "out").rdbuf();
        err << std::ifstream(dir / "err").rdbuf();
        return std::pair{out.str(), err.str()};
    };
    const auto plain = dump().first;
    EXPECT_NE(plain.find("IP : 0xffffffff8123451a; ADDRESS : 0x10\n"), std::string::npos) << plain;
    EXPECT_NE(plain.find("FUNCTION : 0xffffffff81300008\n"), std::string::npos) << plain;

    std::ofstream(dir / "t.kallsyms") << "ffffffff81000000 T _stext\n"
                                         "ffffffff81234500 t do_user_addr_fault\n"
                                         "ffffffff81300000 T kthreadd\n";
    const auto named = dump().first;
    EXPECT_NE(named.find("IP : 0xffffffff8123451a (do_user_addr_fault+0x1a); ADDRESS : 0x10\n"),
              std::string::npos)
        << named;
    EXPECT_NE(named.find("IP : 0x401000; ADDRESS : 0xdead000\n"), std::string::npos) << named;
    EXPECT_NE(named.find("FUNCTION : 0xffffffff81300008 (kthreadd+0x8)\n"), std::string::npos)
        << named;

    std::ofstream(dir / "t.kallsyms") << "0000000000000000 T _stext\n";
    const auto [hidden, warning] = dump();
    EXPECT_EQ(hidden, plain);
    EXPECT_NE(warning.find("traceanalyze: warning: kernel addresses stay raw: "), std::string::npos)
        << warning;
    std::filesystem::remove_all(dir);
}

TEST(EventFormat, MaskedDetailsGiveAnEmptyDescription) {
    EXPECT_EQ(OneEvent(LTT_EV_SYSCALL_ENTRY).text(), "");
    EXPECT_EQ(OneEvent(LTT_EV_SCHEDCHANGE).text(), "");
    EXPECT_EQ(OneEvent(LTT_EV_IRQ_EXIT).text(), "");
}

TEST(EventFormat, NameWithoutNulStaysInsideTheRecord) {
    char name[16];
    std::memset(name, 'A', sizeof name);
    ltt_ev_file_system fs{};
    std::memcpy(&fs, "\3\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
    std::vector<char> rec(16 + sizeof name);
    std::memcpy(rec.data(), &fs, 16);
    std::memcpy(rec.data() + 16, name, sizeof name);
    EXPECT_EQ(OneEvent(LTT_EV_FILE_SYSTEM, LTT_FS_EXEC, rec.data(), rec.size()).text(),
              "EXEC : AAAAAAAAAAAAAAAA");
}

TEST(EventFormat, EscapesNamesForText) {
    EXPECT_EQ(ltt::escaped("/usr/bin/make"), "/usr/bin/make");
    EXPECT_EQ(ltt::escaped("a\nb\x1b[31mc"), "a\\nb\\x1b[31mc");
    EXPECT_EQ(ltt::escaped("tab\there\r\x7f\\"), "tab\\there\\r\\x7f\\\\");
    EXPECT_EQ(ltt::escaped("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac"); // UTF-8 kept
    EXPECT_EQ(ltt::escaped("\xff\xc3(\xed\xa0\x80"), "\\xff\\xc3(\\xed\\xa0\\x80");
    EXPECT_EQ(ltt::escaped("\xc2\x9b"
                           "2J"),
              "\\u009b2J"); // C1 CSI
    EXPECT_EQ(ltt::escaped(std::string_view("a\0b", 3)), "a\\x00b");
}

TEST(EventFormat, EscapesNamesForJson) {
    auto json = [](std::string_view s) {
        std::string out;
        ltt::appendJsonEscaped(out, s);
        return out;
    };
    EXPECT_EQ(json("plain name"), "plain name");
    EXPECT_EQ(json("q\"b\\n\n\x1b\x7f"), "q\\\"b\\\\n\\u000a\\u001b\\u007f");
    EXPECT_EQ(json("x\xffy\xc2\x9b\xc3\xa9"), "x\\ufffdy\\u009b\xc3\xa9");
}

// File names from EXEC and OPEN records are escaped in descriptions.
TEST(EventFormat, DescriptionsEscapeFileNames) {
    TraceBuilder b(1);
    ltt_ev_file_system fs{};
    std::strcpy(fs.name, "/tmp/x\ny\x1b]0;t\x07");
    b.block(0, 10, 1).ev(20, LTT_EV_FILE_SYSTEM, LTT_FS_OPEN, fs).end(30);
    auto bytes = b.bytes();
    ltt::TraceError e;
    auto r = ltt::TraceReader::openMemory(bytes, "t", &e);
    ASSERT_TRUE(r) << e.str();
    auto c = r->begin();
    c.next();
    EXPECT_EQ(ltt::describeEvent(c.event()), "OPEN : /tmp/x\\ny\\x1b]0;t\\x07; FD : 0");
}

TEST(EventFormat, ControlEvents) {
    EXPECT_TRUE(
        ltt::isControlEvent(OneEvent(LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{}).event()));
    EXPECT_TRUE(
        ltt::isControlEvent(OneEvent(LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{}).event()));
    EXPECT_TRUE(ltt::isControlEvent(OneEvent(LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{}).event()));
    EXPECT_TRUE(ltt::isControlEvent(OneEvent(LTT_EV_IRQ_ENTRY, 0, ltt_ev_irq_entry{0, 0}).event()));
    EXPECT_FALSE(ltt::isControlEvent(
        OneEvent(LTT_EV_IRQ_ENTRY, 0, ltt_ev_irq_entry{0, LTT_IRQ_IN_KERNEL}).event()));
    EXPECT_TRUE(ltt::isControlEvent(
        OneEvent(LTT_EV_TRAP_ENTRY, 0, ltt_ev_trap_entry{0x401000, 0, 14, 0}).event()));
    EXPECT_FALSE(ltt::isControlEvent(
        OneEvent(LTT_EV_TRAP_ENTRY, 0, ltt_ev_trap_entry{0xffffffff81000000ull, 0, 14, 0})
            .event()));
    EXPECT_FALSE(ltt::isControlEvent(OneEvent(LTT_EV_KERNEL_TIMER).event()));
}

TEST(EventFormat, NamesAndKeys) {
    EXPECT_EQ(ltt::eventName(LTT_EV_SCHEDCHANGE), "Sched change");
    EXPECT_EQ(ltt::eventKey(LTT_EV_FILE_SYSTEM), "file_system");
    EXPECT_EQ(ltt::eventName(99), "Unknown");
    // Every key and every display name is a name of the vocabulary.
    for (unsigned i = 0; i <= LTT_EV_MAP; ++i) {
        EXPECT_EQ(ltt::eventMaskOf(ltt::eventKey(i)), LTT_EV_BIT(i)) << ltt::eventKey(i);
        EXPECT_EQ(ltt::eventMaskOf(ltt::eventName(i)), LTT_EV_BIT(i)) << ltt::eventName(i);
    }
}

TEST(SyscallTable, CoversLinux612) {
    EXPECT_EQ(ltt::syscallName(0), "read");
    EXPECT_EQ(ltt::syscallName(1), "write");
    EXPECT_EQ(ltt::syscallName(59), "execve");
    EXPECT_EQ(ltt::syscallName(231), "exit_group");
    EXPECT_EQ(ltt::syscallName(435), "clone3");
    EXPECT_EQ(ltt::syscallName(450), "set_mempolicy_home_node");
    EXPECT_EQ(ltt::syscallName(335), "uretprobe"); // 6.11 filled this hole
    EXPECT_EQ(ltt::syscallName(454), "futex_wake");
    EXPECT_EQ(ltt::syscallName(462), "mseal");
    EXPECT_EQ(ltt::syscallName(463), "");
    EXPECT_EQ(ltt::syscallName(400), ""); // a hole in the table (x32 range)
    EXPECT_EQ(ltt::syscallTableSize(), 463u);
    unsigned named = 0;
    for (std::uint32_t i = 0; i < ltt::syscallTableSize(); ++i)
        named += !ltt::syscallName(i).empty();
    EXPECT_EQ(named, 375u); // every common/64 entry of 6.12's syscall_64.tbl
}

TEST(EventFormat, ControlEventTrackerMatchesExitsToEntries) {
    TraceBuilder b(1);
    b.block(0, 10, 100)
        .ev(20, LTT_EV_IRQ_ENTRY, 0, ltt_ev_irq_entry{0, 0})                  // from user
        .ev(30, LTT_EV_IRQ_ENTRY, 0, ltt_ev_irq_entry{14, LTT_IRQ_IN_KERNEL}) // nested
        .ev(40, LTT_EV_IRQ_EXIT)                                              // to the irq
        .ev(50, LTT_EV_IRQ_EXIT)                                              // to user
        .ev(60, LTT_EV_TRAP_ENTRY, 0, ltt_ev_trap_entry{0xffffffff81000000ull, 0, 14, 0})
        .ev(70, LTT_EV_TRAP_EXIT)
        .ev(80, LTT_EV_IRQ_EXIT) // its entry is before the trace
        .end(90);
    const auto bytes = b.bytes();
    auto r = ltt::TraceReader::openMemory(bytes, "t", nullptr);
    ASSERT_TRUE(r);
    ltt::ControlEventTracker control(1);
    std::vector<bool> flags;
    for (auto c = r->begin(); c.valid(); c.next())
        flags.push_back(control(c.event()));
    EXPECT_EQ(flags,
              (std::vector<bool>{false, true, false, false, true, false, false, false, false}));
}
