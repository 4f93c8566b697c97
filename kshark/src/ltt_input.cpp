// libkshark-input-ltt.so: a KernelShark 2 input plugin that opens ltt traces
// (docs/convert.md, "KernelShark").
//
//   kernelshark -p libkshark-input-ltt.so -i demo.trace
//
// KernelShark loads the plugin with dlopen and looks up four symbols
// (libkshark-plugin.h): KSHARK_INPUT_FORMAT names the data format,
// KSHARK_INPUT_CHECK says whether a file is ours (the ltt file magic),
// KSHARK_INPUT_INITIALIZER opens it and fills the stream's generic
// interface, KSHARK_INPUT_DEINITIALIZER closes it. KernelShark then calls
// load_entries once: one kshark_entry per event of the trace, in libltt's
// merged time order, each with its CPU, the task current on that CPU and
// its merged index as the entry's "offset". The text columns (event name,
// task, info) are computed on demand from that index with a cursor of
// libltt's reader, the same descriptions traceanalyze -d prints.
//
// The .proc beside the trace (same base name) names the tasks present at
// the start; FORK and EXEC events name the ones the trace creates.
// Timestamps are the traced machine's CLOCK_MONOTONIC in ns, as in the
// Perfetto output.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <libltt/event_format.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/trace_reader.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unistd.h>
#include <unordered_map>
#include <vector>

extern "C" {
#include <libkshark-plugin.h>
#include <libkshark.h>
}

namespace {

constexpr const char* kFormat = "ltt_trace";

// What the plugin keeps per open stream (the stream's interface->handle).
struct LttStream {
    std::unique_ptr<ltt::TraceReader> reader;
    std::unordered_map<std::int32_t, std::string> names; // last name of each task
    std::uint64_t monotonicAnchor = 0;
    // Text columns are asked for row after row: a cursor kept where the
    // last lookup left it makes the next one a step or two.
    std::mutex lookupLock;
    std::optional<ltt::TraceCursor> cursor;

