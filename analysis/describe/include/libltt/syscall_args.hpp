// Kernel-state variables (VARS records, include/ltt/module_events.h) and
// strace-style system calls: the decoding of a VARS record (the variables'
// names are event_names.hpp's, included here), and the formatting of a call with its arguments
// (`openat(AT_FDCWD, "/etc/passwd", O_RDONLY) = 3`). Shared by
// traceanalyze's dump, its JSON event dump, traceview's raw-trace list
// (through describeEvent()) and tracedaemon's -V, so all say the same.
#pragma once

#include <array>
#include <cstdint>
#include <libltt/event_names.hpp>
#include <libltt/trace_reader.hpp>
#include <ltt/module_events.h>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ltt {

// A VARS record decoded. `values` is indexed by enum ltt_var and valid
// where `changed` has the variable's bit (LTT_VAR_ARGS: `args`).
struct VarsRecord {
    std::uint32_t changed = 0;
    std::uint32_t nr = 0; // the system call, with LTT_VAR_ARGS
    unsigned nargs = 0;
    std::array<std::uint64_t, LTT_VAR_ARGS_MAX> args{};
    std::array<std::uint64_t, LTT_VAR_COUNT> values{};
};
// nullopt when the event is no VARS record or its details are cut short
// (fewer values than its bits and subtype announce) or name unknown bits.
std::optional<VarsRecord> decodeVars(const Event& e);
// "PID : 100; MINFLT : 42" for the values of `v` other than the arguments.
void appendVarValues(std::string& out, const VarsRecord& v);

// Appends `name(arg, arg, ...)` for system call `nr` with `nargs` raw
// arguments: names and flags for the common calls, hex for the rest.
// `paths` are the file names the trace recorded for the call's path
// arguments, in the order the call takes them (OPEN/EXEC names, MOUNT's
// source and target); an argument without one is shown as an address.
void appendSyscall(std::string& out, std::uint32_t nr, const std::uint64_t* args, unsigned nargs,
                   const std::string* paths = nullptr, unsigned npaths = 0);
// Appends " = 3", " = -1 ENOENT", " = 0x7f12a000" (for calls that return
// addresses), as strace shows a return value.
void appendSyscallReturn(std::string& out, std::uint32_t nr, std::int64_t ret);

// Follows each task's system calls through a walk in merged order: the
// arguments from the VARS record after a SYSCALL_ENTRY, the file names of
// the FILE_SYSTEM OPEN/EXEC and MOUNT events the call produced. At the
// call's SYSCALL_EXIT, `exit()` gives the whole call, strace-style.
class SyscallTracker {
public:
    // Feed every event in merged order.
    void feed(const Event& e);
    // For a SYSCALL_EXIT just fed: the call with its arguments and return
    // value (`openat(AT_FDCWD, "/etc/passwd", O_RDONLY) = 3`), or empty
    // when its arguments were not recorded.
    const std::string& exitLine() const { return exitLine_m; }
    // The length of exitLine()'s call, before its return value: the call
    // as its entry would show it (`openat(AT_FDCWD, "/etc/passwd", O_RDONLY)`).
    std::size_t exitCallLength() const { return exitCallLength_m; }

private:
    struct Pending {
        std::uint32_t nr = 0;
        unsigned nargs = 0;
        std::array<std::uint64_t, LTT_VAR_ARGS_MAX> args{};
        std::string paths[2];
        unsigned npaths = 0;
        bool haveArgs = false;
    };
    std::unordered_map<std::int32_t, Pending> pending_m; // by task
    std::int32_t lastEntryPid_m = -1;                    // awaiting its VARS record
    std::uint16_t lastEntryCpu_m = 0;
    std::uint32_t lastEntryNr_m = 0;
    std::string exitLine_m;
    std::size_t exitCallLength_m = 0;
};

// The memory and load variables of VARS records as series over time, for
// counter strips (traceview). System-wide variables (FREEMEM, TOTALMEM,
// LOADAVG) take the latest value any CPU recorded. The per-CPU counters
// (PGFAULT, PGPGIN, PGPGOUT, PSWPIN, PSWPOUT) are summed over the CPUs as
// counts since each CPU's first record (a CPU's first value is its base; a
// value below the CPU's last one starts a new base), so the difference of
// two values is what all CPUs counted in between.
struct VarSeries {
    unsigned var = 0;     // enum ltt_var
    bool counter = false; // a per-CPU counter summed, else a system-wide value
    // A step line: value[i] holds from ns[i] (ns since the trace anchor)
    // until ns[i + 1]; consecutive values differ.
    std::vector<std::uint64_t> ns, value;

    // The value at `t`: the last point at or before it (the first point's
    // before the first).
    std::uint64_t valueAt(std::uint64_t t) const;
    // The smallest and largest value the line takes in [t0, t1).
    std::pair<std::uint64_t, std::uint64_t> range(std::uint64_t t0, std::uint64_t t1) const;

    static constexpr std::size_t kBlock = 256; // points per block of blockMin/Max
    std::vector<std::uint64_t> blockMin, blockMax;
};

// Builds the VarSeries of a trace from its events in merged order.
class VarSeriesBuilder {
public:
    // Whether `var` gets a series (the memory, paging and load variables).
    static bool charted(unsigned var);
    // Feed every event (others than VARS cost one comparison); `ns` is the
    // event's time.
    void feed(const Event& e, std::uint64_t ns);
    // The series of the variables the trace recorded, by variable number.
    std::vector<VarSeries> finish();

private:
    struct CpuCounters {
        std::array<std::uint64_t, LTT_VAR_COUNT> last{};
        std::uint32_t known = 0;
    };
    void add(unsigned var, std::uint64_t ns, std::uint64_t value);
    std::array<VarSeries, LTT_VAR_COUNT> series_m{};
    std::array<std::uint64_t, LTT_VAR_COUNT> total_m{}; // counters: the sum so far
    std::vector<CpuCounters> cpus_m;
};

} // namespace ltt
