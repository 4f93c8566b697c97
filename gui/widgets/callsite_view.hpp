// The call sites of the selected process, in the Process analysis tab: each
// system call's call sites (binary!function+offset), with counts and time,
// sorted by time, as traceanalyze --callsites prints them (libltt's
// analyzeCallSites, symbolize.hpp). The table is computed for the whole
// trace the first time the expander is opened, on a worker thread (a walk
// of the whole trace and the binaries read), then kept for the document.
// A selection of several processes shows no table: call sites are per
// process.
#pragma once

#include "trace_document.hpp"

#include <gtkmm.h>
#include <libltt/callsites.hpp>
#include <optional>
#include <thread>

namespace traceview {

class CallSiteView : public Gtk::Expander {
public:
    CallSiteView();
    // Waits for a computation under way (it cannot be interrupted).
    ~CallSiteView() override;
    // Shows process `pid`'s call sites (its thread group's) of `doc`.
    void showProcess(const TraceDocument* doc, std::int32_t pid);
    // Binaries are looked up under `dir` (perf's --symfs: a copy of the
    // traced machine's root); "" or "/": by their own paths. Applies to
    // tables computed from now on.
    void setSymfs(std::string dir) { symfs_m = std::move(dir); }
    const std::string& symfs() const { return symfs_m; }
    // Several processes are selected: no table, a note asking for one.
    void showSelection(const TraceDocument* doc);
    // For tests: rows shown, the note above them, whether the worker is
    // still computing, and the whole report once computed.
    struct Row {
        std::string syscall, site;
        std::uint64_t count = 0;
    };
    std::vector<Row> shownRows() const;
    std::size_t rows() const { return store_m->children().size(); }
    std::string note() const { return note_m.get_text(); }
    bool computing() const { return worker_m.joinable(); }
    const std::optional<ltt::CallSiteReport>& report() const { return report_m; }

private:
    struct Columns : Gtk::TreeModel::ColumnRecord {
        Columns() {
            add(syscall);
            add(site);
            add(count);
            add(total);
            add(totalText);
        }
        Gtk::TreeModelColumn<Glib::ustring> syscall;
        Gtk::TreeModelColumn<Glib::ustring> site;
        Gtk::TreeModelColumn<guint64> count;
        Gtk::TreeModelColumn<guint64> total;
        Gtk::TreeModelColumn<Glib::ustring> totalText;
    };
    void start();
    void finished();
    void fill();

    const TraceDocument* doc_m = nullptr;
    std::string symfs_m;
    std::int32_t pid_m = 0;
    bool several_m = false; // several processes selected
    // The worker computes for a document's paths; a result for a document
    // no longer shown (generation changed) is dropped.
    std::thread worker_m;
    Glib::Dispatcher done_m;
    unsigned generation_m = 0, workerGeneration_m = 0;
    std::optional<ltt::CallSiteReport> result_m; // the worker's, until finished()
    std::string resultError_m;
    std::optional<ltt::CallSiteReport> report_m;
    std::string error_m;
    Columns cols_m;
    Glib::RefPtr<Gtk::ListStore> store_m;
    Gtk::Box box_m{Gtk::Orientation::VERTICAL, 4};
    Gtk::Label note_m;
    Gtk::ScrolledWindow scroll_m;
    Gtk::TreeView view_m;
};

} // namespace traceview
