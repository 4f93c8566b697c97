// tracedaemon's command line: every option in its LTT and long form, and the
// message of every refused argument.
#include "flight_recorder.hpp"
#include "options.hpp"

#include <csignal>
#include <gtest/gtest.h>
#include <initializer_list>
#include <ltt/abi.h>
#include <ltt/module_events.h>

using namespace ltt::daemon;
using namespace std::chrono_literals;

namespace {

ParseResult parse(std::initializer_list<std::string_view> args) {
    std::vector<std::string_view> v(args);
    return parseCommandLine(v);
}

Options ok(std::initializer_list<std::string_view> args) {
    auto r = parse(args);
    EXPECT_TRUE(r.options) << r.error;
    return r.options.value_or(Options{});
}

std::string err(std::initializer_list<std::string_view> args) {
    auto r = parse(args);
    EXPECT_FALSE(r.options);
    return r.error;
}

} // namespace

TEST(Options, FilesAndDefaults) {
    Options o = ok({"out.trace", "out.proc"});
    EXPECT_EQ(o.action, Options::Action::Trace);
    EXPECT_EQ(o.device, "/dev/tracer");
    EXPECT_EQ(o.traceFile, "out.trace");
    EXPECT_EQ(o.procFile, "out.proc");
    EXPECT_FALSE(o.duration);
    EXPECT_FALSE(o.bufferSize);
    EXPECT_FALSE(o.events);
    EXPECT_FALSE(o.details);
    EXPECT_TRUE(o.command.empty());
    EXPECT_EQ(o.flushInterval, 1000ms);
}

TEST(Options, DeviceAsFirstOfThreePositionals) {
    Options o = ok({"/dev/mytracer", "a.trace", "a.proc"});
    EXPECT_EQ(o.device, "/dev/mytracer");
    EXPECT_EQ(o.traceFile, "a.trace");
    EXPECT_EQ(ok({"--device", "/dev/x", "a", "b"}).device, "/dev/x");
    EXPECT_EQ(ok({"--device=/dev/y", "a", "b"}).device, "/dev/y");
}

TEST(Options, LttDurations) {
    EXPECT_EQ(ok({"-ts30", "a", "b"}).duration, 30s);
    EXPECT_EQ(ok({"-tu500000", "a", "b"}).duration, 500ms);
    EXPECT_EQ(ok({"-tm250", "a", "b"}).duration, 250ms);
    EXPECT_EQ(ok({"-t", "s2", "a", "b"}).duration, 2s);
    EXPECT_EQ(ok({"-t5", "a", "b"}).duration, 5s);
}

TEST(Options, LongDurations) {
    EXPECT_EQ(ok({"--duration", "30s", "a", "b"}).duration, 30s);
    EXPECT_EQ(ok({"--duration=1.5s", "a", "b"}).duration, 1500ms);
    EXPECT_EQ(ok({"--duration", "500ms", "a", "b"}).duration, 500ms);
    EXPECT_EQ(ok({"--duration", "250us", "a", "b"}).duration, 250us);
    EXPECT_EQ(ok({"--duration", "2min", "a", "b"}).duration, 120s);
    EXPECT_EQ(ok({"--duration", "1h", "a", "b"}).duration, 3600s);
    EXPECT_EQ(ok({"--duration", "7", "a", "b"}).duration, 7s);
}

TEST(Options, BadDurations) {
    for (auto bad : {"abc", "0", "0s", "-5", "5x", "s", "1.2.3s", "", "0.0000001s"}) {
        auto r = parse({"--duration", bad, "a", "b"});
        EXPECT_FALSE(r.options) << bad;
        EXPECT_NE(r.error.find("invalid duration '" + std::string(bad) + "' for --duration"),
                  std::string::npos)
            << r.error;
    }
    EXPECT_NE(err({"-tx5", "a", "b"}).find("invalid duration 'x5' for -t: use e.g. -ts30"),
              std::string::npos);
}

