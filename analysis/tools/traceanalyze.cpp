// traceanalyze: LTT's command-line analyzer over libltt.
//
//   traceanalyze [options] TRACE [PROC [OUT]]
//
// Reports go to stdout (or OUT); warnings, errors and progress to stderr, so
// a report can be piped or diffed. Exit status: 0 success (also, with a
// warning, for a trace cut short in its last block or ending in bytes that
// hold no whole block, and for a .proc whose last line is cut), 1
// unreadable or corrupt input (the message names the file and byte offset),
// 2 usage errors. Names from the trace and the .proc are escaped in text
// output (control characters as \n, \x1b, ...).
#include <algorithm>
#include <bitset>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <getopt.h>
#include <libltt/callsites.hpp>
#include <libltt/critical_path.hpp>
#include <libltt/event_format.hpp>
#include <libltt/event_names.hpp>
#include <libltt/latency.hpp>
#include <libltt/latency_render.hpp>
#include <libltt/offcpu.hpp>
#include <libltt/private_file.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/report_render.hpp>
#include <libltt/syscall_args.hpp>
#include <libltt/trace_analysis.hpp>
#include <libltt/trace_follow.hpp>
#include <libltt/trace_reader.hpp>
#include <libltt/user_events.hpp>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using ltt::Process;
using ltt::TraceAnalysis;
using ull = unsigned long long;

struct Options {
    bool analyze = false, summarize = false, dump = false, json = false;
    bool callsites = false;
    bool progress = true;
    std::int64_t pid = -1;
    std::vector<std::int32_t> pids; // every -p (several only with --latency)
    // --latency, --worst; --critical-path PID with --from/--to (seconds
    // since the trace's first event); --symfs DIR.
    bool latency = false;
    std::size_t worst = 5;
    std::int64_t criticalPid = -1;
    double fromS = 0, toS = -1;
    std::string symfs;
    // --offcpu, --folded: off-CPU time by stack (with -p, --from, --to).
    bool offcpu = false, folded = false;
    int cpu = -1;
    std::bitset<LTT_EV_COUNT + 1> types; // events shown in dumps and counts
    std::string trace, proc, out;
    // --follow: the report again whenever whole blocks arrived.
    bool follow = false;
    double interval = 1.0, followTimeout = 30.0;
};

