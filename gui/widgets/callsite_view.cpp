// Call sites of the selected process: see callsite_view.hpp.
#include "callsite_view.hpp"

#include <libltt/event_format.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/trace_analysis.hpp>
#include <libltt/trace_reader.hpp>
#include <unistd.h>

namespace traceview {

namespace {
constexpr const char* kSeveral =
    "Several processes are selected: select one process to see its call sites.";
} // namespace

CallSiteView::CallSiteView() {
    set_label("Call sites (binary!function+offset of each system call)");
    store_m = Gtk::ListStore::create(cols_m);
    view_m.set_model(store_m);
    auto add = [this](const char* title, auto& column, auto& sortBy) {
        int n = view_m.append_column(title, column);
        if (auto* c = view_m.get_column(n - 1)) {
            c->set_sort_column(sortBy);
            c->set_resizable(true);
        }
    };
    add("System call", cols_m.syscall, cols_m.syscall);
    add("Call site", cols_m.site, cols_m.site);
    add("Count", cols_m.count, cols_m.count);
    add("Total time", cols_m.totalText, cols_m.total);
    note_m.set_xalign(0);
    note_m.set_wrap(true);
    scroll_m.set_child(view_m);
    scroll_m.set_min_content_height(160);
    scroll_m.set_vexpand(true);
    box_m.append(note_m);
    box_m.append(scroll_m);
    set_child(box_m);
    // Computed on first use: a walk of the whole trace and the binaries read.
    property_expanded().signal_changed().connect([this] {
        if (get_expanded())
            fill();
    });
    done_m.connect([this] { finished(); });
}

CallSiteView::~CallSiteView() {
    if (worker_m.joinable())
        worker_m.join();
}

void CallSiteView::showProcess(const TraceDocument* doc, std::int32_t pid) {
    if (doc != doc_m) {
        doc_m = doc;
        ++generation_m;
        report_m.reset();
        error_m.clear();
    }
    pid_m = pid;
    several_m = false;
    if (get_expanded())
        fill();
    else
        store_m->clear();
}

void CallSiteView::showSelection(const TraceDocument* doc) {
    showProcess(doc, 0);
    several_m = true;
    store_m->clear();
    note_m.set_text(kSeveral);
}

// Runs analyzeCallSites for the document's trace on a worker thread; the
// worker only reads the files by path (copied here), never the document.
void CallSiteView::start() {
    if (worker_m.joinable())
        return; // finished() starts again if the document changed meanwhile
    workerGeneration_m = generation_m;
    worker_m =
        std::thread([this, trace = doc_m->tracePath(), proc = doc_m->procPath(), symfs = symfs_m] {
            ltt::TraceError err;
            auto reader = ltt::TraceReader::open(trace, &err);
            if (!reader) {
                resultError_m = err.str();
            } else {
                std::optional<ltt::ProcSnapshot> snap;
                if (!proc.empty()) {
                    ltt::ProcParseError perr;
                    snap = ltt::readProcFile(proc, &perr);
                }
                ltt::Symbolizer sym;
                sym.setSymfs(symfs);
                std::string why;
                sym.loadTraceKallsyms(trace, &why);
                result_m = ltt::analyzeCallSites(*reader, snap ? &*snap : nullptr, sym);
            }
            done_m.emit();
        });
}

void CallSiteView::finished() {
    if (worker_m.joinable())
        worker_m.join();
    if (workerGeneration_m == generation_m) {
        report_m = std::move(result_m);
        error_m = std::move(resultError_m);
    }
    result_m.reset();
    resultError_m.clear();
    if (get_expanded())
        fill();
}

std::vector<CallSiteView::Row> CallSiteView::shownRows() const {
    std::vector<Row> out;
    for (const auto& row : store_m->children())
        out.push_back({Glib::ustring(row[cols_m.syscall]).raw(),
                       Glib::ustring(row[cols_m.site]).raw(), guint64(row[cols_m.count])});
    return out;
}

void CallSiteView::fill() {
    store_m->clear();
    if (!doc_m || !doc_m->ready()) {
        note_m.set_text("");
        return;
    }
    if (several_m) {
        note_m.set_text(kSeveral);
        return;
    }
    if (!report_m && error_m.empty()) {
        start();
        note_m.set_text("Computing the call sites…");
        return;
    }
    if (!report_m) {
        note_m.set_text(error_m);
        return;
    }
    std::string note;
    if (report_m->error)
        note = "Call sites up to the corruption: " + report_m->error->str() + "\n";
    if (!report_m->ipsRecorded)
        note += "System call entries were masked out at trace time: no call site is known.\n";
    else if (!report_m->mapsRecorded)
        note += "MAP records were masked out at trace time: programs started during the trace "
                "show addresses.\n";
    const ltt::ProcessCallSites* proc = nullptr;
    for (const auto& p : report_m->processes)
        if (p.pid == pid_m)
            proc = &p;
    if (!proc)
        note += pid_m == 0 ? "Select a process." : "No system call of this process was traced.";
    if (!note.empty() && note.back() == '\n')
        note.pop_back();
    note_m.set_text(note);
    if (!proc)
        return;
    for (const auto& s : proc->sites) {
        auto row = *store_m->append();
        row[cols_m.syscall] = ltt::TraceAnalysis::syscallSlotName(s.nr);
        row[cols_m.site] = ltt::escaped(s.site);
        row[cols_m.count] = s.count;
        row[cols_m.total] = s.totalNs;
        row[cols_m.totalText] = ltt::formatSeconds(s.totalNs) + " s";
    }
}

} // namespace traceview
