// ltt._ltt: the Python bindings over libltt (docs/python.md). pybind11
// wraps an opened trace (its header, .proc snapshot, analysis report and
// events) and hands its tables out as Arrow C streams in PyCapsules
// (__arrow_c_stream__), which pyarrow, DuckDB and Polars import without a
// copy.
#include "arrow_c.hpp"
#include "tables.hpp"

#include <algorithm>
#include <filesystem>
#include <libltt/event_format.hpp>
#include <libltt/offcpu.hpp>
#include <libltt/process_report.hpp>
#include <libltt/syscall_args.hpp>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <string_view>

namespace py = pybind11;
using namespace ltt;
using ltt::pyext::TraceHandle;

namespace {

// A trace that cannot be read: raised as ltt.TraceError(message, file,
// offset) (offset None for a .proc file's errors, which have a line).
struct TraceFailure {
    std::string message, file;
    std::optional<std::uint64_t> offset;
    std::optional<std::uint64_t> line;
};

TraceFailure failure(const TraceError& e) {
    return {e.str(), e.file, e.offset, std::nullopt};
}

py::object errorsModule() {
    return py::module_::import("ltt.errors");
}

void warn(const char* category, const std::string& message) {
    py::object cls = errorsModule().attr(category);
    if (PyErr_WarnEx(cls.ptr(), message.c_str(), 2) < 0)
        throw py::error_already_set();
}

std::string fixed(const char* s, std::size_t n) {
    return std::string(s, strnlen(s, n));
}

// Names from the trace: bytes, not always UTF-8 (the report's JSON escapes
// them; Python gets them decoded with replacement characters).
py::str text(std::string_view s) {
    PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
    if (!o)
        throw py::error_already_set();
    return py::reinterpret_steal<py::str>(o);
}

class Trace {
public:
    Trace(const std::string& path, std::optional<std::string> proc) {
        auto h = std::make_shared<TraceHandle>();
        TraceError err;
        h->reader = TraceReader::open(path, &err);
        if (!h->reader)
            throw failure(err);
        if (!proc) {
            // NAME.proc beside NAME.trace, as the daemon writes them.
            std::filesystem::path p(path);
            if (p.extension() == ".trace") {
                p.replace_extension(".proc");
                if (std::filesystem::exists(p))
                    proc = p.string();
            }
        }
        if (proc) {
            ProcParseError perr;
            std::optional<ProcParseError> cut;
            h->snapshot = readProcFile(*proc, &perr, &cut);
            if (!h->snapshot)
                throw TraceFailure{perr.str(), perr.path, std::nullopt, perr.line};
            h->procPath = *proc;
            if (cut)
                warn("TruncatedTraceWarning", cut->str());
        }
        if (h->reader->truncation())
            warn("TruncatedTraceWarning",
                 h->reader->truncation()->str() + " (read up to the last whole block)");
        if (h->reader->unfinished())
            warn("UnfinishedTraceWarning", h->reader->unfinished()->str());
        handle_m = std::move(h);
    }

    const std::string& path() const { return handle_m->reader->path(); }
    std::optional<std::string> procPath() const {
        if (handle_m->procPath.empty())
            return std::nullopt;
        return handle_m->procPath;
    }

    py::dict header() const {
        const TraceReader& r = *handle_m->reader;
        const auto& h = r.header();
        py::dict d;
        d["version"] = h.version;
        d["abi_version"] = h.abi_version;
        d["cpus"] = h.ncpus;
        d["tsc_khz"] = h.tsc_khz;
        d["anchor_tsc"] = h.anchor_tsc;
        d["anchor_realtime_ns"] = h.anchor_realtime_ns;
        d["anchor_monotonic_ns"] = h.anchor_monotonic_ns;
        d["flags"] = h.flags;
        d["max_block"] = h.max_block;
        d["event_mask"] = h.config.event_mask;
        d["details_mask"] = h.config.details_mask;
        d["buffer_size"] = h.config.buffer_size;
        d["sysname"] = text(fixed(h.sysname, sizeof h.sysname));
        d["kernel"] = text(fixed(h.release, sizeof h.release));
        d["hostname"] = text(fixed(h.hostname, sizeof h.hostname));
        d["producer"] = text(fixed(h.producer, sizeof h.producer));
        d["backend"] = ltt::pyext::backendOf(r);
        d["blocks"] = r.blocks().size();
        d["claimed_events"] = r.claimedEvents();
        d["lost_events"] = r.lostEvents();
        d["user_streams"] = r.userStreams().size();
        d["truncated_at"] =
            r.truncation() ? py::object(py::int_(r.truncation()->offset)) : py::object(py::none());
        d["ended_cleanly"] = !r.unfinished();
        return d;
    }

