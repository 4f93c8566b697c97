// CriticalPath: what a thread's time went to over an interval, following
// its wakeups backwards through the tasks, interrupts and timers that woke
// it (traceanalyze --critical-path; docs/analysis.md, "Critical path").
//
// The algorithm is the bounded one of Giraldeau and Dagenais, "Wait
// analysis of distributed systems using kernel tracing" (IEEE TPDS 27(8),
// 2016), as Trace Compass's CriticalPathAlgorithmBounded implements it:
// the target's running and runnable stretches are on the path as they are;
// each stretch it spent blocked is replaced by what its waker did during
// that stretch, walking the waker's own timeline backwards from the wakeup
// to the start of the blocking, and resolving the waker's own blockings
// inside that window the same way (recursively, each one bounded by the
// window it lies in). A blocking ended by an interrupt or soft IRQ is
// attributed to it (a timer, a network or block-device soft IRQ, an IRQ
// line); one whose wakeup was not recorded stays "blocked".
#pragma once

#include <cstdint>
#include <cstdio>
#include <deque>
#include <libltt/pid_table.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/trace_reader.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ltt {

enum class CriticalKind : std::uint8_t {
    Running,   // the task ran
    Runnable,  // the task was ready and waited for a CPU
    Timer,     // woken by a timer (timer interrupt or timer soft IRQ)
    Interrupt, // woken by an interrupt handler (IRQ line or x86 vector `what`)
    SoftIrq,   // woken by another soft IRQ (vector `what`)
    Io,        // woken by the block-device soft IRQ (disk I/O completion)
    Network,   // woken by the network soft IRQs
    Blocked,   // blocked, and its wakeup was not recorded
    Unknown,   // no record says (lost events, before the task's first record)
};
// "running", "runnable", "timer", "interrupt", "softirq", "io", "network",
// "blocked", "unknown": the JSON values.
const char* criticalKindKey(CriticalKind k);

struct CriticalSegment {
    std::uint64_t startNs = 0, endNs = 0; // TraceAnalysis's time (ns since the anchor)
    CriticalKind kind = CriticalKind::Unknown;
    std::int32_t pid = 0;          // whose stretch this is: the task running, waiting, blocked
    std::uint32_t what = 0;        // Interrupt: line (| 1 << 31 for a vector); SoftIrq: vector
    std::vector<std::int32_t> via; // the tasks waited for, from the target's waker to `pid`
};

// Time on the path per resource: one kind of one task (or interrupt line).
struct CriticalShare {
    CriticalKind kind = CriticalKind::Unknown;
    std::int32_t pid = 0;
    std::uint32_t what = 0;
    std::uint64_t ns = 0;
};

struct CriticalPathOptions {
    std::int32_t pid = 0;
    // The interval, in ns since the trace's first event; clipped to the
    // stretch the trace records the task in.
    std::uint64_t fromNs = 0, toNs = ~0ull;
};

class CriticalPath {
public:
    CriticalPath(const TraceReader& reader, const ProcSnapshot* snapshot,
                 CriticalPathOptions options);
    CriticalPath(const CriticalPath&) = delete;
    CriticalPath& operator=(const CriticalPath&) = delete;

    void add(const Event& event); // merged order; finish() after the last
    void finish();
    bool run(); // the whole trace; false on corruption (error())
    const std::optional<TraceError>& error() const { return error_m; }

    bool found() const { return found_m; } // the trace mentions the task
    const CriticalPathOptions& options() const { return opt_m; }
    const TraceReader& reader() const { return reader_m; }
    // The interval after clipping, in TraceAnalysis's time (ns since the anchor).
    std::uint64_t fromNs() const { return from_m; }
    std::uint64_t toNs() const { return to_m; }
    const std::vector<CriticalSegment>& segments() const { return path_m; }
    // Longest first.
    const std::vector<CriticalShare>& summary() const { return summary_m; }
    std::string name(std::int32_t pid) const; // the task's last name ("unknown")
    // "waiting for PID 12 (which was running)", "running", "timer", ...
    std::string describe(const CriticalSegment& s) const;
    std::string describe(const CriticalShare& s) const;
    std::uint64_t lostEvents() const { return lost_m; }
    // Whether the trace has what the path needs (SCHEDCHANGE and PROCESS
    // with their details).
    bool available() const { return avail_m; }

private:
    // Gone: switched out dead. The task's life is over; no stretch follows
    // (never stored in segs).
    enum class St : std::uint8_t { Running, Runnable, Blocked, Unknown, Gone };
    enum class Src : std::uint8_t { None, Task, Irq, Soft, Timer };
    struct Seg {
        std::uint64_t start, end;
        St st;
        Src src = Src::None;    // Blocked: what woke it
        std::int32_t waker = 0; // Src::Task: its pid
        std::uint32_t what = 0;
        std::uint64_t wokenAt = 0;
    };
    struct Timeline {
        std::int32_t pid = 0;
        std::string name;
        std::vector<Seg> segs;
        St open = St::Unknown;
        std::uint64_t openStart = 0;
        bool woken = false, running = false;
        Src src = Src::None;
        std::int32_t waker = 0;
        std::uint32_t what = 0;
        std::uint64_t wokenAt = 0;
        std::uint64_t first = ~0ull, last = 0; // when the trace mentions it
    };
    struct Nest {
        std::uint32_t what;
        bool timer;
    };
    struct Cpu {
        std::int32_t current = 0;
        std::vector<Nest> irqs, softs;
    };
    Timeline& tl(std::int32_t pid);
    void close(Timeline& t, std::uint64_t ns);
    void push(Timeline& t, Seg s);
    template <class E> void step(const E& e);
    void resolve(const Timeline& t, const Seg& s, std::uint64_t lo, std::uint64_t hi,
                 std::vector<std::int32_t>& via, unsigned depth,
                 std::vector<CriticalSegment>& out) const;
    void walkBack(const Timeline& w, std::uint64_t lo, std::uint64_t hi,
                  std::vector<std::int32_t>& via, unsigned depth,
                  std::vector<CriticalSegment>& out) const;
    void emit(std::vector<CriticalSegment>& out, CriticalSegment s) const;
    std::string shareLabel(CriticalKind k, std::int32_t pid, std::uint32_t what) const;

    const TraceReader& reader_m;
    CriticalPathOptions opt_m;
    TscConverter tsc_m;
    std::deque<Timeline> tls_m;
    PidTable index_m;
    std::vector<Cpu> cpus_m;
    std::vector<CriticalSegment> path_m;
    std::vector<CriticalShare> summary_m;
    std::uint64_t from_m = 0, to_m = 0, lost_m = 0, lastNs_m = 0, firstNs_m = ~0ull;
    bool found_m = false, avail_m = true;
    std::optional<TraceError> error_m;
};

} // namespace ltt