    // The event with merged index `index`, or nullptr.
    const ltt::Event* at(std::int64_t index) {
        if (index < 0)
            return nullptr;
        const auto want = static_cast<std::uint64_t>(index);
        if (!cursor || !cursor->valid() || cursor->index() > want ||
            want - cursor->index() > ltt::TraceReader::kCheckpointInterval)
            cursor = reader->atIndex(want);
        while (cursor->valid() && cursor->index() < want)
            cursor->next();
        return cursor->valid() && cursor->index() == want ? &cursor->event() : nullptr;
    }
};

LttStream* handleOf(kshark_data_stream* stream) {
    auto* in = static_cast<kshark_generic_stream_interface*>(stream->interface);
    return in ? static_cast<LttStream*>(in->handle) : nullptr;
}

char* copyString(std::string_view s) {
    char* out = static_cast<char*>(std::malloc(s.size() + 1));
    if (out) {
        std::memcpy(out, s.data(), s.size());
        out[s.size()] = '\0';
    }
    return out;
}

std::string procPathFor(const std::string& trace) {
    const auto slash = trace.rfind('/');
    const auto dot = trace.rfind('.');
    const std::string base = dot != std::string::npos && (slash == std::string::npos || dot > slash)
                                 ? trace.substr(0, dot)
                                 : trace;
    return base + ".proc";
}

// The generic interface's callbacks. KernelShark frees every string they
// return with free().
// libkshark's stream_get_int_func returns `const int`, a qualifier the
// compiler warns is meaningless but C++ keeps in the function's type.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-qualifiers"
const int getPid(kshark_data_stream*, const kshark_entry* e) {
    return e->pid;
}
const int getEventId(kshark_data_stream*, const kshark_entry* e) {
    return e->event_id;
}
#pragma GCC diagnostic pop

char* getEventName(kshark_data_stream*, const kshark_entry* e) {
    return copyString(ltt::eventName(static_cast<unsigned>(e->event_id)));
}

char* getTask(kshark_data_stream* stream, const kshark_entry* e) {
    LttStream* h = handleOf(stream);
    if (e->pid == 0)
        return copyString("<idle>");
    if (h) {
        auto it = h->names.find(e->pid);
        if (it != h->names.end())
            return copyString(ltt::escaped(it->second));
    }
    return copyString("<...>");
}

char* getInfo(kshark_data_stream* stream, const kshark_entry* e) {
    LttStream* h = handleOf(stream);
    if (!h)
        return nullptr;
    std::lock_guard lock(h->lookupLock);
    const ltt::Event* ev = h->at(e->offset);
    return ev ? copyString(ltt::describeEvent(*ev)) : nullptr;
}

char* dumpEntry(kshark_data_stream* stream, const kshark_entry* e) {
    char* task = getTask(stream, e);
    char* info = getInfo(stream, e);
    char* out = nullptr;
    if (asprintf(&out, "%lld CPU %d %s-%d %s %s", static_cast<long long>(e->ts), e->cpu,
                 task ? task : "", e->pid,
                 std::string(ltt::eventName(static_cast<unsigned>(e->event_id))).c_str(),
                 info ? info : "") < 0)
        out = nullptr;
    std::free(task);
    std::free(info);
    return out;
}

int findEventId(kshark_data_stream*, const char* name) {
    for (unsigned id = 0; id < LTT_EV_MAX; ++id)
        if (ltt::eventName(id) == name || ltt::eventKey(id) == name)
            return static_cast<int>(id);
    return -1;
}

int* getAllEventIds(kshark_data_stream*) {
    int* ids = static_cast<int*>(std::calloc(LTT_EV_MAX, sizeof(int)));
    if (ids)
        for (int id = 0; id < LTT_EV_MAX; ++id)
            ids[id] = id;
    return ids;
}

// Task names as the trace goes: the snapshot's, then each FORK's child
// named as its parent, each EXEC's base name of the file. A created task
// joins the stream's task list even before it runs.
void followNames(kshark_data_stream* stream, LttStream& h, const ltt::Event& e) {
    if (e.id == LTT_EV_PROCESS &&
        (e.subtype == LTT_PROCESS_FORK || e.subtype == LTT_PROCESS_KTHREAD)) {
        ltt_ev_process d;
        if (e.detailsAs(d)) {
            kshark_hash_id_add(stream->tasks, d.pid);
            auto parent = h.names.find(e.pid);
            if (parent != h.names.end() && !h.names.count(d.pid))
                h.names[d.pid] = parent->second;
        }
    } else if (e.id == LTT_EV_FILE_SYSTEM && e.subtype == LTT_FS_EXEC) {
        ltt_ev_file_system x;
        const std::size_t n = e.copyDetails(x);
        if (n > LTT_EV_FS_FIXED) {
            std::string_view file(x.name, strnlen(x.name, n - LTT_EV_FS_FIXED));
            if (auto slash = file.rfind('/'); slash != std::string_view::npos)
                file.remove_prefix(slash + 1);
            if (!file.empty())
                h.names[e.pid] = std::string(file);
        }
    }
}

ssize_t loadEntries(kshark_data_stream* stream, kshark_context*, kshark_entry*** rows) {
    LttStream* h = handleOf(stream);
    if (!h)
        return -EFAULT;
    const std::uint64_t total = h->reader->claimedEvents();
    std::size_t cap = total ? total : 1024, n = 0;
    // An array of pointers to entries, as KernelShark's loader takes it.
    // NOLINTNEXTLINE(bugprone-sizeof-expression)
    auto* out = static_cast<kshark_entry**>(std::malloc(cap * sizeof(kshark_entry*)));
    if (!out)
        return -ENOMEM;
    std::vector<kshark_entry*> lastOnCpu(h->reader->ncpus(), nullptr);
    bool failed = false;
    // Every task the snapshot lists is one KernelShark can show, whether
    // it ran during the trace or not.
    for (const auto& [pid, name] : h->names)
        kshark_hash_id_add(stream->tasks, pid);
    ltt::TraceCursor c = h->reader->begin();
    for (; c.valid() && !failed; c.next()) {
        const ltt::Event& e = c.event();
        if (e.isUser())
            continue; // application events have no CPU: not loaded into KernelShark
        if (n == cap) {
            cap *= 2;
            // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers
            auto* grown = static_cast<kshark_entry**>(std::realloc(out, cap * sizeof *out));
            if (!grown) {
                failed = true;
                break;
            }
            out = grown;
        }
        auto* k = static_cast<kshark_entry*>(std::calloc(1, sizeof(kshark_entry)));
        if (!k) {
            failed = true;
            break;
        }
        k->visible = 0xff;
        k->stream_id = stream->stream_id;
        k->event_id = e.id;
        k->cpu = static_cast<std::int16_t>(e.cpu);
        k->pid = e.pid;
        k->offset = static_cast<std::int64_t>(c.index());
        k->ts = static_cast<std::int64_t>(h->monotonicAnchor + h->reader->nsFromAnchor(e.tsc));
        if (e.cpu < lastOnCpu.size()) {
            if (lastOnCpu[e.cpu])
                lastOnCpu[e.cpu]->next = k;
            lastOnCpu[e.cpu] = k;
        }
        out[n++] = k;
        kshark_hash_id_add(stream->tasks, e.pid);
        followNames(stream, *h, e);
    }
    if (failed) {
        for (std::size_t i = 0; i < n; ++i)
            std::free(out[i]);
        std::free(out);
        return -ENOMEM;
    }
    if (c.error())
        std::fprintf(stderr, "ltt input: %s (events before it are shown)\n",
                     c.error()->str().c_str());
    *rows = out;
    return static_cast<ssize_t>(n);
}

} // namespace