    // The .proc snapshot's tasks (empty without one).
    py::list snapshot() const {
        py::list l;
        if (!handle_m->snapshot)
            return l;
        for (const ProcTask& t : handle_m->snapshot->tasks) {
            py::dict d;
            d["pid"] = t.pid;
            d["ppid"] = t.ppid;
            d["tgid"] = t.tgid ? t.tgid : t.pid;
            d["pgrp"] = t.pgrp;
            d["uid"] = t.uid;
            d["gid"] = t.gid;
            d["state"] = std::string(1, t.state);
            d["kthread"] = t.kthread;
            d["name"] = text(t.name);
            l.append(d);
        }
        return l;
    }

    // The report model as traceanalyze --json renders it (docs/json.md):
    // the same keys, masked-out figures None.
    py::dict report() const {
        const TraceAnalysis* analysis = nullptr;
        {
            // A whole pass over the trace: other Python threads may run.
            py::gil_scoped_release unlocked;
            analysis = &handle_m->analyzed();
        }
        const TraceAnalysis& a = *analysis;
        if (a.error())
            throw failure(*a.error());
        const TraceReader& r = a.reader();
        const auto& h = r.header();
        const auto& av = a.availability();
        py::dict doc;
        doc["schema"] = "ltt-analysis/1";
        py::dict t;
        t["file"] = r.path();
        t["producer"] = text(fixed(h.producer, sizeof h.producer));
        t["kernel"] = text(fixed(h.release, sizeof h.release));
        t["hostname"] = text(fixed(h.hostname, sizeof h.hostname));
        t["backend"] = TraceAnalysis::backendName(a.backend());
        t["start_ns"] = a.firstNs();
        t["end_ns"] = a.lastNs();
        t["duration_ns"] = traceDuration(a);
        t["start_realtime_ns"] = h.anchor_realtime_ns + a.firstNs();
        t["cpus"] = h.ncpus;
        t["tsc_khz"] = h.tsc_khz;
        t["events"] = a.events();
        t["lost_events"] = a.lostEvents();
        t["truncated_at"] =
            r.truncation() ? py::object(py::int_(r.truncation()->offset)) : py::object(py::none());
        t["ended_cleanly"] = !r.unfinished();
        if (a.hasUserStreams()) {
            t["user_streams"] = r.userStreams().size();
            t["user_monotonic_streams"] = r.monotonicUserStreams();
            t["user_events"] = a.userEvents();
            t["user_lost_events"] = a.userLostEvents();
            t["user_damaged"] = a.userProblemCount();
        }
        doc["trace"] = t;
        py::list masked;
        for (const auto& m : av.missing())
            masked.append(m);
        doc["masked_out"] = masked;
        py::dict counts;
        for (unsigned i = 0; i <= LTT_EV_COUNT; ++i)
            if (a.eventCounts()[i])
                counts[py::str(std::string(eventKey(i)))] = a.eventCounts()[i];
        doc["event_counts"] = counts;
        if (!a.configChanges().empty()) {
            static const char* const kWhat[] = {"events", "details", "pid", "pgrp",
                                                "uid",    "gid",     "vars"};
            py::list changes;
            for (const ConfigChange& c : a.configChanges()) {
                py::dict d;
                d["time_ns"] = c.ns;
                d["cpu"] = c.cpu;
                d["changed"] = c.what < std::size(kWhat) ? kWhat[c.what] : "unknown";
                d["event_mask"] = c.config.event_mask;
                d["details_mask"] = c.config.details_mask;
                d["filters"] = c.config.filters;
                d["pid"] = c.config.pid;
                d["pgrp"] = c.config.pgrp;
                d["uid"] = c.config.uid;
                d["gid"] = c.config.gid;
                d["vars_mask"] = c.config.vars_mask;
                changes.append(d);
            }
            doc["config_changes"] = changes;
        }
        py::list procs;
        for (const Process& p : a.processes()) {
            if (p.pid == 0)
                continue;
            py::dict d;
            d["pid"] = p.pid;
            d["ppid"] = p.ppid;
            d["tgid"] = p.tgid;
            d["name"] = text(p.name);
            d["kthread"] = p.kthread;
            d["exited"] = p.exited;
            for (const FigureValue& v : processFigures(av, p.stats))
                d[v.key] = v.available ? py::object(py::int_(v.value)) : py::object(py::none());
            if (!p.userEvents.empty()) {
                py::dict u;
                for (const auto& [name, n] : p.userEvents)
                    u[text(name)] = n;
                d["user_events"] = u;
            }
            if (!av.syscalls) {
                d["syscall_table"] = py::none();
            } else {
                py::list table;
                for (const auto& st : p.stats.syscallTable) {
                    py::dict s;
                    s["nr"] = st.slot < syscallTableSize() ? py::object(py::int_(st.slot))
                                                           : py::object(py::none());
                    s["name"] = TraceAnalysis::syscallSlotName(st.slot);
                    s["count"] = st.count;
                    s["timed"] = st.timed;
                    s["total_ns"] = st.totalNs;
                    s["min_ns"] = st.minNs;
                    s["max_ns"] = st.maxNs;
                    s["avg_ns"] = st.timed ? st.totalNs / st.timed : 0;
                    s["errors"] = st.errors;
                    table.append(s);
                }
                d["syscall_table"] = table;
            }
            procs.append(d);
        }
        doc["processes"] = procs;
        const CpuStats total = a.total();
        py::dict sys;
        sys["user_ns"] = total.userNs;
        sys["kernel_ns"] = total.kernelNs;
        sys["irq_ns"] = av.irqs ? py::object(py::int_(total.irqNs)) : py::object(py::none());
        sys["idle_ns"] = total.idleNs;
        py::list cpus;
        for (std::size_t i = 0; i < a.cpus().size(); ++i) {
            const CpuStats& c = a.cpus()[i];
            py::dict d;
            d["cpu"] = i;
            d["user_ns"] = c.userNs;
            d["kernel_ns"] = c.kernelNs;
            d["irq_ns"] = av.irqs ? py::object(py::int_(c.irqNs)) : py::object(py::none());
            d["idle_ns"] = c.idleNs;
            d["events"] = c.events;
            d["lost_events"] = c.lost;
            cpus.append(d);
        }
        sys["cpus"] = cpus;
        doc["system"] = sys;
        return doc;
    }