TEST(Options, BufferSizes) {
    EXPECT_EQ(ok({"-b", "65536", "a", "b"}).bufferSize, 65536u);
    EXPECT_EQ(ok({"-b64K", "a", "b"}).bufferSize, 65536u);
    EXPECT_EQ(ok({"--buffer-size", "2M", "a", "b"}).bufferSize, 2u << 20);
    EXPECT_EQ(ok({"--buffer-size=1MiB", "a", "b"}).bufferSize, 1u << 20);
    EXPECT_EQ(ok({"-B", "16M", "a", "b"}).daemonBuffer, 16u << 20);
    EXPECT_NE(err({"-b", "100", "a", "b"})
                  .find("invalid buffer size '100' for -b: expected 4096 to 67108864 bytes"),
              std::string::npos);
    EXPECT_NE(err({"-b", "128M", "a", "b"}).find("invalid buffer size '128M'"), std::string::npos);
    EXPECT_NE(err({"-b", "1X", "a", "b"}).find("invalid buffer size '1X'"), std::string::npos);
    EXPECT_NE(err({"--daemon-buffer", "2G", "a", "b"}).find("invalid daemon buffer size '2G'"),
              std::string::npos);
}

TEST(Options, EventsAndDetails) {
    Options o = ok({"-e", "SCHED", "-e", "sys_entry,SYS_EXIT", "a", "b"});
    EXPECT_EQ(o.events, LTT_EV_BIT(LTT_EV_SCHEDCHANGE) | LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY) |
                            LTT_EV_BIT(LTT_EV_SYSCALL_EXIT));
    EXPECT_EQ(ok({"--events", "sched,syscall,process,fs", "a", "b"}).events,
              LTT_EV_BIT(LTT_EV_SCHEDCHANGE) | LTT_EV_BIT(LTT_EV_SYSCALL_ENTRY) |
                  LTT_EV_BIT(LTT_EV_SYSCALL_EXIT) | LTT_EV_BIT(LTT_EV_PROCESS) |
                  LTT_EV_BIT(LTT_EV_FILE_SYSTEM));
    EXPECT_EQ(ok({"-eCORE", "a", "b"}).events, LTT_EV_MASK_CORE);
    // libltt's vocabulary: also traceanalyze's keys and traceview's names.
    EXPECT_EQ(ok({"-e", "FS,CORE", "a", "b"}).events,
              LTT_EV_MASK_CORE | LTT_EV_BIT(LTT_EV_FILE_SYSTEM));
    EXPECT_EQ(ok({"-e", "file_system,Sched change", "a", "b"}).events,
              LTT_EV_BIT(LTT_EV_FILE_SYSTEM) | LTT_EV_BIT(LTT_EV_SCHEDCHANGE));
    EXPECT_EQ(ok({"-e", "all", "a", "b"}).events, LTT_EV_MASK_ALL);
    EXPECT_EQ(ok({"-D", "FS", "a", "b"}).details, LTT_EV_BIT(LTT_EV_FILE_SYSTEM));
    EXPECT_EQ(ok({"--details", "NONE", "a", "b"}).details, 0u);
    EXPECT_EQ(ok({"--event", "irq", "a", "b"}).events,
              LTT_EV_BIT(LTT_EV_IRQ_ENTRY) | LTT_EV_BIT(LTT_EV_IRQ_EXIT));
    // Every name in the help list is accepted.
    std::string names = eventNameHelp();
    std::size_t pos = 0;
    while (pos <= names.size()) {
        auto comma = names.find(',', pos);
        std::string name = names.substr(pos, comma - pos);
        std::string bad;
        EXPECT_TRUE(parseEventList(name, &bad)) << name;
        if (comma == std::string::npos)
            break;
        pos = comma + 1;
    }
}

TEST(Options, UnknownEventNamesTheEventAndTheKnownOnes) {
    std::string e = err({"-e", "sched,bogus", "a", "b"});
    EXPECT_NE(e.find("unknown event 'bogus' for -e; known events: START,SYS_ENTRY"),
              std::string::npos)
        << e;
    EXPECT_NE(err({"-D", "nope", "a", "b"}).find("unknown event 'nope' for -D"), std::string::npos);
    EXPECT_NE(err({"--events", ",", "a", "b"}).find("unknown event '' for --events"),
              std::string::npos);
}