// The plugin's entry points, the only symbols it exports.
#define LTT_EXPORT __attribute__((visibility("default")))

extern "C" {

LTT_EXPORT const char* KSHARK_INPUT_FORMAT() {
    return kFormat;
}

LTT_EXPORT bool KSHARK_INPUT_CHECK(const char* file) {
    const int fd = ::open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char magic[8];
    const bool ours = ::read(fd, magic, sizeof magic) == static_cast<ssize_t>(sizeof magic) &&
                      std::memcmp(magic, LTT_FILE_MAGIC, sizeof magic) == 0;
    ::close(fd);
    return ours;
}

LTT_EXPORT int KSHARK_INPUT_INITIALIZER(kshark_data_stream* stream) {
    ltt::TraceError err;
    auto reader = ltt::TraceReader::open(stream->file, &err);
    if (!reader) {
        std::fprintf(stderr, "ltt input: %s\n", err.str().c_str());
        return -ENODATA;
    }
    if (reader->truncation())
        std::fprintf(stderr, "ltt input: warning: %s\n", reader->truncation()->str().c_str());
    auto h = std::make_unique<LttStream>();
    h->monotonicAnchor = reader->header().anchor_monotonic_ns;
    const std::string proc = procPathFor(stream->file);
    if (::access(proc.c_str(), R_OK) == 0) {
        ltt::ProcParseError perr;
        if (auto snap = ltt::readProcFile(proc, &perr))
            for (const ltt::ProcTask& t : snap->tasks)
                h->names[t.pid] = t.name;
        else
            std::fprintf(stderr, "ltt input: %s (tasks are shown by pid)\n", perr.str().c_str());
    }
    h->reader = std::move(reader);

    auto* in = static_cast<kshark_generic_stream_interface*>(
        std::calloc(1, sizeof(kshark_generic_stream_interface)));
    if (!in)
        return -ENOMEM;
    in->type = KS_GENERIC_DATA_INTERFACE;
    in->get_pid = getPid;
    in->get_event_id = getEventId;
    in->get_event_name = getEventName;
    in->get_task = getTask;
    in->get_info = getInfo;
    in->find_event_id = findEventId;
    in->get_all_event_ids = getAllEventIds;
    in->dump_entry = dumpEntry;
    in->load_entries = loadEntries;
    stream->n_cpus = static_cast<int>(h->reader->ncpus());
    stream->n_events = LTT_EV_MAX;
    stream->idle_pid = 0;
    in->handle = h.release();
    stream->interface = in;
    return 0;
}

LTT_EXPORT int KSHARK_INPUT_DEINITIALIZER(kshark_data_stream* stream) {
    delete handleOf(stream);
    if (auto* in = static_cast<kshark_generic_stream_interface*>(stream->interface))
        in->handle = nullptr;
    return 0;
}

} // extern "C"
