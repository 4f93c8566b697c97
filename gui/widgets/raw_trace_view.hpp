// The Raw Trace tab: every event in a virtualized Gtk::ColumnView over a
// custom Gio::ListModel. The model holds no rows: it maps a position to an
// event index (through the filter's index list when a filter is active) and
// creates an item only when the view asks for a visible row.
#pragma once

#include "trace_document.hpp"

#include <gtkmm.h>
#include <memory>
#include <optional>

namespace traceview {

// One visible row; decodes its event on first use.
class EventItem : public Glib::Object {
public:
    static Glib::RefPtr<EventItem> create(std::shared_ptr<const TraceDocument> doc,
                                          std::uint64_t index);
    const EventLine& line();
    std::uint64_t index() const { return index_m; }

protected:
    EventItem(std::shared_ptr<const TraceDocument> doc, std::uint64_t index);

private:
    std::shared_ptr<const TraceDocument> doc_m; // rows may outlive a closed trace
    std::uint64_t index_m;
    std::optional<EventLine> line_m;
};

// The interface base comes first so that glibmm adds it to the custom GType
// before the first instance is created.
class EventListModel : public Gio::ListModel, public Glib::Object {
public:
    static Glib::RefPtr<EventListModel> create();
    void reset(std::shared_ptr<const TraceDocument> doc,
               std::optional<std::vector<std::uint64_t>> filtered);
    std::uint64_t indexAt(guint position) const;
    std::optional<guint> positionOf(std::uint64_t index) const; // nearest at or after
    guint size() const;

protected:
    EventListModel();
    GType get_item_type_vfunc() override;
    guint get_n_items_vfunc() override;
    gpointer get_item_vfunc(guint position) override;

private:
    std::shared_ptr<const TraceDocument> doc_m;
    std::optional<std::vector<std::uint64_t>> filtered_m;
};

// An event-type menu (the filter's, the search's): `anyLabel` for every
// event, then TraceDocument::eventTypes(); `masks` receives each entry's
// mask by position (0 for `anyLabel`).
Glib::RefPtr<Gtk::StringList> eventTypeMenu(const char* anyLabel,
                                            std::vector<std::uint64_t>& masks);

class RawTraceView : public Gtk::Box {
public:
    RawTraceView();
    void setDocument(std::shared_ptr<const TraceDocument> doc);
    void setFiltered(std::optional<std::vector<std::uint64_t>> indices, const std::string& what);
    void selectEvent(std::optional<std::uint64_t> index);
    EventFilter currentFilter() const;

    sigc::signal<void(std::uint64_t)>& signalEventSelected() { return selectedSignal_m; }
    // Asks the window to run the filter in the background.
    sigc::signal<void(EventFilter)>& signalFilterRequested() { return filterSignal_m; }

    guint rowCount() const { return model_m->size(); }
    std::vector<std::string> columnTitles() const;
    // The text of one cell as displayed (for tests).
    std::string cellText(guint position, int column) const;
    Gtk::DropDown& typeChooser() { return type_m; }
    Gtk::Entry& pidEntry() { return pid_m; }
    Gtk::Entry& cpuEntry() { return cpu_m; }
    void applyFilter();

private:
    void addColumn(const char* title, int column, bool expand);
    void scrollTo(guint position);

    std::shared_ptr<const TraceDocument> doc_m;
    Glib::RefPtr<EventListModel> model_m;
    Glib::RefPtr<Gtk::SingleSelection> selection_m;
    Gtk::Box bar_m{Gtk::Orientation::HORIZONTAL, 6};
    Gtk::DropDown type_m;
    Gtk::Entry pid_m, cpu_m;
    Gtk::Button apply_m{"Apply filter"}, clear_m{"Clear"};
    Gtk::Label count_m;
    Gtk::ScrolledWindow scroller_m;
    Gtk::ColumnView view_m;
    std::vector<std::uint64_t> typeMasks_m; // by menu position; 0: all events
    bool syncing_m = false;
    std::optional<guint> pendingScroll_m; // scroll once the list is on screen
    sigc::signal<void(std::uint64_t)> selectedSignal_m;
    sigc::signal<void(EventFilter)> filterSignal_m;
};

std::string cellOf(const EventLine& line, int column);

} // namespace traceview