TEST(Options, Filters) {
    Options o = ok({"-P", "42", "-G7", "--uid", "1000", "-g", "0", "-c", "a", "b"});
    EXPECT_EQ(o.pid, 42);
    EXPECT_EQ(o.pgrp, 7);
    EXPECT_EQ(o.uid, 1000u);
    EXPECT_EQ(o.gid, 0u);
    EXPECT_TRUE(o.recordCpuid);
    EXPECT_EQ(ok({"--pid=9", "--pgrp", "3", "--gid=5", "-u0", "--cpuid", "a", "b"}).pid, 9);
    EXPECT_NE(err({"-P", "0", "a", "b"})
                  .find("invalid PID '0' for -P: expected an integer from 1 to 2147483647"),
              std::string::npos);
    EXPECT_NE(err({"-P", "-3", "a", "b"}).find("invalid PID '-3'"), std::string::npos);
    EXPECT_NE(err({"--pgrp", "x", "a", "b"}).find("invalid process group 'x' for --pgrp"),
              std::string::npos);
    EXPECT_NE(err({"-u", "root", "a", "b"}).find("invalid UID 'root' for -u"), std::string::npos);
    EXPECT_NE(err({"-g", "4294967295", "a", "b"}).find("invalid GID '4294967295'"),
              std::string::npos);
}

TEST(Options, SyscallIpDepthAndRange) {
    Options o = ok({"-sd2", "-sl0x400000", "-su0x500000", "a", "b"});
    EXPECT_EQ(o.syscallDepth, 2u);
    EXPECT_EQ(o.syscallLower, 0x400000u);
    EXPECT_EQ(o.syscallUpper, 0x500000u);
    Options l = ok({"--syscall-range", "0x1000-0x2000", "--syscall-depth", "16", "a", "b"});
    EXPECT_EQ(l.syscallLower, 0x1000u);
    EXPECT_EQ(l.syscallUpper, 0x2000u);
    EXPECT_EQ(l.syscallDepth, 16u);
    EXPECT_EQ(ok({"--syscall-lower", "4096", "a", "b"}).syscallLower, 4096u);
    EXPECT_NE(
        err({"-sd17", "a", "b"}).find("invalid syscall IP depth '17' for -sd: expected 0 to 16"),
        std::string::npos);
    EXPECT_NE(err({"-sx1", "a", "b"}).find("use -sdDEPTH, -slLOWER or -suUPPER"),
              std::string::npos);
    EXPECT_NE(err({"-slzz", "a", "b"}).find("invalid address 'zz' for -sl"), std::string::npos);
    EXPECT_NE(err({"--syscall-range", "0x10", "a", "b"}).find("expected LOWER-UPPER"),
              std::string::npos);
    EXPECT_NE(err({"--syscall-range", "0x20-0x10", "a", "b"})
                  .find("syscall IP range is empty: lower bound 0x20 is not below upper bound "
                        "0x10"),
              std::string::npos);
}

TEST(Options, Command) {
    Options o = ok({"-T", "a.trace", "a.proc", "--", "ls", "-l", "--", "x"});
    EXPECT_TRUE(o.trackCommand);
    EXPECT_EQ(o.command, (std::vector<std::string>{"ls", "-l", "--", "x"}));
    // Options after the files but before "--" still count.
    Options p = ok({"a.trace", "a.proc", "-ts1", "--", "true"});
    EXPECT_EQ(p.duration, 1s);
    EXPECT_EQ(p.command, (std::vector<std::string>{"true"}));
    EXPECT_NE(err({"a", "b", "--"}).find("'--' must be followed by a COMMAND"), std::string::npos);
    EXPECT_NE(err({"-T", "a", "b"}).find("--track-command (-T) needs a COMMAND after '--'"),
              std::string::npos);
    EXPECT_NE(err({"-T", "-G", "5", "a", "b", "--", "ls"}).find("drop -G"), std::string::npos);
}

TEST(Options, ClusteredFlags) {
    Options o = ok({"-cqd", "a", "b"});
    EXPECT_TRUE(o.recordCpuid);
    EXPECT_TRUE(o.quiet);
    Options p = ok({"-cts3", "a", "b"}); // -c, then -t with "s3"
    EXPECT_TRUE(p.recordCpuid);
    EXPECT_EQ(p.duration, 3s);
}

TEST(Options, PositionalErrors) {
    EXPECT_EQ(err({}), "missing TRACEFILE and PROCFILE");
    EXPECT_EQ(err({"a.trace"}), "missing PROCFILE after TRACEFILE");
    EXPECT_NE(err({"a", "b", "c", "d"}).find("too many arguments: 'd'"), std::string::npos);
    EXPECT_EQ(err({"same", "same"}), "TRACEFILE and PROCFILE are the same file: same");
}

