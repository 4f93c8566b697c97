// Call sites of the selected process: see callsite_view.hpp.
#include "callsite_view.hpp"

#include <libltt/event_format.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/trace_analysis.hpp>
#include <libltt/trace_reader.hpp>
#include <unistd.h>

namespace traceview {

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
}

void CallSiteView::showProcess(const TraceDocument* doc, std::int32_t pid) {
    if (doc != doc_m) {
        doc_m = doc;
        report_m.reset();
        error_m.clear();
    }
    pid_m = pid;
    if (get_expanded())
        fill();
    else
        store_m->clear();
}

void CallSiteView::compute() {
    ltt::TraceError err;
    auto reader = ltt::TraceReader::open(doc_m->tracePath(), &err);
    if (!reader) {
        error_m = err.str();
        return;
    }
    std::optional<ltt::ProcSnapshot> snap;
    if (!doc_m->procPath().empty()) {
        ltt::ProcParseError perr;
        snap = ltt::readProcFile(doc_m->procPath(), &perr);
    }
    ltt::Symbolizer sym;
    const std::string ks = ltt::kallsymsPathFor(doc_m->tracePath());
    std::string why;
    if (access(ks.c_str(), F_OK) == 0)
        sym.loadKallsyms(ks, &why);
    report_m = ltt::analyzeCallSites(*reader, snap ? &*snap : nullptr, sym);
}

void CallSiteView::fill() {
    store_m->clear();
    if (!doc_m || !doc_m->ready()) {
        note_m.set_text("");
        return;
    }
    if (!report_m && error_m.empty())
        compute();
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
