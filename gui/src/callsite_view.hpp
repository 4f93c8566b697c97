// The call sites of the selected process, in the Process analysis tab: each
// system call's call sites (binary!function+offset), with counts and time,
// sorted by time, as traceanalyze --callsites prints them (libltt's
// analyzeCallSites, symbolize.hpp). The table is computed for the whole
// trace the first time the expander is opened, then kept for the
// document.
#pragma once

#include "trace_document.hpp"

#include <gtkmm.h>
#include <libltt/callsites.hpp>
#include <optional>

namespace traceview {

class CallSiteView : public Gtk::Expander {
public:
    CallSiteView();
    // Shows process `pid`'s call sites (its thread group's) of `doc`.
    void showProcess(const TraceDocument* doc, std::int32_t pid);
    // For tests: rows shown, and the whole report once computed.
    std::size_t rows() const { return store_m->children().size(); }
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
    void compute();
    void fill();

    const TraceDocument* doc_m = nullptr;
    std::int32_t pid_m = 0;
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
