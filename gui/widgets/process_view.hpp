// The Process analysis tab (LTT's second tab): the process tree rooted at
// "The All Mighty (0)" on the left; on the right the selected process's
// characteristics and system call accounting, or system-wide figures for the
// root. Columns sort by clicking their headers. Events the trace does not
// attribute to any task have a row of their own after the tree
// ("unattributed: N events (reasons)"), with the same figures.
//
// Several processes can be selected (Ctrl/Shift+click), and "Include
// descendants" adds every process below the selected ones: the panel then
// shows the selection's figures summed (TraceDocument::selectionReport).
// Under the figures, a stacked bar splits the selection's time into user,
// system, interrupts, I/O wait, preempted, sleeping and waiting to run.
#pragma once

#include "callsite_view.hpp"
#include "trace_document.hpp"

#include <gtkmm.h>

namespace traceview {

class ProcessView : public Gtk::Paned {
public:
    ProcessView();
    void setDocument(const TraceDocument* doc);
    void selectPid(std::int32_t pid);
    std::int32_t selectedPid() const { return selectedPid_m; }
    sigc::signal<void(std::int32_t)>& signalPidSelected() { return pidSignal_m; }

    // Selects these processes (ProcessInfo ids), as Ctrl+clicks would.
    void selectIds(const std::vector<std::int64_t>& ids);
    // The processes selected in the tree (ProcessInfo ids, descendants not
    // added).
    std::vector<std::int64_t> selectedIds() const;
    void setIncludeDescendants(bool on) { descendants_m.set_active(on); }
    // The processes the panel shows (with descendants when asked).
    const std::vector<std::int64_t>& shownIds() const { return shownIds_m; }
    const TraceDocument::TimeBreakdown& breakdown() const { return breakdown_m; }
    Gtk::DrawingArea& breakdownArea() { return chart_m; }
    CallSiteView& callSites() { return callsites_m; }
    // The system call accounting as shown: name, count, total ns.
    std::vector<SyscallLine> syscallLines() const { return syscallLines_m; }

    // For tests.
    std::string rootLabel() const;
    // The unattributed entry's row (its events and reasons), after the
    // tree; empty when the trace attributes every event.
    const std::string& unattributedLabel() const { return unattributedLabel_m; }
    std::size_t processCount() const { return processCount_m; }
    std::vector<std::pair<std::string, std::string>> reportLines() const { return report_m; }
    std::size_t syscallRows() const;
    // The system call accounting's note ("masked out at trace time"), as
    // shown; empty when the accounting is complete.
    const std::string& syscallNote() const { return syscallNote_m; }

private:
    struct TreeColumns : Gtk::TreeModel::ColumnRecord {
        TreeColumns() {
            add(label);
            add(pid);
            add(syscalls);
            add(running);
            add(runningText);
            add(id);
        }
        Gtk::TreeModelColumn<Glib::ustring> label;
        Gtk::TreeModelColumn<int> pid;
        Gtk::TreeModelColumn<guint64> syscalls;
        Gtk::TreeModelColumn<guint64> running;
        Gtk::TreeModelColumn<Glib::ustring> runningText;
        Gtk::TreeModelColumn<gint64> id;
    };
    struct SyscallColumns : Gtk::TreeModel::ColumnRecord {
        SyscallColumns() {
            add(name);
            add(count);
            add(total);
            add(totalText);
        }
        Gtk::TreeModelColumn<Glib::ustring> name;
        Gtk::TreeModelColumn<guint64> count;
        Gtk::TreeModelColumn<guint64> total;
        Gtk::TreeModelColumn<Glib::ustring> totalText;
    };
    void showDetails(std::int64_t id, std::int32_t pid);
    void selectionChanged();
    void showReport(const std::vector<ReportLine>& lines, const std::vector<SyscallLine>& calls);
    void drawBreakdown(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height);

    const TraceDocument* doc_m = nullptr;
    TreeColumns cols_m;
    SyscallColumns scols_m;
    Glib::RefPtr<Gtk::TreeStore> store_m;
    Glib::RefPtr<Gtk::ListStore> sstore_m;
    Gtk::ScrolledWindow treeScroll_m, detailScroll_m, sysScroll_m;
    Gtk::Box treeBox_m{Gtk::Orientation::VERTICAL, 4};
    Gtk::CheckButton descendants_m{"Include descendants"};
    Gtk::DrawingArea chart_m;
    TraceDocument::TimeBreakdown breakdown_m;
    std::vector<std::int64_t> shownIds_m;
    std::vector<SyscallLine> syscallLines_m;
    Gtk::TreeView tree_m, sys_m;
    Gtk::Box details_m{Gtk::Orientation::VERTICAL, 6};
    Gtk::Label title_m;
    Gtk::Grid grid_m;
    Gtk::Label sysTitle_m;
    CallSiteView callsites_m;
    std::int32_t selectedPid_m = 0;
    std::size_t processCount_m = 0;
    std::vector<std::pair<std::string, std::string>> report_m;
    std::string syscallNote_m;
    std::string unattributedLabel_m;
    bool syncing_m = false;
    sigc::signal<void(std::int32_t)> pidSignal_m;
};

} // namespace traceview