    // Blocked time by stack (traceanalyze --offcpu): the "offcpu" section
    // of traceanalyze --json --offcpu as Python objects. Kernel frames are
    // named with NAME.kallsyms beside the trace, user frames with the
    // binaries under `symfs` (the traced machine's root) or at their own
    // paths.
    py::dict offcpu(std::optional<std::int64_t> pid, std::int64_t fromNs,
                    std::optional<std::int64_t> toNs, std::optional<std::string> symfs) const {
        if (pid && (*pid < 0 || *pid > INT32_MAX))
            throw py::value_error("pid " + std::to_string(*pid) + ": not a pid (0 to " +
                                  std::to_string(INT32_MAX) + ")");
        if (fromNs < 0)
            throw py::value_error("from_ns " + std::to_string(fromNs) + ": must be 0 or more");
        if (toNs && *toNs <= fromNs)
            throw py::value_error("to_ns must be after from_ns");
        if (symfs) {
            std::error_code ec;
            if (symfs->empty() || !std::filesystem::is_directory(*symfs, ec)) {
                const std::string m = "symfs " + *symfs + ": not a directory";
                PyErr_SetString(PyExc_NotADirectoryError, m.c_str());
                throw py::error_already_set();
            }
        }
        OffCpuOptions o;
        o.pid = pid ? *pid : -1;
        o.fromNs = static_cast<std::uint64_t>(fromNs);
        if (toNs)
            o.toNs = static_cast<std::uint64_t>(*toNs);
        Symbolizer sym;
        if (symfs)
            sym.setSymfs(*symfs);
        std::string why;
        const bool kallsyms = sym.loadTraceKallsyms(handle_m->reader->path(), &why);
        OffCpuReport r;
        {
            // A whole pass over the trace: other Python threads may run.
            py::gil_scoped_release unlocked;
            r = analyzeOffCpu(*handle_m->reader, handle_m->proc(), sym, o);
        }
        if (!kallsyms)
            warn("SymbolsWarning", "kernel addresses stay raw: " + why);
        if (r.error)
            throw failure(*r.error);
        py::dict d;
        d["pid"] = r.pid >= 0 ? py::object(py::int_(r.pid)) : py::object(py::none());
        d["from_ns"] = r.fromNs;
        d["to_ns"] = r.toNs;
        d["stacks_recorded"] = r.stacksRecorded;
        d["kernel_stacks"] = r.kernelStacks;
        d["kallsyms"] = r.kallsyms;
        d["stack_records"] = r.stackRecords;
        d["truncated"] = r.truncated;
        d["depth_max"] = LTT_STACK_DEPTH_MAX;
        d["intervals"] = r.intervals;
        d["blocked_ns"] = r.blockedNs;
        d["without_stack"] = r.withoutStack;
        d["without_stack_ns"] = r.withoutStackNs;
        d["dropped"] = r.droppedLost;
        d["open_at_end"] = r.openAtEnd;
        py::list procs;
        for (const OffCpuProcess& p : r.processes) {
            py::dict e;
            e["pid"] = p.pid;
            e["name"] = text(p.name);
            e["intervals"] = p.intervals;
            e["blocked_ns"] = p.ns;
            e["without_stack"] = p.withoutStack;
            e["without_stack_ns"] = p.withoutStackNs;
            procs.append(e);
        }
        d["processes"] = procs;
        // Longest first, as the JSON section (equal times: by frames).
        std::vector<const OffCpuStack*> order;
        for (const OffCpuStack& st : r.stacks)
            order.push_back(&st);
        std::stable_sort(order.begin(), order.end(),
                         [](const OffCpuStack* a, const OffCpuStack* b) { return a->ns > b->ns; });
        auto frames = [](const OffCpuStack& st, std::size_t from, std::size_t n) {
            py::list l;
            for (std::size_t i = from; i < from + n && i < st.frames.size(); ++i)
                l.append(text(st.frames[i]));
            return l;
        };
        py::list stacks;
        for (const OffCpuStack* st : order) {
            py::dict e;
            e["task"] = st->frames.empty() ? py::str("") : text(st->frames.front());
            e["recorded"] = st->recorded;
            e["blocked_ns"] = st->ns;
            e["blocked_us"] = foldedMicros(st->ns);
            e["intervals"] = st->intervals;
            e["user"] = frames(*st, 1, st->userFrames);
            e["kernel"] = frames(*st, 1 + st->userFrames, st->kernelFrames);
            py::list shares;
            for (const OffCpuShare& sh : st->shares) {
                py::dict x;
                x["pid"] = sh.pid;
                x["blocked_ns"] = sh.ns;
                x["intervals"] = sh.intervals;
                shares.append(x);
            }
            e["processes"] = shares;
            stacks.append(e);
        }
        d["stacks"] = stacks;
        return d;
    }