TEST(Options, UnknownAndMalformedOptions) {
    EXPECT_EQ(err({"-x", "a", "b"}), "unknown option '-x' (see --help)");
    EXPECT_EQ(err({"--frobnicate", "a", "b"}), "unknown option '--frobnicate' (see --help)");
    EXPECT_EQ(err({"a", "b", "-b"}), "option '-b' needs a value");
    EXPECT_EQ(err({"a", "b", "--pid"}), "option '--pid' needs a value");
    EXPECT_EQ(err({"--cpuid=1", "a", "b"}), "option '--cpuid' takes no value");
    EXPECT_NE(err({"--flush-interval", "1ms", "a", "b"}).find("at least 10ms"), std::string::npos);
    EXPECT_EQ(ok({"--flush-interval", "0", "a", "b"}).flushInterval, 0ms);
    EXPECT_EQ(ok({"--flush-interval", "250ms", "a", "b"}).flushInterval, 250ms);
}

TEST(Options, TestEmitRate) {
    EXPECT_EQ(ok({"--test-emit", "250k", "a", "b"}).testEmitRate, 250000u);
    EXPECT_EQ(ok({"--test-emit=2M", "a", "b"}).testEmitRate, 2000000u);
    EXPECT_EQ(ok({"--test-emit", "1234", "a", "b"}).testEmitRate, 1234u);
    EXPECT_EQ(ok({"a", "b"}).testEmitRate, 0u);
    EXPECT_NE(err({"--test-emit", "0", "a", "b"}).find("invalid event rate '0' for --test-emit"),
              std::string::npos);
    EXPECT_NE(err({"--test-emit", "fast", "a", "b"}).find("invalid event rate 'fast'"),
              std::string::npos);
}

TEST(Options, HelpAndVersionNeedNoFiles) {
    EXPECT_EQ(ok({"--help"}).action, Options::Action::Help);
    EXPECT_EQ(ok({"-h"}).action, Options::Action::Help);
    EXPECT_EQ(ok({"--version"}).action, Options::Action::Version);
    EXPECT_EQ(ok({"--version", "--help"}).action, Options::Action::Help);
    EXPECT_NE(usageText().find("Usage: tracedaemon [OPTIONS] [DEVICE] TRACEFILE PROCFILE"),
              std::string::npos);
    EXPECT_NE(versionText().find("ltt ABI " + std::to_string(LTT_ABI_MAJOR) + "." +
                                 std::to_string(LTT_ABI_MINOR)),
              std::string::npos);
}

TEST(Options, SizeAndDurationParsers) {
    EXPECT_EQ(parseSize("0"), 0u);
    EXPECT_EQ(parseSize("4k"), 4096u);
    EXPECT_EQ(parseSize("1g"), 1ull << 30);
    EXPECT_FALSE(parseSize("k"));
    EXPECT_FALSE(parseSize("99999999999999999999"));
    EXPECT_FALSE(parseSize("20000000000G"));
    EXPECT_EQ(parseDuration("u1"), 1us);
    EXPECT_FALSE(parseDuration("s"));
    EXPECT_FALSE(parseDuration("5 s"));
}

TEST(Options, VariablesByName) {
    EXPECT_FALSE(ok({"a", "b"}).vars);
    EXPECT_EQ(ok({"-V", "pid,PPID", "a", "b"}).vars,
              LTT_VAR_BIT(LTT_VAR_PID) | LTT_VAR_BIT(LTT_VAR_PPID));
    EXPECT_EQ(ok({"-Vargs", "--vars", "minflt", "a", "b"}).vars,
              LTT_VAR_BIT(LTT_VAR_ARGS) | LTT_VAR_BIT(LTT_VAR_MINFLT));
    EXPECT_EQ(ok({"-V", "all", "a", "b"}).vars, std::uint32_t(LTT_VAR_MASK_ALL));
    EXPECT_NE(
        err({"-V", "pid,cpu", "a", "b"}).find("unknown variable 'cpu' for -V (known: args,pid,"),
        std::string::npos);
    EXPECT_NE(usageText().find("-V, --vars LIST"), std::string::npos);
}

