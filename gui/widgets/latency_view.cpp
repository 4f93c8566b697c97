// The Latency tab: see latency_view.hpp.
#include "latency_view.hpp"

#include <algorithm>
#include <cmath>

namespace traceview {

LatencyView::LatencyView() : Gtk::Box(Gtk::Orientation::VERTICAL, 4) {
    set_margin(6);
    std::vector<Glib::ustring> titles;
    for (const auto& k : latencyKinds())
        titles.emplace_back(k.title);
    kinds_m.set_model(Gtk::StringList::create(titles));
    kinds_m.set_selected(0);
    kinds_m.property_selected().signal_changed().connect([this] { fill(); });
    kinds_m.set_tooltip_text("Which latency to show");
    figures_m.set_xalign(0);
    figures_m.set_selectable(true);
    figures_m.set_hexpand(true);
    top_m.append(kinds_m);
    top_m.append(figures_m);

    histogram_m.set_content_height(230);
    histogram_m.set_draw_func(sigc::mem_fun(*this, &LatencyView::drawHistogram));

    worstTitle_m.set_xalign(0);
    worstTitle_m.set_markup("<b>Worst instances</b> (double-click or Enter: show that moment "
                            "in the event graph)");
    store_m = Gtk::ListStore::create(cols_m);
    view_m.set_model(store_m);
    view_m.append_column("Duration", cols_m.duration);
    view_m.append_column("Start (s)", cols_m.start);
    view_m.append_column("CPU", cols_m.cpu);
    view_m.append_column("PID", cols_m.pid);
    view_m.append_column("Process", cols_m.task);
    view_m.append_column("What", cols_m.what);
    view_m.signal_row_activated().connect(
        [this](const Gtk::TreeModel::Path& path, Gtk::TreeViewColumn*) {
            if (auto it = store_m->get_iter(path))
                activateWorst((*it)[cols_m.index]);
        });
    scroll_m.set_child(view_m);
    scroll_m.set_vexpand(true);

    dist_m.append(top_m);
    dist_m.append(histogram_m);
    dist_m.append(worstTitle_m);
    dist_m.append(scroll_m);
    stack_m.add(dist_m, "distributions", "Latency distributions");
    // The flame graph is computed when its page is shown.
    stack_m.add(flame_m, "offcpu", "Off-CPU flame graph");
    stack_m.property_visible_child().signal_changed().connect([this] {
        if (stack_m.get_visible_child() == &flame_m)
            flame_m.refresh();
    });
    stack_m.set_vexpand(true);
    switcher_m.set_stack(stack_m);
    switcher_m.set_halign(Gtk::Align::START);
    append(switcher_m);
    append(stack_m);
    fill();
}

void LatencyView::setDocument(const TraceDocument* doc) {
    doc_m = doc;
    flame_m.setDocument(doc);
    fill();
}

void LatencyView::refresh() {
    fill();
    if (stack_m.get_visible_child() == &flame_m)
        flame_m.refresh();
}

void LatencyView::showFlame() {
    stack_m.set_visible_child(flame_m);
    flame_m.refresh();
}

void LatencyView::selectKind(ltt::LatencyKind k) {
    kinds_m.set_selected(static_cast<guint>(k));
    fill();
}

ltt::LatencyKind LatencyView::kind() const {
    const guint i = kinds_m.get_selected();
    return latencyKinds()[i < ltt::kLatencyKinds ? i : 0].kind;
}

void LatencyView::activateWorst(std::size_t i) {
    if (i < worst_m.size())
        jump_m.emit(kind(), worst_m[i]);
}

void LatencyView::fill() {
    store_m->clear();
    bars_m.clear();
    worst_m.clear();
    const ltt::LatencyAnalysis* a = doc_m ? doc_m->latency() : nullptr;
    if (!doc_m)
        figures_m.set_text("No trace open");
    else if (!a)
        figures_m.set_text(doc_m->ready() ? "Computing…" : "Waiting for the analysis…");
    if (a) {
        const ltt::LatencyKind k = kind();
        figures_m.set_text(latencyFigures(*a, k));
        if (a->available(k)) {
            bars_m = latencyBars(a->all(k));
            worst_m = latencyWorst(*a, k);
        }
        for (std::size_t i = 0; i < worst_m.size(); ++i) {
            const LatencyWorstRow& w = worst_m[i];
            auto row = *store_m->append();
            row[cols_m.index] = guint(i);
            row[cols_m.duration] = w.duration;
            row[cols_m.start] = ltt::formatSeconds(w.startNs);
            row[cols_m.cpu] = w.cpu;
            row[cols_m.pid] = w.pid >= 0 ? std::to_string(w.pid) : "";
            row[cols_m.task] = w.pid >= 0 ? doc_m->processName(w.pid) : "(interrupt)";
            row[cols_m.what] = w.what;
        }
    }
    histogram_m.queue_draw();
}

// runqlat's histogram as bars: a bar per log2 bucket of microseconds, the
// count above it, the bucket's range under it.
void LatencyView::drawHistogram(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height) {
    cr->set_source_rgb(1, 1, 1);
    cr->paint();
    barsDrawn_m = 0;
    cr->select_font_face("Sans", Cairo::ToyFontFace::Slant::NORMAL,
                         Cairo::ToyFontFace::Weight::NORMAL);
    cr->set_font_size(10);
    if (bars_m.empty()) {
        cr->set_source_rgb(0.4, 0.4, 0.4);
        cr->move_to(12, height / 2.0);
        cr->show_text(doc_m && doc_m->latency() ? "No instances" : "");
        return;
    }
    std::uint64_t peak = 1;
    for (const auto& b : bars_m)
        peak = std::max(peak, b.count);
    const double left = 50, right = 10, top = 18, bottom = 36;
    const double plotW = std::max(10.0, width - left - right);
    const double plotH = std::max(10.0, height - top - bottom);
    const double slot = plotW / double(bars_m.size());
    // Axis and its scale (instances).
    cr->set_source_rgb(0.3, 0.3, 0.3);
    cr->set_line_width(1);
    cr->move_to(left - 0.5, top);
    cr->line_to(left - 0.5, top + plotH + 0.5);
    cr->line_to(left + plotW, top + plotH + 0.5);
    cr->stroke();
    cr->move_to(4, top + 8);
    cr->show_text(std::to_string(peak));
    cr->move_to(4, top + plotH);
    cr->show_text("0");
    for (std::size_t i = 0; i < bars_m.size(); ++i) {
        const LatencyBar& b = bars_m[i];
        const double h = plotH * double(b.count) / double(peak);
        const double x = left + slot * double(i) + 1;
        cr->set_source_rgb(0.25, 0.45, 0.85);
        if (b.count) {
            cr->rectangle(x, top + plotH - h, std::max(1.0, slot - 2), h);
            cr->fill();
            ++barsDrawn_m;
        }
        cr->set_source_rgb(0.15, 0.15, 0.15);
        if (b.count && slot >= 18) {
            const std::string c = std::to_string(b.count);
            Cairo::TextExtents e;
            cr->get_text_extents(c, e);
            cr->move_to(x + (slot - 2 - e.x_advance) / 2, top + plotH - h - 3);
            cr->show_text(c);
        }
        // The bucket's low end, every label that has room.
        const std::string lo = b.lowUs >= 1000000 ? std::to_string(b.lowUs / 1000000) + "s"
                               : b.lowUs >= 1000  ? std::to_string(b.lowUs / 1000) + "ms"
                                                  : std::to_string(b.lowUs);
        Cairo::TextExtents e;
        cr->get_text_extents(lo, e);
        if (e.x_advance < slot - 1) {
            cr->move_to(x + (slot - 2 - e.x_advance) / 2, top + plotH + 13);
            cr->show_text(lo);
        }
    }
    cr->set_source_rgb(0.3, 0.3, 0.3);
    cr->move_to(left, height - 6);
    cr->show_text("µs (log2 buckets: each bar from the value under it to twice that, as runqlat)");
}

} // namespace traceview