    std::shared_ptr<TraceHandle> handle() const { return handle_m; }

private:
    std::shared_ptr<TraceHandle> handle_m;
};

// One event, copied out of the walk (it keeps the trace open).
struct PyEvent {
    std::shared_ptr<TraceHandle> trace;
    Event event;
    std::uint64_t ns = 0;
};

class EventIterator {
public:
    explicit EventIterator(std::shared_ptr<TraceHandle> t)
        : trace_m(std::move(t)), cursor_m(trace_m->reader->begin()) {}
    PyEvent next() {
        if (!first_m)
            cursor_m.next();
        first_m = false;
        if (!cursor_m.valid()) {
            if (cursor_m.error())
                throw failure(*cursor_m.error());
            throw py::stop_iteration();
        }
        const Event& e = cursor_m.event();
        return PyEvent{trace_m, e, trace_m->reader->nsFromAnchor(e.tsc)};
    }

private:
    std::shared_ptr<TraceHandle> trace_m;
    TraceCursor cursor_m;
    bool first_m = true;
};

// A table of a trace: each __arrow_c_stream__() call starts a new walk.
class Table {
public:
    using Maker = std::unique_ptr<arrow::BatchSource> (*)(std::shared_ptr<TraceHandle>);
    Table(std::shared_ptr<TraceHandle> t, std::string name, Maker make)
        : trace_m(std::move(t)), name_m(std::move(name)), make_m(make) {}
    const std::string& name() const { return name_m; }

    py::capsule stream(py::object requestedSchema, std::size_t batchRows) const {
        // A requested schema is only a wish (the PyCapsule protocol): the
        // consumer casts if it wants other types.
        (void)requestedSchema;
        if (batchRows == 0)
            throw py::value_error("batch_rows must be at least 1");
        auto source = make_m(trace_m);
        source->batchRows = batchRows;
        auto* s = new ArrowArrayStream;
        arrow::exportStream(std::move(source), s);
        return py::capsule(s, "arrow_array_stream", [](PyObject* cap) {
            auto* st =
                static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(cap, "arrow_array_stream"));
            if (!st) {
                PyErr_Clear();
                return;
            }
            if (st->release)
                st->release(st);
            delete st;
        });
    }

private:
    std::shared_ptr<TraceHandle> trace_m;
    std::string name_m;
    Maker make_m;
};

} // namespace