TEST(Options, FlightRecorderAndTriggerSignals) {
    Options o = ok({"--flight-recorder", "a", "b"});
    EXPECT_TRUE(o.flightRecorder);
    EXPECT_EQ(o.triggerSignals, 0u);
    EXPECT_FALSE(ok({"a", "b"}).flightRecorder);
    // Names with or without SIG, any case, and numbers; bit n-1 for signal n.
    EXPECT_EQ(
        ok({"--flight-recorder", "--trigger-signal", "SEGV,sigabrt,9", "a", "b"}).triggerSignals,
        (1ull << (SIGSEGV - 1)) | (1ull << (SIGABRT - 1)) | (1ull << 8));
    EXPECT_EQ(ok({"--flight-recorder", "--trigger-signal=64", "a", "b"}).triggerSignals,
              1ull << 63);
    EXPECT_NE(err({"--flight-recorder", "--trigger-signal", "SEGV,BOGUS", "a", "b"})
                  .find("unknown signal 'BOGUS' for --trigger-signal"),
              std::string::npos);
    EXPECT_NE(
        err({"--flight-recorder", "--trigger-signal", "65", "a", "b"}).find("unknown signal '65'"),
        std::string::npos);
    EXPECT_NE(err({"--flight-recorder", "--trigger-signal", "", "a", "b"}).find("unknown signal"),
              std::string::npos);
    EXPECT_NE(err({"--trigger-signal", "SEGV", "a", "b"}).find("needs --flight-recorder"),
              std::string::npos);
    EXPECT_NE(err({"--flight-recorder", "a", "b", "--", "ls"}).find("no COMMAND"),
              std::string::npos);
    EXPECT_NE(usageText().find("--flight-recorder"), std::string::npos);
    EXPECT_NE(usageText().find("--trigger-signal LIST"), std::string::npos);
}

TEST(Options, TriggerEvents) {
    EXPECT_TRUE(ok({"--flight-recorder", "a", "b"}).triggerEvents.empty());
    EXPECT_EQ(
        ok({"--flight-recorder", "--trigger-event", "ltt_mark", "--trigger-event=oops", "a", "b"})
            .triggerEvents,
        (std::vector<std::string>{"ltt_mark", "oops"}));
    EXPECT_NE(
        err({"--trigger-event", "oops", "a", "b"}).find("--trigger-event needs --flight-recorder"),
        std::string::npos);
    EXPECT_NE(err({"--flight-recorder", "--trigger-event", "", "a", "b"})
                  .find("an application event's name of 1 to 63 bytes for --trigger-event, not ''"),
              std::string::npos);
    EXPECT_NE(err({"--flight-recorder", "--trigger-event", std::string(64, 'x'), "a", "b"})
                  .find("1 to 63 bytes"),
              std::string::npos);
    EXPECT_NE(usageText().find("--trigger-event NAME"), std::string::npos);
}

TEST(Options, SnapshotLimits) {
    Options d = ok({"--flight-recorder", "a", "b"});
    EXPECT_EQ(d.maxSnapshots, 16u);
    EXPECT_EQ(d.snapshotBudget, 1ull << 30);
    EXPECT_FALSE(d.snapshotGid);
    Options o = ok({"--flight-recorder", "--max-snapshots", "3", "--snapshot-budget", "64M",
                    "--snapshot-gid=27", "a", "b"});
    EXPECT_EQ(o.maxSnapshots, 3u);
    EXPECT_EQ(o.snapshotBudget, 64ull << 20);
    EXPECT_EQ(o.snapshotGid, 27u);
    EXPECT_EQ(ok({"--flight-recorder", "--max-snapshots", "0", "a", "b"}).maxSnapshots, 0u);
    EXPECT_NE(
        err({"--max-snapshots", "3", "a", "b"}).find("--max-snapshots needs --flight-recorder"),
        std::string::npos);
    EXPECT_NE(err({"--snapshot-gid", "3", "a", "b"}).find("--snapshot-gid needs --flight-recorder"),
              std::string::npos);
    EXPECT_NE(err({"--flight-recorder", "--max-snapshots", "x", "a", "b"})
                  .find("invalid snapshot count 'x' for --max-snapshots"),
              std::string::npos);
    EXPECT_NE(err({"--flight-recorder", "--snapshot-budget", "100K", "a", "b"})
                  .find("expected at least 1M"),
              std::string::npos);
    EXPECT_NE(err({"--flight-recorder", "--snapshot-gid", "-1", "a", "b"}).find("invalid GID"),
              std::string::npos);
}

TEST(Options, SnapshotPaths) {
    EXPECT_EQ(snapshotPath("out.trace", 1), "out-1.trace");
    EXPECT_EQ(snapshotPath("/var/tmp/out.proc", 12), "/var/tmp/out-12.proc");
    EXPECT_EQ(snapshotPath("dir.d/out", 2), "dir.d/out-2");
    EXPECT_EQ(snapshotPath(".hidden", 3), ".hidden-3");
    EXPECT_EQ(snapshotPath("a.b.trace", 4), "a.b-4.trace");
}