void usage(std::FILE* f) {
    std::fprintf(
        f, "usage: traceanalyze [options] TRACE [PROC [OUT]]\n"
           "Analyzes an ltt trace (TRACE, e.g. out.trace) with the system state at its\n"
           "start (PROC, e.g. out.proc); writes the report to OUT or stdout.\n"
           "\n"
           "  -a, --analyze        per-process analysis: process tree, characteristics,\n"
           "                       system call accounting, wait times\n"
           "  -s, --summarize      trace header, event counts, system-wide summary\n"
           "  -d, --dump           list every event (LTT's raw trace), application\n"
           "                       events by name with their fields\n"
           "  -p, --pid PID        only this process (analysis and dump); with --latency\n"
           "                       it may be given several times (a thread group's\n"
           "                       leader selects its threads; the other reports\n"
           "                       then cover every process)\n"
           "  -c, --cpu CPU        only this CPU (dump and per-CPU summary)\n"
           "  -o, --omit TYPES     leave these event types out of dump and counts\n"
           "  -t, --trace TYPES    keep only these event types in dump and counts\n"
           "                       TYPES: comma-separated event names, as tracedaemon -e\n"
           "                       takes them: keys (syscall_entry, file_system, ...), LTT\n"
           "                       names (SYS_ENTRY, FS, ...), groups (SYSCALL, CORE, ...)\n"
           "                       or ids\n"
           "      --callsites      per process, each system call's call sites\n"
           "                       (binary!function+offset) with counts and time\n"
           "      --latency        latency distributions: wakeup and preemption to\n"
           "                       running, system calls, IRQ and soft-IRQ handlers,\n"
           "                       I/O waits (count, percentiles, histogram, worst)\n"
           "      --worst N        worst instances listed per latency (--latency; 5)\n"
           "      --critical-path PID  what the thread's time went to, following its\n"
           "                       wakeups back through the tasks, interrupts and\n"
           "                       timers that woke it\n"
           "      --from SECONDS   start of the --critical-path or --offcpu interval,\n"
           "                       since the trace's first event (0)\n"
           "      --to SECONDS     end of that interval (the trace's end)\n"
           "      --offcpu         blocked (off-CPU) time by the stack the tasks\n"
           "                       blocked in (a trace taken with tracedaemon -S);\n"
           "                       with --json the document's \"offcpu\" section\n"
           "      --folded         with --offcpu: folded stacks only, one line each,\n"
           "                       weighted in microseconds (flamegraph.pl,\n"
           "                       speedscope and inferno read them)\n"
           "      --symfs DIR      read the binaries of call sites and stacks under\n"
           "                       DIR (a copy of the traced machine's root)\n"
           "      --json           the analysis as one JSON document (docs/json.md);\n"
           "                       with -d also every event (\"events\")\n"
           "      --no-progress    no progress line even on a terminal\n"
           "      --follow         follow a trace its producer is still writing: the\n"
           "                       report again whenever whole blocks arrived, until\n"
           "                       every CPU's final block, the producer's close or\n"
           "                       --timeout; then the report of the finished file\n"
           "      --interval SECONDS  time between looks at the trace (--follow; 1)\n"
           "      --timeout SECONDS   stop following when the trace has not grown for\n"
           "                       this long (--follow; 30; 0: never)\n"
           "  -h, --help           this text\n"
           "  -V, --version        version\n"
           "Without -a, -s, -d, --callsites, --latency, --critical-path or --offcpu: -a -s.\n");
}

// -o/-t TYPES: libltt's event-name vocabulary (the one tracedaemon -e reads).
bool parseTypes(const char* arg, const char* option, std::bitset<LTT_EV_COUNT + 1>& out) {
    std::string bad;
    auto mask = ltt::parseEventList(arg, &bad);
    if (!mask) {
        std::fprintf(stderr, "traceanalyze: %s\n", ltt::unknownEventMessage(bad, option).c_str());
        return false;
    }
    for (unsigned id = 0; id < LTT_EV_COUNT; ++id)
        if (*mask & LTT_EV_BIT(id))
            out.set(id);
    return true;
}

// --------------------------------------------------------------------- dump

// Loads the trace's NAME.kallsyms into `sym` when it exists; one that
// cannot be used leaves kernel addresses raw, with a warning.
void loadTraceKallsyms(const Options& o, ltt::Symbolizer& sym) {
    std::string why;
    if (!sym.loadTraceKallsyms(o.trace, &why))
        std::fprintf(stderr, "traceanalyze: warning: kernel addresses stay raw: %s\n", why.c_str());
}

