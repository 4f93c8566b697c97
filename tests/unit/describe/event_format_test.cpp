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

} // namespace

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

TEST(SyscallTable, CoversLinux61) {
    EXPECT_EQ(ltt::syscallName(0), "read");
    EXPECT_EQ(ltt::syscallName(1), "write");
    EXPECT_EQ(ltt::syscallName(59), "execve");
    EXPECT_EQ(ltt::syscallName(231), "exit_group");
    EXPECT_EQ(ltt::syscallName(435), "clone3");
    EXPECT_EQ(ltt::syscallName(450), "set_mempolicy_home_node");
    EXPECT_EQ(ltt::syscallName(451), "");
    EXPECT_EQ(ltt::syscallName(335), ""); // a hole in the table
    EXPECT_EQ(ltt::syscallTableSize(), 451u);
    unsigned named = 0;
    for (std::uint32_t i = 0; i < ltt::syscallTableSize(); ++i)
        named += !ltt::syscallName(i).empty();
    EXPECT_EQ(named, 362u); // every common/64 entry of 6.1's syscall_64.tbl
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
