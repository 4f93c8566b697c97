// Raw Trace tab: see raw_trace_view.hpp.
#include "raw_trace_view.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace traceview {

// ---------------------------------------------------------------------------
// EventItem

EventItem::EventItem(std::shared_ptr<const TraceDocument> doc, std::uint64_t index)
    : Glib::ObjectBase(typeid(EventItem)), doc_m(std::move(doc)), index_m(index) {}

Glib::RefPtr<EventItem> EventItem::create(std::shared_ptr<const TraceDocument> doc,
                                          std::uint64_t index) {
    return Glib::make_refptr_for_instance<EventItem>(new EventItem(std::move(doc), index));
}

const EventLine& EventItem::line() {
    if (!line_m)
        line_m = doc_m ? doc_m->event(index_m) : EventLine{};
    return *line_m;
}

// ---------------------------------------------------------------------------
// EventListModel

EventListModel::EventListModel()
    : Glib::ObjectBase(typeid(EventListModel)), Gio::ListModel(), Glib::Object() {}

Glib::RefPtr<EventListModel> EventListModel::create() {
    return Glib::make_refptr_for_instance<EventListModel>(new EventListModel());
}

GType EventListModel::get_item_type_vfunc() {
    return Glib::Object::get_base_type();
}

guint EventListModel::size() const {
    if (!doc_m)
        return 0;
    std::uint64_t n = filtered_m ? filtered_m->size() : doc_m->eventCount();
    return static_cast<guint>(std::min<std::uint64_t>(n, G_MAXUINT));
}

guint EventListModel::get_n_items_vfunc() {
    return size();
}

std::uint64_t EventListModel::indexAt(guint position) const {
    return filtered_m ? (*filtered_m)[position] : position;
}

std::optional<guint> EventListModel::positionOf(std::uint64_t index) const {
    if (!doc_m)
        return std::nullopt;
    if (!filtered_m)
        return index < size() ? std::optional<guint>(static_cast<guint>(index)) : std::nullopt;
    auto it = std::lower_bound(filtered_m->begin(), filtered_m->end(), index);
    if (it == filtered_m->end())
        return std::nullopt;
    return static_cast<guint>(it - filtered_m->begin());
}

gpointer EventListModel::get_item_vfunc(guint position) {
    if (position >= size())
        return nullptr;
    auto item = EventItem::create(doc_m, indexAt(position));
    // The caller owns the returned reference.
    return g_object_ref(item->gobj());
}

void EventListModel::reset(std::shared_ptr<const TraceDocument> doc,
                           std::optional<std::vector<std::uint64_t>> filtered) {
    guint before = size();
    doc_m = std::move(doc);
    filtered_m = std::move(filtered);
    items_changed(0, before, size());
}

// ---------------------------------------------------------------------------
// RawTraceView

std::string cellOf(const EventLine& line, int column) {
    switch (column) {
    case 0: // a user stream as traceanalyze -d names it
        return line.user ? "u" + std::to_string(line.stream) : std::to_string(line.cpu);
    case 1:
        return line.event;
    case 2: // whole seconds since the trace anchor, as LTT's list
        return std::to_string(line.timeNs / 1000000000);
    case 6: { // the microseconds within that second (nanoseconds as decimals)
        char buf[24];
        std::snprintf(buf, sizeof buf, "%06u.%03u", unsigned(line.timeNs / 1000 % 1000000),
                      unsigned(line.timeNs % 1000));
        return buf;
    }
    case 3:
        return std::to_string(line.pid);
    case 4:
        return std::to_string(line.size);
    case 5:
        return line.description;
    default:
        return {};
    }
}

Glib::RefPtr<Gtk::StringList> eventTypeMenu(const char* anyLabel,
                                            std::vector<std::uint64_t>& masks) {
    auto types = Gtk::StringList::create({anyLabel});
    masks.assign(1, 0);
    for (const auto& choice : TraceDocument::eventTypes()) {
        types->append(choice.label);
        masks.push_back(choice.mask);
    }
    return types;
}

