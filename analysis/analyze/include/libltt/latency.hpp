// LatencyAnalysis: exact latency distributions from one pass over a trace
// (traceanalyze --latency, the "latency" section of --json; definitions in
// docs/analysis.md, "Latency distributions").
//
//   wakeup      from a PROCESS WAKEUP naming a task that is off every CPU
//               and was not preempted (it blocked, or its state is not
//               known yet) to the SCHEDCHANGE that next switches it in;
//   preemption  from a SCHEDCHANGE switching a task out runnable
//               (out_state RUNNING) to the one that switches it back in;
//   syscall     from a task's SYSCALL_ENTRY to its next SYSCALL_EXIT;
//   irq         from IRQ_ENTRY to the matching IRQ_EXIT on the same CPU,
//               per line (or x86 vector);
//   softirq     from SOFTIRQ_ENTRY to the matching SOFTIRQ_EXIT on the same
//               CPU, per vector;
//   iowait      from a SCHEDCHANGE switching a task out blocked for I/O
//               (uninterruptible and not TASK_NOLOAD, or inside a
//               BUF_WAIT) to its wakeup, or to its next switch-in when no
//               wakeup was seen (TraceAnalysis's I/O wait).
//
// Every instance counts: the distributions keep every value, percentiles
// are exact (nearest rank). An instance whose interval contains a
// lost-events gap of any CPU is dropped and counted in dropped().
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <libltt/pid_table.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/trace_reader.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ltt {

enum class LatencyKind : std::uint8_t { Wakeup, Preemption, Syscall, Irq, SoftIrq, IoWait };
inline constexpr std::size_t kLatencyKinds = 6;
// "wakeup", "preemption", "syscall", "irq", "softirq", "iowait": the JSON keys.
const char* latencyKindKey(LatencyKind kind);

// One instance, for the lists of the worst ones.
struct LatencyInstance {
    std::uint64_t ns = 0;      // its length
    std::uint64_t startNs = 0; // when it began, in TraceAnalysis's time (ns since the anchor)
    std::uint16_t cpu = 0;     // where it ended (the task ran, the call returned, the handler ran)
    std::int32_t pid = -1;     // the task (-1 for interrupts)
    std::uint32_t what = 0;    // system call slot, IRQ line or soft-IRQ vector
};

// runqlat's log2 buckets of microseconds: bucket 0 holds 0 and 1 us,
// bucket i > 0 holds [2^i, 2^(i+1) - 1] us.
inline constexpr std::size_t kLatencyBuckets = 64;
inline std::size_t latencyBucket(std::uint64_t ns) {
    const std::uint64_t us = ns / 1000;
    return us < 2 ? 0 : static_cast<std::size_t>(63 - __builtin_clzll(us));
}

// Fine buckets for finding percentiles: values below 64 exactly, larger
// ones by their leading bit and the five bits after it (a bucket spans
// 1/32 of its power of two); 1920 in all.
inline constexpr std::size_t kFineBuckets = 1920;
inline std::size_t fineBucket(std::uint64_t v) {
    if (v < 64)
        return static_cast<std::size_t>(v);
    const int e = 63 - __builtin_clzll(v);
    return 64 + static_cast<std::size_t>(e - 6) * 32 + ((v >> (e - 5)) & 31);
}

// The values of one kind of latency in one place (a process, a call, a
// line): every value, so percentiles are exact. While the trace is walked
// add() only stores the value (in 32 bits, up to 4.29 s; longer ones
// apart), in chunks that never move; the figures are computed from the
// values once, when the distribution is finished.
class LatencyDistribution {
public:
    LatencyDistribution() = default;
    LatencyDistribution(LatencyDistribution&& o) noexcept { *this = std::move(o); }
    LatencyDistribution& operator=(LatencyDistribution&& o) noexcept;

    // One instance: its value kept for the figures.
    void add(std::uint64_t ns) {
        if (ns < kLong && next_m != end_m) [[likely]] {
            *next_m++ = static_cast<std::uint32_t>(ns);
            return;
        }
        addSlow(ns);
    }
    // Offers an instance to the list of the `keep` longest (of equal
    // lengths, the earliest).
    void offer(const LatencyInstance& inst, std::size_t keep) {
        if (inst.ns >= floor_m && keep && (worst_m.size() < keep || inst.ns >= worst_m.back().ns))
            insertWorst(inst, keep);
    }
    // Computes the figures from the values kept, then frees them. Call
    // once all values are in.
    void finish();
    // This distribution as the union of `parts` (a kind's, of its calls,
    // lines or tasks: so the walk adds each value once): every figure, the
    // worst list from theirs, the percentiles from their values. Call
    // before their finish().
    void finishUnion(const std::vector<LatencyDistribution*>& parts, std::size_t keep);

    std::uint64_t count() const { return count_m; }
    std::uint64_t minNs() const { return min_m; }
    std::uint64_t maxNs() const { return max_m; }
    std::uint64_t totalNs() const { return total_m; }
    // Nearest-rank percentiles: the smallest value that at least p % of
    // the values are not above (p50, p90, p99).
    std::uint64_t p50() const { return p_m[0]; }
    std::uint64_t p90() const { return p_m[1]; }
    std::uint64_t p99() const { return p_m[2]; }
    const std::array<std::uint64_t, kLatencyBuckets>& buckets() const { return buckets_m; }
    // Longest first.
    const std::vector<LatencyInstance>& worst() const { return worst_m; }
    // Values added and not yet finished (count() is known after finish()).
    bool empty() const { return chunks_m.empty() && long_m.empty(); }

    static constexpr std::uint32_t kLong = 0xffffffffu; // from here on, kept in 64 bits
    // Fewer values than this: percentiles by selection over all of them.
    static constexpr std::uint64_t kFineFrom = 4096;

private:
    friend struct LatencyParts;
    void addSlow(std::uint64_t ns);
    void insertWorst(const LatencyInstance& inst, std::size_t keep);
    // Computes count, min, max, total, the fine histogram and from it the
    // buckets, from the values; once.
    void seal();
    template <class F> void forEachValue(F&& f) const;
    // Chunk i holds kFirstChunk << i values, at most kMaxChunk; all full
    // but the last, filled up to next_m.
    static constexpr std::size_t kFirstChunk = 16, kMaxChunk = 65536;
    // (What add() and offer() read first, together.)
    std::uint32_t* next_m = nullptr;
    std::uint32_t* end_m = nullptr;
    std::uint64_t floor_m = 0; // an instance shorter than this is not kept
    std::vector<std::unique_ptr<std::uint32_t[]>> chunks_m;
    std::vector<std::uint64_t> long_m;       // the values of 2^32 - 1 ns and more
    std::unique_ptr<std::uint64_t[]> fine_m; // kFineBuckets counts, from seal()
    std::array<std::uint64_t, kLatencyBuckets> buckets_m{};
    std::vector<LatencyInstance> worst_m; // sorted, longest first
    std::uint64_t count_m = 0, min_m = 0, max_m = 0, total_m = 0;
    std::array<std::uint64_t, 3> p_m{};
    bool sealed_m = false;
};

// The nearest-rank percentile `p` (0 < p <= 100) of `values`, which it
// reorders (std::nth_element); 0 when empty.
std::uint64_t nearestRank(std::vector<std::uint64_t>& values, double p);

struct LatencyOptions {
    // Only these tasks (a task is selected by its pid or its thread group
    // id); empty: every task. Interrupts are always system-wide.
    std::vector<std::int32_t> pids;
    std::size_t worst = 5; // instances kept in each worst list
};

// One task's distributions (a pid reused after an exit is a new task).
struct TaskLatency {
    std::int32_t pid = 0;
    std::int32_t tgid = 0;
    std::string name;
    LatencyDistribution wakeup, preemption, syscall, ioWait;
};

class LatencyAnalysis {
public:
    LatencyAnalysis(const TraceReader& reader, const ProcSnapshot* snapshot,
                    LatencyOptions options = {});
    LatencyAnalysis(const LatencyAnalysis&) = delete;
    LatencyAnalysis& operator=(const LatencyAnalysis&) = delete;

    // Feeds one event, in merged order; finish() before reading results.
    void add(const Event& event);
    void finish();
    // Walks the whole trace (add, then finish). `progress` as
    // TraceAnalysis::run's. False on corruption (error()) or cancellation.
    bool run(const std::function<bool(double)>& progress = {});
    const std::optional<TraceError>& error() const { return error_m; }

    const LatencyOptions& options() const { return opt_m; }
    const TraceReader& reader() const { return reader_m; }
    // The selected tasks' figures together (every task without -p).
    const LatencyDistribution& all(LatencyKind k) const { return all_m[static_cast<int>(k)]; }
    // System calls by slot (TraceAnalysis::syscallSlotName).
    const std::map<std::uint32_t, LatencyDistribution>& syscalls() const { return calls_m; }
    // IRQ lines: key line, or line | kIrqVectorBit for an x86 vector.
    const std::map<std::uint32_t, LatencyDistribution>& irqs() const { return irqs_m; }
    static constexpr std::uint32_t kIrqVectorBit = 0x80000000u;
    const std::map<std::uint32_t, LatencyDistribution>& softIrqs() const { return softs_m; }
    // The selected tasks that had at least one instance, by pid (a pid
    // reused: its tasks in the order they lived).
    std::vector<const TaskLatency*> tasks() const;
    // Instances dropped because a lost-events gap fell inside them.
    std::uint64_t dropped(LatencyKind k) const { return dropped_m[static_cast<int>(k)]; }
    std::uint64_t lostEvents() const { return lost_m; }
    std::uint64_t events() const { return events_m; }
    // Whether the trace recorded what each kind needs (its event masks).
    bool available(LatencyKind k) const { return avail_m[static_cast<int>(k)]; }
    std::uint64_t firstNs() const { return firstNs_m; }

private:
    // New: forked, not run yet (its first run is not a wakeup).
    enum class State : std::uint8_t { Unknown, New, Running, Preempted, Blocked, IoBlocked, Woken };
    struct Task {
        std::int32_t pid = 0, tgid = 0;
        std::string name;
        bool selected = true;
        bool fromSnapshot = false, placeholder = false, exited = false;
        State state = State::Unknown;
        bool inSyscall = false, inBufWait = false;
        std::int32_t onCpu = -1;
        std::uint32_t nr = 0;
        std::uint64_t since = 0, sinceGen = 0; // start of the open wait
        std::uint64_t ioStart = 0;             // IoBlocked: when it blocked
        std::uint64_t sysStart = 0, sysGen = 0;
        TaskLatency* stats = nullptr; // in stats_m, from its first instance
        std::uint32_t index = 0;      // in tasks_m
    };
    struct Nest {
        std::uint32_t what;
        std::uint64_t start, gen;
    };
    struct Cpu {
        Task* current = nullptr;
        std::vector<Nest> irqs, softs;
    };
    Task& live(std::int32_t pid);
    Task& create(std::int32_t pid, std::int32_t tgid, const std::string& name);
    bool isSelected(const Task& t) const;
    TaskLatency& statsOf(Task& t);
    void record(LatencyKind k, Task* t, std::uint64_t start, std::uint64_t end, std::uint16_t cpu,
                std::uint32_t what, LatencyDistribution* also);
    void process(const Event& e, std::uint64_t ns);
    void schedchange(const Event& e, std::uint64_t ns);
    void blockStart(const Event& e, std::uint64_t ns);
    template <class E> void step(const E& e);
    template <class E> std::uint32_t dependsOn(const E& e) const;

    const TraceReader& reader_m;
    LatencyOptions opt_m;
    TscConverter tsc_m;
    std::deque<Task> tasks_m;
    PidTable live_m;
    std::vector<Cpu> cpus_m;
    std::deque<TaskLatency> stats_m;
    std::vector<Task*> statsTask_m; // the task of each stats_m entry
    std::array<LatencyDistribution, kLatencyKinds> all_m;
    std::map<std::uint32_t, LatencyDistribution> calls_m, irqs_m, softs_m;
    std::vector<LatencyDistribution> callVec_m; // by slot, while walking (calls_m after)
    std::array<std::uint64_t, kLatencyKinds> dropped_m{};
    std::array<bool, kLatencyKinds> avail_m{};
    std::uint64_t gen_m = 0, lost_m = 0, events_m = 0, firstNs_m = ~0ull;
    std::uint32_t syscallSlots_m = 0;
    std::optional<TraceError> error_m;
};

} // namespace ltt