// Kernel addresses in the dump are followed by their symbol when the
// trace's NAME.kallsyms exists; without it the dump reads as LTT's.
int dump(std::FILE* f, const Options& o, const ltt::TraceReader& r) {
    ltt::Symbolizer kernel;
    loadTraceKallsyms(o, kernel);
    ltt::KernelSymbols symbols;
    if (kernel.hasKallsyms())
        symbols = [&kernel](std::uint64_t a) { return kernel.kernelSymbol(a); };
    std::fprintf(f, "%-6s %-14s %10s %9s %7s %6s  %s\n", "CPU-ID", "Event", "Seconds", "Nanosec",
                 "PID", "Length", "Event Description");
    std::string line;
    // Follows every task's calls (all events, before the filters) so that
    // a system call's exit shows the whole call when its arguments were
    // recorded (tracedaemon -V args).
    ltt::SyscallTracker calls;
    // Application events: by name with their fields; one that does not
    // decode is shown raw, after a warning that says where and why.
    std::unique_ptr<ltt::UserEvents> user;
    if (!r.userStreams().empty()) {
        user = std::make_unique<ltt::UserEvents>(r);
        for (const ltt::TraceError& p : user->problems())
            std::fprintf(stderr, "traceanalyze: warning: %s\n", p.str().c_str());
    }
    std::string why;
    ltt::TraceCursor c = r.begin();
    for (; c.valid(); c.next()) {
        const ltt::Event& e = c.event();
        if (e.isUser()) [[unlikely]] {
            if (o.pid >= 0 && e.pid != o.pid)
                continue;
            if (o.cpu >= 0 || !o.types.test(e.id < LTT_EV_COUNT ? e.id : unsigned(LTT_EV_COUNT)))
                continue;
            const std::uint64_t t = r.realtimeNs(e.tsc);
            char head[128];
            const std::string stream = "u" + std::to_string(e.stream);
            int n = std::snprintf(head, sizeof head, "%-6s %-14.14s %10llu %09llu %7d %6u  ",
                                  stream.c_str(), std::string(ltt::eventName(e.id)).c_str(),
                                  ull(t / 1000000000), ull(t % 1000000000), e.pid, e.size);
            line.assign(head, static_cast<std::size_t>(n));
            if (e.id == LTT_EV_USER && !user->appendText(e, line)) {
                user->check(e, nullptr, &why);
                std::fflush(f);
                std::fprintf(stderr, "traceanalyze: warning: %s\n",
                             ltt::TraceError{r.path(), e.offset, why}.str().c_str());
                ltt::describeEvent(e, line, symbols);
            } else if (e.id != LTT_EV_USER) {
                ltt::describeEvent(e, line, symbols);
            }
            line.push_back('\n');
            std::fwrite(line.data(), 1, line.size(), f);
            continue;
        }
        calls.feed(e);
        if (o.cpu >= 0 && e.cpu != o.cpu)
            continue;
        if (o.pid >= 0 && e.pid != o.pid)
            continue;
        if (!o.types.test(e.id < LTT_EV_COUNT ? e.id : unsigned(LTT_EV_COUNT)))
            continue;
        const std::uint64_t t = r.realtimeNs(e.tsc);
        char head[128];
        int n = std::snprintf(head, sizeof head, "%-6u %-14.14s %10llu %09llu %7d %6u  ", e.cpu,
                              std::string(ltt::eventName(e.id)).c_str(), ull(t / 1000000000),
                              ull(t % 1000000000), e.pid, e.size);
        line.assign(head, static_cast<std::size_t>(n));
        ltt::describeEvent(e, line, symbols);
        if (!calls.exitLine().empty())
            line.append("; ").append(calls.exitLine());
        line.push_back('\n');
        std::fwrite(line.data(), 1, line.size(), f);
    }
    if (c.error()) {
        std::fflush(f);
        std::fprintf(stderr, "traceanalyze: %s\n", c.error()->str().c_str());
        return 1;
    }
    return 0;
}

// The report the options select, as text or JSON.
void writeReport(std::FILE* f, const Options& o, const TraceAnalysis& a,
                 const ltt::CallSiteReport* sites = nullptr,
                 const ltt::LatencyAnalysis* latency = nullptr,
                 const ltt::CriticalPath* path = nullptr,
                 const ltt::OffCpuReport* offcpu = nullptr) {
    ltt::ReportOptions ro;
    ro.summarize = o.summarize;
    ro.analyze = o.analyze;
    ro.pid = o.pid;
    ro.cpu = o.cpu;
    ro.types = o.types;
    ro.callsites = sites;
    ro.events = o.dump;
    ro.latency = latency;
    ro.criticalPath = path;
    ro.offcpu = offcpu;
    if (o.json)
        ltt::writeJsonReport(f, a, ro);
    else
        ltt::writeTextReport(f, a, ro);
}

// ------------------------------------------------------------------- follow
//
// --follow (libltt/trace_follow.hpp): looks at the trace every interval and
// reports again when whole blocks arrived. On stdout each report follows a
// "### " line saying what it covers (none with --json: a stream of JSON
// documents); OUT is replaced whole at each update, so it always holds one
// complete report. The last report is the one of the finished file, the
// same as without --follow, after the same warnings.