RawTraceView::RawTraceView() : Gtk::Box(Gtk::Orientation::VERTICAL, 4) {
    type_m.set_model(eventTypeMenu("All events", typeMasks_m));
    pid_m.set_placeholder_text("PID");
    pid_m.set_width_chars(8);
    cpu_m.set_placeholder_text("CPU");
    cpu_m.set_width_chars(5);
    bar_m.set_margin(4);
    bar_m.append(*Gtk::make_managed<Gtk::Label>("Filter: event"));
    bar_m.append(type_m);
    bar_m.append(*Gtk::make_managed<Gtk::Label>("PID"));
    bar_m.append(pid_m);
    bar_m.append(*Gtk::make_managed<Gtk::Label>("CPU"));
    bar_m.append(cpu_m);
    bar_m.append(apply_m);
    bar_m.append(clear_m);
    count_m.set_hexpand(true);
    count_m.set_xalign(1);
    bar_m.append(count_m);
    append(bar_m);

    apply_m.signal_clicked().connect([this] { applyFilter(); });
    pid_m.signal_activate().connect([this] { applyFilter(); });
    cpu_m.signal_activate().connect([this] { applyFilter(); });
    clear_m.signal_clicked().connect([this] {
        type_m.set_selected(0);
        pid_m.set_text("");
        cpu_m.set_text("");
        setFiltered(std::nullopt, "");
    });

    model_m = EventListModel::create();
    selection_m = Gtk::SingleSelection::create(model_m);
    selection_m->set_autoselect(false);
    selection_m->set_can_unselect(true);
    view_m.set_model(selection_m);
    view_m.set_show_column_separators(true);
    view_m.add_css_class("data-table");
    addColumn("CPU-ID", 0, false);
    addColumn("Event", 1, false);
    addColumn("Seconds", 2, false);
    addColumn("Microseconds", 6, false);
    addColumn("PID", 3, false);
    addColumn("Entry Length", 4, false);
    addColumn("Event Description", 5, true);
    scroller_m.set_child(view_m);
    scroller_m.set_vexpand(true);
    append(scroller_m);

    view_m.signal_map().connect([this] {
        if (pendingScroll_m)
            Glib::signal_idle().connect_once([this] {
                if (pendingScroll_m)
                    scrollTo(*pendingScroll_m);
            });
    });
    selection_m->signal_selection_changed().connect([this](guint, guint) {
        if (syncing_m)
            return;
        auto pos = selection_m->get_selected();
        if (pos == GTK_INVALID_LIST_POSITION || pos >= model_m->size())
            return;
        selectedSignal_m.emit(model_m->indexAt(pos));
    });

    auto css = Gtk::CssProvider::create();
    css->load_from_data(".lost-event { color: #d00000; font-weight: bold; }");
    Gtk::StyleContext::add_provider_for_display(Gdk::Display::get_default(), css,
                                                GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}

void RawTraceView::addColumn(const char* title, int column, bool expand) {
    auto factory = Gtk::SignalListItemFactory::create();
    factory->signal_setup().connect([column](const Glib::RefPtr<Gtk::ListItem>& item) {
        auto label = Gtk::make_managed<Gtk::Label>();
        label->set_xalign(
            column == 0 || column == 2 || column == 3 || column == 4 || column == 6 ? 1.0f : 0.0f);
        label->set_ellipsize(Pango::EllipsizeMode::END);
        item->set_child(*label);
    });
    factory->signal_bind().connect([column](const Glib::RefPtr<Gtk::ListItem>& item) {
        auto label = dynamic_cast<Gtk::Label*>(item->get_child());
        auto ev = std::dynamic_pointer_cast<EventItem>(item->get_item());
        if (!label || !ev)
            return;
        const EventLine& line = ev->line();
        label->set_text(cellOf(line, column));
        if (line.lost)
            label->add_css_class("lost-event");
        else
            label->remove_css_class("lost-event");
    });
    auto col = Gtk::ColumnViewColumn::create(title, factory);
    col->set_resizable(true);
    col->set_expand(expand);
    if (column == 1)
        col->set_fixed_width(130);
    if (column == 2)
        col->set_fixed_width(80);
    if (column == 6)
        col->set_fixed_width(110);
    view_m.append_column(col);
}

std::vector<std::string> RawTraceView::columnTitles() const {
    std::vector<std::string> out;
    auto cols = const_cast<Gtk::ColumnView&>(view_m).get_columns();
    for (guint i = 0; i < cols->get_n_items(); ++i) {
        auto c = std::dynamic_pointer_cast<Gtk::ColumnViewColumn>(cols->get_object(i));
        if (c)
            out.push_back(c->get_title());
    }
    return out;
}

std::string RawTraceView::cellText(guint position, int column) const {
    if (!doc_m || position >= model_m->size())
        return {};
    return cellOf(doc_m->event(model_m->indexAt(position)), column);
}

void RawTraceView::setDocument(std::shared_ptr<const TraceDocument> doc) {
    doc_m = std::move(doc);
    syncing_m = true;
    model_m->reset(doc_m, std::nullopt);
    syncing_m = false;
    count_m.set_text(doc_m ? std::to_string(model_m->size()) + " events" : "");
}

namespace {
std::int64_t parseNumber(const Glib::ustring& text) {
    std::string s = text;
    std::int64_t v = -1;
    if (s.empty())
        return -1;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return (ec == std::errc{} && p == s.data() + s.size()) ? v : -2;
}
} // namespace

EventFilter RawTraceView::currentFilter() const {
    EventFilter f;
    guint sel = type_m.get_selected();
    if (sel != GTK_INVALID_LIST_POSITION && sel < typeMasks_m.size())
        f.events = typeMasks_m[sel];
    f.pid = parseNumber(pid_m.get_text());
    f.cpu = static_cast<int>(parseNumber(cpu_m.get_text()));
    return f;
}

void RawTraceView::applyFilter() {
    EventFilter f = currentFilter();
    if (f.pid == -2 || f.cpu == -2) {
        count_m.set_text("PID and CPU must be numbers");
        return;
    }
    if (!f.active()) {
        setFiltered(std::nullopt, "");
        return;
    }
    filterSignal_m.emit(f);
}

void RawTraceView::setFiltered(std::optional<std::vector<std::uint64_t>> indices,
                               const std::string& what) {
    syncing_m = true;
    bool filtered = indices.has_value();
    model_m->reset(doc_m, std::move(indices));
    syncing_m = false;
    if (!doc_m)
        return;
    count_m.set_text(filtered ? std::to_string(model_m->size()) + " of " +
                                    std::to_string(doc_m->eventCount()) + " events (" + what + ")"
                              : std::to_string(model_m->size()) + " events");
}

void RawTraceView::scrollTo(guint position) {
    // A list view that is not on screen (another tab is showing) ends up
    // drawing a single row when asked to scroll: do it when it is mapped.
    if (!view_m.get_mapped()) {
        pendingScroll_m = position;
        return;
    }
    pendingScroll_m.reset();
    // GTK 4.8 has no gtk_column_view_scroll_to(); the inner list view has the
    // "list.scroll-to-item" action.
    for (auto* child = view_m.get_first_child(); child; child = child->get_next_sibling()) {
        if (GTK_IS_LIST_VIEW(child->gobj())) {
            child->activate_action("list.scroll-to-item", Glib::Variant<guint32>::create(position));
            return;
        }
    }
}

void RawTraceView::selectEvent(std::optional<std::uint64_t> index) {
    if (!doc_m)
        return;
    syncing_m = true;
    if (!index) {
        selection_m->set_selected(GTK_INVALID_LIST_POSITION);
    } else if (auto pos = model_m->positionOf(*index)) {
        selection_m->set_selected(*pos);
        scrollTo(*pos);
    }
    syncing_m = false;
}

} // namespace traceview
