// Process analysis tab: see process_view.hpp.
#include "process_view.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>

namespace traceview {

ProcessView::ProcessView() : Gtk::Paned(Gtk::Orientation::HORIZONTAL) {
    store_m = Gtk::TreeStore::create(cols_m);
    tree_m.set_model(store_m);
    auto addSorted = [](Gtk::TreeView& view, const char* title, auto& column, int id) {
        int n = view.append_column(title, column);
        if (auto* c = view.get_column(n - 1)) {
            c->set_sort_column(column);
            c->set_resizable(true);
        }
        (void)id;
    };
    addSorted(tree_m, "Process", cols_m.label, 0);
    if (auto* c = tree_m.get_column(0)) {
        c->set_sizing(Gtk::TreeViewColumn::Sizing::FIXED);
        c->set_fixed_width(250);
    }
    addSorted(tree_m, "PID", cols_m.pid, 1);
    addSorted(tree_m, "Syscalls", cols_m.syscalls, 2);
    {
        int n = tree_m.append_column("Running", cols_m.runningText);
        if (auto* c = tree_m.get_column(n - 1)) {
            c->set_sort_column(cols_m.running);
            c->set_resizable(true);
        }
    }
    treeScroll_m.set_child(tree_m);
    treeScroll_m.set_size_request(520, -1);
    treeScroll_m.set_vexpand(true);
    tree_m.get_selection()->set_mode(Gtk::SelectionMode::MULTIPLE);
    descendants_m.set_tooltip_text("Add every process below the selected ones to the figures");
    descendants_m.set_margin_start(6);
    descendants_m.signal_toggled().connect([this] { selectionChanged(); });
    treeBox_m.append(descendants_m);
    treeBox_m.append(treeScroll_m);
    set_shrink_start_child(false);
    set_start_child(treeBox_m);
    set_resize_start_child(false);

    title_m.set_xalign(0);
    title_m.set_markup("<b>No trace</b>");
    details_m.set_margin(10);
    details_m.append(title_m);
    auto* pc = Gtk::make_managed<Gtk::Label>();
    pc->set_markup("<b>Process characteristics :</b>");
    pc->set_xalign(0);
    details_m.append(*pc);
    grid_m.set_column_spacing(24);
    grid_m.set_row_spacing(2);
    details_m.append(grid_m);
    auto* tb = Gtk::make_managed<Gtk::Label>();
    tb->set_markup("<b>Time breakdown :</b>");
    tb->set_xalign(0);
    details_m.append(*tb);
    chart_m.set_content_height(46);
    chart_m.set_draw_func(sigc::mem_fun(*this, &ProcessView::drawBreakdown));
    details_m.append(chart_m);
    sysTitle_m.set_markup(
        "<b>System call accounting</b> (name, times called, total time in syscall) :");
    sysTitle_m.set_xalign(0);
    details_m.append(sysTitle_m);

    sstore_m = Gtk::ListStore::create(scols_m);
    sys_m.set_model(sstore_m);
    addSorted(sys_m, "System call", scols_m.name, 0);
    addSorted(sys_m, "Count", scols_m.count, 1);
    {
        int n = sys_m.append_column("Total time", scols_m.totalText);
        if (auto* c = sys_m.get_column(n - 1))
            c->set_sort_column(scols_m.total);
    }
    sysScroll_m.set_child(sys_m);
    sysScroll_m.set_vexpand(true);
    details_m.append(sysScroll_m);
    details_m.append(callsites_m);
    detailScroll_m.set_child(details_m);
    set_end_child(detailScroll_m);

    tree_m.get_selection()->signal_changed().connect([this] { selectionChanged(); });
}

void ProcessView::selectionChanged() {
    if (!doc_m)
        return;
    std::vector<std::int64_t> ids;
    std::int32_t pid = 0;
    for (const auto& path : tree_m.get_selection()->get_selected_rows()) {
        auto it = store_m->get_iter(path);
        if (!it)
            continue;
        ids.push_back((*it)[cols_m.id]);
        pid = (*it)[cols_m.pid];
    }
    if (ids.empty())
        return;
    if (descendants_m.get_active()) {
        std::vector<std::int64_t> all;
        for (auto id : ids)
            for (auto d : doc_m->withDescendants(id))
                all.push_back(d);
        std::sort(all.begin(), all.end());
        all.erase(std::unique(all.begin(), all.end()), all.end());
        ids = std::move(all);
    }
    if (ids.size() == 1) {
        showDetails(ids[0], pid);
        if (!syncing_m)
            pidSignal_m.emit(pid);
        return;
    }
    selectedPid_m = pid;
    shownIds_m = ids;
    callsites_m.showSelection(doc_m);
    title_m.set_markup("<big><b>" + std::to_string(ids.size()) +
                       " processes</b></big> — figures summed over the selection");
    showReport(doc_m->selectionReport(ids), doc_m->selectionSyscalls(ids));
}

std::vector<std::int64_t> ProcessView::selectedIds() const {
    std::vector<std::int64_t> ids;
    for (const auto& path : tree_m.get_selection()->get_selected_rows())
        if (auto it = store_m->get_iter(path))
            ids.push_back((*it)[cols_m.id]);
    return ids;
}

void ProcessView::selectIds(const std::vector<std::int64_t>& ids) {
    syncing_m = true;
    auto sel = tree_m.get_selection();
    sel->unselect_all();
    store_m->foreach_iter([&](const Gtk::TreeModel::iterator& it) {
        const gint64 id = (*it)[cols_m.id];
        if (std::find(ids.begin(), ids.end(), id) != ids.end())
            sel->select(it);
        return false;
    });
    syncing_m = false;
    selectionChanged();
}

void ProcessView::drawBreakdown(const Cairo::RefPtr<Cairo::Context>& cr, int width, int) {
    static constexpr double colours[][3] = {
        {0.15, 0.55, 0.20}, {0.80, 0.20, 0.15}, {0.84, 0.55, 0.10}, {0.09, 0.65, 0.75},
        {0.58, 0.40, 0.74}, {0.60, 0.60, 0.60}, {0.85, 0.70, 0.30}};
    const auto& ns = breakdown_m.ns;
    std::uint64_t total = 0;
    for (auto v : ns)
        total += v;
    cr->select_font_face("Sans", Cairo::ToyFontFace::Slant::NORMAL,
                         Cairo::ToyFontFace::Weight::NORMAL);
    cr->set_font_size(10);
    const double barW = std::max(100, width - 10);
    double x = 0;
    for (std::size_t i = 0; i < ns.size() && total; ++i) {
        const double w = double(ns[i]) / double(total) * barW;
        cr->set_source_rgb(colours[i][0], colours[i][1], colours[i][2]);
        cr->rectangle(x, 2, w, 18);
        cr->fill();
        x += w;
    }
    cr->set_source_rgb(0.4, 0.4, 0.4);
    cr->set_line_width(1);
    cr->rectangle(0.5, 2.5, barW - 1, 17);
    cr->stroke();
    // The legend: each part's name and share.
    x = 0;
    for (std::size_t i = 0; i < ns.size(); ++i) {
        cr->set_source_rgb(colours[i][0], colours[i][1], colours[i][2]);
        cr->rectangle(x, 28, 9, 9);
        cr->fill();
        char text[64];
        std::snprintf(text, sizeof text, "%s %.1f%%", TraceDocument::TimeBreakdown::kNames[i],
                      total ? 100.0 * double(ns[i]) / double(total) : 0.0);
        cr->set_source_rgb(0.1, 0.1, 0.1);
        cr->move_to(x + 12, 37);
        cr->show_text(text);
        Cairo::TextExtents ext;
        cr->get_text_extents(text, ext);
        x += ext.x_advance + 24;
    }
}

void ProcessView::setDocument(const TraceDocument* doc) {
    doc_m = doc;
    syncing_m = true;
    store_m->clear();
    processCount_m = 0;
    if (!doc) {
        syncing_m = false;
        return;
    }
    // A count of system calls masked out at trace time is no count: the
    // column goes, as the report says "masked out at trace time".
    if (auto* c = tree_m.get_column(2))
        c->set_visible(doc->syscallNote() != ltt::kMaskedOut);
    auto procs = doc->processes();
    std::map<std::int64_t, std::vector<const ProcessInfo*>> children;
    for (const auto& p : procs)
        if (p.id != 0)
            children[p.parent].push_back(&p);
    auto rootIt = store_m->append();
    auto root = *rootIt;
    root[cols_m.label] = "The All Mighty (0)";
    root[cols_m.pid] = 0;
    root[cols_m.id] = 0;
    if (!procs.empty()) {
        root[cols_m.syscalls] = procs[0].syscalls;
        root[cols_m.running] = procs[0].runningNs;
        root[cols_m.runningText] = ltt::formatSeconds(procs[0].runningNs) + " s";
    }
    std::function<void(const Gtk::TreeModel::iterator&, std::int64_t, int)> addChildren =
        [&](const Gtk::TreeModel::iterator& parent, std::int64_t id, int depth) {
            if (depth > 256)
                return;
            for (const ProcessInfo* p : children[id]) {
                auto it = store_m->append(parent->children());
                auto row = *it;
                row[cols_m.label] = p->name + " (" + std::to_string(p->pid) + ")";
                row[cols_m.pid] = p->pid;
                row[cols_m.id] = p->id;
                row[cols_m.syscalls] = p->syscalls;
                row[cols_m.running] = p->runningNs;
                row[cols_m.runningText] = ltt::formatSeconds(p->runningNs) + " s";
                ++processCount_m;
                addChildren(it, p->id, depth + 1);
            }
        };
    addChildren(rootIt, 0, 0);
    // The unattributed entry: beside the tree, never in it (no task).
    unattributedLabel_m.clear();
    if (const auto u = doc->unattributed()) {
        std::string why;
        for (const auto& r : u->reasons)
            why += (why.empty() ? "" : ", ") + std::to_string(r.events) + " " + r.key;
        unattributedLabel_m =
            "unattributed: " + std::to_string(u->events) + " events (" + why + ")";
        auto row = *store_m->append();
        row[cols_m.label] = unattributedLabel_m;
        row[cols_m.pid] = ltt::kUnattributedPid;
        row[cols_m.id] = kUnattributedId;
        row[cols_m.syscalls] = u->syscalls;
        row[cols_m.running] = u->runningNs;
        row[cols_m.runningText] = ltt::formatSeconds(u->runningNs) + " s";
    }
    tree_m.expand_all();
    tree_m.get_selection()->select(rootIt);
    showDetails(0, 0);
    syncing_m = false;
}

std::string ProcessView::rootLabel() const {
    auto it = store_m->children().begin();
    if (!it)
        return {};
    return Glib::ustring((*it)[cols_m.label]);
}

std::size_t ProcessView::syscallRows() const {
    return sstore_m->children().size();
}

void ProcessView::selectPid(std::int32_t pid) {
    Gtk::TreeModel::iterator found;
    store_m->foreach_iter([&](const Gtk::TreeModel::iterator& it) {
        // The latest instance of a reused pid wins.
        if ((*it)[cols_m.pid] == pid)
            found = it;
        return false;
    });
    if (!found)
        return;
    syncing_m = true;
    auto path = store_m->get_path(found);
    tree_m.expand_to_path(path);
    tree_m.get_selection()->unselect_all();
    tree_m.get_selection()->select(found);
    tree_m.scroll_to_row(path);
    syncing_m = false;
}

void ProcessView::showDetails(std::int64_t id, std::int32_t pid) {
    selectedPid_m = pid;
    shownIds_m = {id};
    callsites_m.showProcess(doc_m, pid);
    if (!doc_m)
        return;
    if (id == kUnattributedId)
        title_m.set_markup("<big><b>unattributed</b></big> — events the trace does not "
                           "attribute to any task");
    else
        title_m.set_markup(id == 0
                               ? "<big><b>The All Mighty (0)</b></big> — system-wide"
                               : "<big><b>" + Glib::Markup::escape_text(doc_m->processName(pid)) +
                                     " (" + std::to_string(pid) + ")</b></big>");
    showReport(doc_m->processReport(id), doc_m->syscalls(id));
}

void ProcessView::showReport(const std::vector<ReportLine>& lines,
                             const std::vector<SyscallLine>& calls) {
    while (auto* child = grid_m.get_first_child())
        grid_m.remove(*child);
    sstore_m->clear();
    report_m.clear();
    breakdown_m = doc_m->timeBreakdown(shownIds_m);
    chart_m.queue_draw();
    int r = 0;
    for (const auto& line : lines) {
        auto* k = Gtk::make_managed<Gtk::Label>(line.label + ":");
        auto* v = Gtk::make_managed<Gtk::Label>(line.value);
        k->set_xalign(0);
        v->set_xalign(0);
        v->set_selectable(true);
        grid_m.attach(*k, 0, r);
        grid_m.attach(*v, 1, r);
        report_m.emplace_back(line.label, line.value);
        ++r;
    }
    // The same title, note and precision as traceanalyze's report.
    const std::string note = doc_m->syscallNote();
    const bool masked = note == ltt::kMaskedOut;
    std::string title = "<b>System call accounting</b>";
    if (masked)
        title += " : " + note;
    else
        title += " (name, times called, total time in syscall) :";
    if (!masked && !note.empty())
        title += "\n(" + std::string(Glib::Markup::escape_text(note)) + ")";
    sysTitle_m.set_markup(title);
    syscallNote_m = note;
    syscallLines_m = calls;
    for (const auto& s : calls) {
        auto row = *sstore_m->append();
        row[scols_m.name] = s.name;
        row[scols_m.count] = s.count;
        row[scols_m.total] = s.totalNs;
        row[scols_m.totalText] = ltt::formatSeconds(s.totalNs) + " s";
    }
}

} // namespace traceview