// The report of `reader` as the options select it. False on corruption
// (the message printed).
bool renderReport(const Options& o, const ltt::TraceReader& reader,
                  const ltt::ProcSnapshot* snapshot, std::string& text) {
    TraceAnalysis a(reader, snapshot);
    if (!a.run()) {
        std::fprintf(stderr, "traceanalyze: %s\n", a.error()->str().c_str());
        return false;
    }
    char* buf = nullptr;
    std::size_t len = 0;
    std::FILE* f = open_memstream(&buf, &len);
    if (!f) {
        std::fprintf(stderr, "traceanalyze: %s\n", std::strerror(errno));
        return false;
    }
    writeReport(f, o, a);
    std::fclose(f);
    text.assign(buf, len);
    std::free(buf);
    return true;
}

bool emitReport(const Options& o, const std::string& text, const std::string& heading) {
    if (o.out.empty()) {
        if (!o.json)
            std::printf("### %s\n", heading.c_str());
        std::fwrite(text.data(), 1, text.size(), stdout);
        return std::fflush(stdout) == 0;
    }
    try {
        ltt::ReplacementFile file(o.out, "report");
        for (std::size_t at = 0; at < text.size();) {
            const ssize_t n = ::write(file.fd(), text.data() + at, text.size() - at);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                throw std::system_error(errno, std::generic_category(), "cannot write " + o.out);
            at += static_cast<std::size_t>(n);
        }
        file.commit();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "traceanalyze: %s\n", e.what());
        return false;
    }
    return true;
}

int followTrace(const Options& o) {
    ltt::FollowOptions fo;
    fo.idleTimeout = std::chrono::milliseconds(std::llround(o.followTimeout * 1000));
    ltt::TraceFollower follower(o.trace, o.proc, fo);
    if (o.proc.empty())
        std::fprintf(stderr, "traceanalyze: warning: no PROC file: processes present at the "
                             "start are named \"unknown\"\n");
    const auto interval = std::chrono::milliseconds(std::llround(o.interval * 1000));
    std::chrono::steady_clock::duration spent{};
    for (;;) {
        const bool changed = follower.poll();
        if (follower.end() == ltt::TraceFollower::End::Error) {
            std::fprintf(stderr, "traceanalyze: %s\n", follower.error()->str().c_str());
            return 1;
        }
        if (follower.procError()) {
            std::fprintf(stderr, "traceanalyze: %s\n", follower.procError()->str().c_str());
            return 1;
        }
        const auto reader = follower.reader();
        if (changed && reader) {
            const auto snapshot = follower.snapshot();
            std::string heading = o.trace + ": ";
            if (follower.finished()) {
                // The warnings of a run on the finished file.
                if (reader->truncation())
                    std::fprintf(stderr, "traceanalyze: warning: %s\n",
                                 reader->truncation()->str().c_str());
                if (reader->unfinished())
                    std::fprintf(stderr, "traceanalyze: warning: %s\n",
                                 reader->unfinished()->str().c_str());
                if (!o.proc.empty() && !snapshot) {
                    ltt::ProcParseError perr; // the error a run without --follow gives
                    if (!ltt::readProcFile(o.proc, &perr)) {
                        std::fprintf(stderr, "traceanalyze: %s\n", perr.str().c_str());
                        return 1;
                    }
                }
                if (follower.procCut())
                    std::fprintf(stderr, "traceanalyze: warning: %s\n",
                                 follower.procCut()->str().c_str());
                std::fprintf(stderr, "traceanalyze: following ended: %s\n",
                             follower.endReason().c_str());
                heading += "final report (" + follower.endReason() + ")";
            } else {
                heading += std::to_string(reader->blocks().size()) + " blocks, " +
                           std::to_string(reader->claimedEvents()) + " events so far";
                if (!o.proc.empty() && !snapshot)
                    heading += " (" + o.proc + " not there yet)";
            }
            const auto start = std::chrono::steady_clock::now();
            std::string text;
            if (!renderReport(o, *reader, snapshot.get(), text) || !emitReport(o, text, heading))
                return 1;
            // Each report analyzes the whole trace so far: on a long one,
            // wait at least as long as it took, so following takes at most
            // half a CPU.
            spent = std::chrono::steady_clock::now() - start;
        }
        if (follower.finished())
            return 0;
        std::this_thread::sleep_for(std::max<std::chrono::steady_clock::duration>(interval, spent));
        spent = {};
    }
}