PYBIND11_MODULE(_ltt, m) {
    m.doc() = "libltt bindings: traces, their analysis report and Arrow tables";

    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p)
                std::rethrow_exception(p);
        } catch (const TraceFailure& f) {
            py::object cls = errorsModule().attr("TraceError");
            py::object off = f.offset ? py::object(py::int_(*f.offset)) : py::object(py::none());
            py::object line = f.line ? py::object(py::int_(*f.line)) : py::object(py::none());
            py::object exc = cls(f.message, f.file, off, line);
            PyErr_SetObject(cls.ptr(), exc.ptr());
        }
    });

    py::class_<Trace>(m, "Trace")
        .def(py::init<const std::string&, std::optional<std::string>>(), py::arg("path"),
             py::arg("proc") = py::none())
        .def_property_readonly("path", &Trace::path)
        .def_property_readonly("proc_path", &Trace::procPath)
        .def_property_readonly("header", &Trace::header)
        .def_property_readonly("snapshot", &Trace::snapshot)
        .def("report", &Trace::report)
        .def("offcpu", &Trace::offcpu, py::arg("pid") = py::none(), py::arg("from_ns") = 0,
             py::arg("to_ns") = py::none(), py::arg("symfs") = py::none())
        .def("events", [](const Trace& t) { return EventIterator(t.handle()); })
        .def("table", [](const Trace& t, const std::string& name) {
            static const std::pair<const char*, Table::Maker> kTables[] = {
                {"events", ltt::pyext::eventsTable},       {"syscalls", ltt::pyext::syscallsTable},
                {"sched", ltt::pyext::schedTable},         {"irqs", ltt::pyext::irqsTable},
                {"processes", ltt::pyext::processesTable},
            };
            for (const auto& [n, make] : kTables)
                if (name == n)
                    return Table(t.handle(), name, make);
            throw py::value_error("unknown table '" + name +
                                  "': events, syscalls, sched, irqs or processes");
        });

    py::class_<EventIterator>(m, "EventIterator")
        .def("__iter__", [](EventIterator& it) -> EventIterator& { return it; })
        .def("__next__", &EventIterator::next);

    py::class_<PyEvent>(m, "Event")
        .def_property_readonly("time_ns", [](const PyEvent& e) { return e.ns; })
        .def_property_readonly("cpu",
                               [](const PyEvent& e) -> py::object {
                                   if (e.event.isUser())
                                       return py::none();
                                   return py::int_(e.event.cpu);
                               })
        .def_property_readonly("stream",
                               [](const PyEvent& e) -> py::object {
                                   if (!e.event.isUser())
                                       return py::none();
                                   return py::int_(e.event.stream);
                               })
        .def_property_readonly("pid", [](const PyEvent& e) { return e.event.pid; })
        .def_property_readonly("id", [](const PyEvent& e) { return e.event.id; })
        .def_property_readonly("event",
                               [](const PyEvent& e) { return std::string(eventKey(e.event.id)); })
        .def_property_readonly("subtype",
                               [](const PyEvent& e) -> py::object {
                                   auto s = subtypeName(e.event.id, e.event.subtype);
                                   if (s.empty())
                                       return py::none();
                                   return py::str(std::string(s));
                               })
        .def_property_readonly("offset", [](const PyEvent& e) { return e.event.offset; })
        .def_property_readonly("details",
                               [](const PyEvent& e) {
                                   auto d = e.event.details();
                                   return py::bytes(reinterpret_cast<const char*>(d.data()),
                                                    d.size());
                               })
        .def_property_readonly("description",
                               [](const PyEvent& e) { return text(describeEvent(e.event)); })
        .def("__repr__", [](const PyEvent& e) {
            return "<ltt.Event " + std::to_string(e.ns) + " ns cpu " +
                   (e.event.isUser() ? std::string("user") : std::to_string(e.event.cpu)) +
                   " pid " + std::to_string(e.event.pid) + " " + std::string(eventKey(e.event.id)) +
                   ">";
        });

    py::class_<Table>(m, "Table")
        .def_property_readonly("name", &Table::name)
        .def("__arrow_c_stream__", &Table::stream, py::arg("requested_schema") = py::none(),
             py::arg("batch_rows") = 65536);
}