// ------------------------------------------------------------- call sites

// The call sites of every process (or -p's), symbolized with the ELF files
// by path and the trace's NAME.kallsyms when there is one.
std::optional<ltt::CallSiteReport> callSites(const Options& o, const ltt::TraceReader& r,
                                             const ltt::ProcSnapshot* snap) {
    ltt::Symbolizer sym;
    sym.setSymfs(o.symfs);
    loadTraceKallsyms(o, sym);
    auto rep = ltt::analyzeCallSites(r, snap, sym, o.pid);
    if (rep.error) {
        std::fprintf(stderr, "traceanalyze: %s\n", rep.error->str().c_str());
        return std::nullopt;
    }
    return rep;
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    o.types.set();
    bool typesGiven = false;
    enum { kJson = 1000, kNoProgress, kCallSites };
    enum { kFollow = 1100, kInterval, kFollowTimeout };
    enum { kLatency = 1200, kWorst, kCriticalPath, kFrom, kTo, kSymfs, kOffCpu, kFolded };
    static const option longopts[] = {{"analyze", no_argument, nullptr, 'a'},
                                      {"summarize", no_argument, nullptr, 's'},
                                      {"dump", no_argument, nullptr, 'd'},
                                      {"pid", required_argument, nullptr, 'p'},
                                      {"cpu", required_argument, nullptr, 'c'},
                                      {"omit", required_argument, nullptr, 'o'},
                                      {"trace", required_argument, nullptr, 't'},
                                      {"json", no_argument, nullptr, kJson},
                                      {"callsites", no_argument, nullptr, kCallSites},
                                      {"no-progress", no_argument, nullptr, kNoProgress},
                                      {"follow", no_argument, nullptr, kFollow},
                                      {"latency", no_argument, nullptr, kLatency},
                                      {"worst", required_argument, nullptr, kWorst},
                                      {"critical-path", required_argument, nullptr, kCriticalPath},
                                      {"from", required_argument, nullptr, kFrom},
                                      {"to", required_argument, nullptr, kTo},
                                      {"symfs", required_argument, nullptr, kSymfs},
                                      {"offcpu", no_argument, nullptr, kOffCpu},
                                      {"folded", no_argument, nullptr, kFolded},
                                      {"interval", required_argument, nullptr, kInterval},
                                      {"timeout", required_argument, nullptr, kFollowTimeout},
                                      {"help", no_argument, nullptr, 'h'},
                                      {"version", no_argument, nullptr, 'V'},
                                      {nullptr, 0, nullptr, 0}};
    std::bitset<LTT_EV_COUNT + 1> omit, keep;
    int ch;
    while ((ch = getopt_long(argc, argv, "asdp:c:o:t:hV", longopts, nullptr)) != -1) {
        switch (ch) {
        case 'a':
            o.analyze = true;
            break;
        case 's':
            o.summarize = true;
            break;
        case 'd':
            o.dump = true;
            break;
        case 'p': {
            char* end = nullptr;
            long v = std::strtol(optarg, &end, 10);
            if (*end || v < 0 || v > INT32_MAX || !*optarg) {
                std::fprintf(stderr, "traceanalyze: bad PID \"%s\"\n", optarg);
                return 2;
            }
            o.pid = v;
            o.pids.push_back(static_cast<std::int32_t>(v));
            break;
        }
        case kLatency:
            o.latency = true;
            break;
        case kOffCpu:
            o.offcpu = true;
            break;
        case kFolded:
            o.folded = true;
            break;
        case kWorst: {
            char* end = nullptr;
            long v = std::strtol(optarg, &end, 10);
            if (*end || v < 0 || v > 1000 || !*optarg) {
                std::fprintf(stderr, "traceanalyze: bad --worst \"%s\" (0 to 1000)\n", optarg);
                return 2;
            }
            o.worst = static_cast<std::size_t>(v);
            break;
        }
        case kCriticalPath: {
            char* end = nullptr;
            long v = std::strtol(optarg, &end, 10);
            if (*end || v <= 0 || v > INT32_MAX || !*optarg) {
                std::fprintf(stderr,
                             "traceanalyze: bad --critical-path PID \"%s\" (a task's pid, not 0)\n",
                             optarg);
                return 2;
            }
            o.criticalPid = v;
            break;
        }
        case kFrom:
        case kTo: {
            char* end = nullptr;
            const double v = std::strtod(optarg, &end);
            if (!*optarg || *end || !(v >= 0) || v > 1e9) {
                std::fprintf(stderr,
                             "traceanalyze: bad %s \"%s\" (seconds since the trace's "
                             "first event, 0 or more)\n",
                             ch == kFrom ? "--from" : "--to", optarg);
                return 2;
            }
            (ch == kFrom ? o.fromS : o.toS) = v;
            break;
        }
        case kSymfs:
            if (!*optarg || !std::filesystem::is_directory(optarg)) {
                std::fprintf(stderr, "traceanalyze: --symfs %s: not a directory\n", optarg);
                return 2;
            }
            o.symfs = optarg;
            break;
        case 'c': {
            char* end = nullptr;
            long v = std::strtol(optarg, &end, 10);
            if (*end || v < 0 || v >= LTT_MAX_CPUS || !*optarg) {
                std::fprintf(stderr, "traceanalyze: bad CPU \"%s\"\n", optarg);
                return 2;
            }
            o.cpu = static_cast<int>(v);
            break;
        }
        case 'o':
            if (!parseTypes(optarg, "-o", omit))
                return 2;
            break;
        case 't':
            if (!parseTypes(optarg, "-t", keep))
                return 2;
            typesGiven = true;
            break;
        case kJson:
            o.json = true;
            break;
        case kCallSites:
            o.callsites = true;
            break;
        case kNoProgress:
            o.progress = false;
            break;
        case kFollow:
            o.follow = true;
            break;
        case kInterval:
        case kFollowTimeout: {
            const bool interval = ch == kInterval;
            char* end = nullptr;
            const double v = std::strtod(optarg, &end);
            if (!*optarg || *end || !(v >= 0) || v > 86400 || (interval && v < 0.01)) {
                std::fprintf(stderr, "traceanalyze: bad %s \"%s\" (seconds, %s)\n",
                             interval ? "--interval" : "--timeout", optarg,
                             interval ? "0.01 to 86400" : "0 to 86400");
                return 2;
            }
            (interval ? o.interval : o.followTimeout) = v;
            break;
        }
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            std::printf("traceanalyze (ltt) %s\n", LTT_VERSION_STRING);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (typesGiven)
        o.types = keep;
    o.types &= ~omit;
    const int npos = argc - optind;
    if (npos < 1 || npos > 3) {
        std::fprintf(stderr, "traceanalyze: %s\n",
                     npos < 1 ? "missing TRACE file" : "too many arguments");
        usage(stderr);
        return 2;
    }
    o.trace = argv[optind];
    if (npos >= 2)
        o.proc = argv[optind + 1];
    if (npos >= 3)
        o.out = argv[optind + 2];
    if (o.pids.size() > 1) {
        if (!o.latency) {
            std::fprintf(stderr, "traceanalyze: several -p PIDs only with --latency\n");
            return 2;
        }
        o.pid = -1; // the other reports then cover every process
    }
    if (o.criticalPid < 0 && !o.offcpu && (o.fromS != 0 || o.toS >= 0)) {
        std::fprintf(stderr, "traceanalyze: --from and --to need --critical-path or --offcpu\n");
        return 2;
    }
    if (o.folded && !o.offcpu) {
        std::fprintf(stderr, "traceanalyze: --folded needs --offcpu\n");
        return 2;
    }
    if (o.folded && (o.analyze || o.summarize || o.dump || o.json || o.callsites || o.latency ||
                     o.criticalPid >= 0)) {
        std::fprintf(stderr, "traceanalyze: --folded writes folded stacks alone: not with -a, "
                             "-s, -d, --json, --callsites, --latency or --critical-path\n");
        return 2;
    }
    if (o.toS >= 0 && o.toS <= o.fromS) {
        std::fprintf(stderr, "traceanalyze: --to must be after --from\n");
        return 2;
    }
    if (!o.symfs.empty() && !o.callsites && !o.offcpu) {
        std::fprintf(stderr, "traceanalyze: --symfs needs --callsites or --offcpu (the only "
                             "addresses it symbolizes)\n");
        return 2;
    }
    if (!o.analyze && !o.summarize && !o.dump && !o.callsites && !o.latency && o.criticalPid < 0 &&
        !o.offcpu)
        o.analyze = o.summarize = true;
    if (o.follow) {
        if (o.dump || o.callsites || o.latency || o.criticalPid >= 0 || o.offcpu) {
            std::fprintf(stderr, "traceanalyze: --follow does not combine with --dump, "
                                 "--callsites, --latency, --critical-path or --offcpu\n");
            return 2;
        }
        return followTrace(o);
    }

    ltt::TraceError err;
    auto reader = ltt::TraceReader::open(o.trace, &err);
    if (!reader) {
        std::fprintf(stderr, "traceanalyze: %s\n", err.str().c_str());
        return 1;
    }
    if (reader->truncation())
        std::fprintf(stderr, "traceanalyze: warning: %s\n", reader->truncation()->str().c_str());
    if (reader->unfinished())
        std::fprintf(stderr, "traceanalyze: warning: %s\n", reader->unfinished()->str().c_str());

    std::optional<ltt::ProcSnapshot> snap;
    if (!o.proc.empty()) {
        ltt::ProcParseError perr;
        std::optional<ltt::ProcParseError> cut;
        snap = ltt::readProcFile(o.proc, &perr, &cut);
        if (!snap) {
            std::fprintf(stderr, "traceanalyze: %s\n", perr.str().c_str());
            return 1;
        }
        if (cut)
            std::fprintf(stderr, "traceanalyze: warning: %s\n", cut->str().c_str());
    } else {
        std::fprintf(stderr, "traceanalyze: warning: no PROC file: processes present at the "
                             "start are named \"unknown\"\n");
    }

    std::FILE* out = stdout;
    if (!o.out.empty()) {
        out = std::fopen(o.out.c_str(), "we");
        if (!out) {
            std::fprintf(stderr, "traceanalyze: cannot create %s: %s\n", o.out.c_str(),
                         std::strerror(errno));
            return 1;
        }
    }
    int rc = 0;
    if (o.dump && !o.json)
        rc = dump(out, o, *reader);
    std::optional<ltt::CallSiteReport> sites;
    if (rc == 0 && o.callsites) {
        sites = callSites(o, *reader, snap ? &*snap : nullptr);
        if (!sites)
            rc = 1;
        else if (!o.json)
            ltt::writeCallSitesText(out, *sites);
    }
    // --latency and --critical-path: passes of their own, before the
    // analysis (their text comes first; their JSON goes into its document).
    std::unique_ptr<ltt::LatencyAnalysis> latency;
    if (rc == 0 && o.latency) {
        ltt::LatencyOptions lo;
        lo.pids = o.pids;
        lo.worst = o.worst;
        latency = std::make_unique<ltt::LatencyAnalysis>(*reader, snap ? &*snap : nullptr, lo);
        if (!latency->run()) {
            std::fprintf(stderr, "traceanalyze: %s\n", latency->error()->str().c_str());
            rc = 1;
        } else if (!o.json) {
            ltt::writeLatencyText(out, *latency);
        }
    }
    std::optional<ltt::OffCpuReport> offcpu;
    if (rc == 0 && o.offcpu) {
        ltt::Symbolizer sym;
        sym.setSymfs(o.symfs);
        loadTraceKallsyms(o, sym);
        ltt::OffCpuOptions oo;
        oo.pid = o.pid;
        oo.fromNs = static_cast<std::uint64_t>(std::llround(o.fromS * 1e9));
        if (o.toS >= 0)
            oo.toNs = static_cast<std::uint64_t>(std::llround(o.toS * 1e9));
        offcpu = ltt::analyzeOffCpu(*reader, snap ? &*snap : nullptr, sym, oo);
        const ltt::OffCpuReport& rep = *offcpu;
        if (rep.error) {
            std::fprintf(stderr, "traceanalyze: %s\n", rep.error->str().c_str());
            rc = 1;
        } else if (o.folded) {
            if (!rep.stacksRecorded)
                std::fprintf(stderr, "traceanalyze: warning: the trace has no STACK records "
                                     "(take it with tracedaemon -S)\n");
            if (rep.droppedLost)
                std::fprintf(stderr,
                             "traceanalyze: warning: %" PRIu64 " blocked intervals dropped: "
                             "events were lost while they were open\n",
                             rep.droppedLost);
            ltt::writeFolded(out, rep);
        } else if (!o.json) {
            if (latency)
                std::fputc('\n', out);
            ltt::writeOffCpuText(out, rep);
        }
    }
    std::unique_ptr<ltt::CriticalPath> path;
    if (rc == 0 && o.criticalPid >= 0) {
        ltt::CriticalPathOptions co;
        co.pid = static_cast<std::int32_t>(o.criticalPid);
        co.fromNs = static_cast<std::uint64_t>(std::llround(o.fromS * 1e9));
        if (o.toS >= 0)
            co.toNs = static_cast<std::uint64_t>(std::llround(o.toS * 1e9));
        path = std::make_unique<ltt::CriticalPath>(*reader, snap ? &*snap : nullptr, co);
        if (!path->run()) {
            std::fprintf(stderr, "traceanalyze: %s\n", path->error()->str().c_str());
            rc = 1;
        } else if (!path->found()) {
            std::fprintf(stderr, "traceanalyze: --critical-path: PID %d is not in the trace%s\n",
                         co.pid, o.fromS != 0 || o.toS >= 0 ? " in that interval" : "");
            rc = 1;
        } else if (!o.json) {
            if (latency || o.offcpu)
                std::fputc('\n', out);
            ltt::writeCriticalPathText(out, *path);
        }
    }
    if (rc == 0 && (o.analyze || o.summarize || o.json)) {
        TraceAnalysis a(*reader, snap ? &*snap : nullptr);
        const bool tty = o.progress && isatty(STDERR_FILENO) && reader->claimedEvents() > 4000000;
        std::function<bool(double)> progress;
        if (tty)
            progress = [](double f) {
                std::fprintf(stderr, "\rtraceanalyze: %3d%%", static_cast<int>(f * 100));
                return true;
            };
        bool ok = a.run(progress);
        if (tty)
            std::fprintf(stderr, "\r                    \r");
        if (!ok) {
            std::fprintf(stderr, "traceanalyze: %s\n", a.error()->str().c_str());
            rc = 1;
        } else {
            writeReport(out, o, a, sites ? &*sites : nullptr, latency.get(), path.get(),
                        offcpu ? &*offcpu : nullptr);
        }
    }
    if (out != stdout && std::fclose(out) != 0) {
        std::fprintf(stderr, "traceanalyze: cannot write %s: %s\n", o.out.c_str(),
                     std::strerror(errno));
        return 1;
    }
    if (out == stdout && std::fflush(stdout) != 0)
        return 1;
    return rc;
}
