// The off-CPU flame graph: see flame_view.hpp.
#include "flame_view.hpp"

#include <cinttypes>
#include <functional>
#include <libltt/proc_file.hpp>
#include <libltt/trace_reader.hpp>

namespace traceview {

namespace {

constexpr double kRow = 18; // pixels per frame

// flamegraph.pl's "hot" palette, from the name (the same frame keeps its
// colour from one graph to the next).
void colour(const std::string& name, double& r, double& g, double& b) {
    const std::size_t h = std::hash<std::string>{}(name);
    const double v1 = double(h & 0xff) / 255.0, v2 = double((h >> 8) & 0xff) / 255.0,
                 v3 = double((h >> 16) & 0xff) / 255.0;
    r = (205 + 50 * v3) / 255.0;
    g = (230 * v1) / 255.0;
    b = (55 * v2) / 255.0;
}

std::string millis(std::uint64_t ns) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.3f ms", double(ns) / 1e6);
    return buf;
}

} // namespace

FlameView::FlameView() : Gtk::Box(Gtk::Orientation::VERTICAL, 4) {
    set_margin(6);
    note_m.set_xalign(0);
    note_m.set_wrap(true);
    hover_m.set_xalign(0);
    hover_m.set_ellipsize(Pango::EllipsizeMode::END);
    area_m.set_draw_func(sigc::mem_fun(*this, &FlameView::draw));
    area_m.set_hexpand(true);
    auto motion = Gtk::EventControllerMotion::create();
    motion->signal_motion().connect([this](double x, double y) {
        const FlameBox* b = boxAt(x, y);
        hover_m.set_text(b ? flameLabel(*b->node, zoom_m ? zoom_m->ns : tree_m.ns) : "");
    });
    area_m.add_controller(motion);
    auto click = Gtk::GestureClick::create();
    click->signal_released().connect([this](int, double x, double y) {
        if (const FlameBox* b = boxAt(x, y))
            clickBox(*b);
    });
    area_m.add_controller(click);
    scroll_m.set_child(area_m);
    scroll_m.set_vexpand(true);
    append(note_m);
    append(hover_m);
    append(scroll_m);
    done_m.connect([this] { finished(); });
    note_m.set_text("No trace open");
}

FlameView::~FlameView() {
    if (worker_m.joinable())
        worker_m.join();
}

void FlameView::setDocument(const TraceDocument* doc) {
    if (doc != doc_m) {
        doc_m = doc;
        ++generation_m;
        report_m.reset();
        dirty_m = true;
        pid_m = -1;
        fromNs_m = 0;
        toNs_m = ~0ull;
        layout();
    }
    note_m.set_text(doc ? "" : "No trace open");
}

void FlameView::setProcess(std::int32_t pid) {
    if (pid <= 0)
        pid = -1; // the idle task or none: every task
    if (pid != pid_m) {
        pid_m = pid;
        dirty_m = true;
    }
}

void FlameView::setWindow(std::uint64_t fromNs, std::uint64_t toNs) {
    if (fromNs != fromNs_m || toNs != toNs_m) {
        fromNs_m = fromNs;
        toNs_m = toNs;
        dirty_m = true;
    }
}

void FlameView::refresh() {
    if (!doc_m || !doc_m->ready())
        return;
    if (!doc_m->stacksRecorded()) {
        note_m.set_text("This trace has no stacks: take it with tracedaemon -S to see where "
                        "the tasks blocked.");
        return;
    }
    if (dirty_m)
        start();
}

// Runs analyzeOffCpu on a worker thread, which reads the files by path
// (copied here), never the document.
void FlameView::start() {
    if (worker_m.joinable())
        return; // finished() starts again if the selection changed meanwhile
    dirty_m = false;
    workerGeneration_m = generation_m;
    note_m.set_text("Computing the off-CPU stacks…");
    worker_m = std::thread([this, trace = doc_m->tracePath(), proc = doc_m->procPath(),
                            symfs = symfs_m, pid = pid_m, from = fromNs_m, to = toNs_m] {
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
            // The graph's times count from the anchor, the options from
            // the trace's first event.
            const std::uint64_t first = reader->nsFromAnchor(reader->firstTsc());
            ltt::OffCpuOptions o;
            o.pid = pid;
            o.fromNs = from > first ? from - first : 0;
            o.toNs = to == ~0ull ? ~0ull : (to > first ? to - first : 0);
            ltt::Symbolizer sym;
            sym.setSymfs(symfs);
            std::string why;
            sym.loadTraceKallsyms(trace, &why);
            result_m = std::make_shared<const ltt::OffCpuReport>(
                ltt::analyzeOffCpu(*reader, snap ? &*snap : nullptr, sym, o));
        }
        done_m.emit();
    });
}

void FlameView::finished() {
    if (worker_m.joinable())
        worker_m.join();
    std::string error = std::move(resultError_m);
    auto result = std::move(result_m);
    resultError_m.clear();
    result_m.reset();
    if (workerGeneration_m != generation_m)
        return;
    if (!error.empty() || !result) {
        note_m.set_text(error);
        return;
    }
    report_m = std::move(result);
    layout();
    const std::string who = pid_m < 0
                                ? std::string("every task")
                                : doc_m->processName(pid_m) + " (" + std::to_string(pid_m) + ")";
    std::string note = "Off-CPU time of " + who +
                       " in the event graph's window: " + millis(report_m->blockedNs) +
                       " blocked in " + std::to_string(report_m->intervals) + " intervals";
    if (report_m->withoutStack)
        note += ", " + millis(report_m->withoutStackNs) + " of it without a stack";
    if (report_m->droppedLost)
        note += "; " + std::to_string(report_m->droppedLost) + " dropped (events lost)";
    note += ". Click a frame to zoom in, the bottom bar to zoom out.";
    note_m.set_text(note);
    if (dirty_m)
        refresh();
}

void FlameView::layout() {
    tree_m = report_m ? flameTree(*report_m) : FlameNode{};
    zoom_m = nullptr;
    boxes_m = report_m ? flameLayout(tree_m) : std::vector<FlameBox>{};
    area_m.set_content_height(int(kRow * std::max(1, flameDepth(boxes_m))) + 4);
    area_m.queue_draw();
}

void FlameView::clickBox(const FlameBox& box) {
    const FlameNode* n = box.node;
    // The bottom bar zooms out to the whole graph.
    zoom_m = box.depth == 0 ? nullptr : n;
    boxes_m = flameLayout(zoom_m ? *zoom_m : tree_m);
    area_m.queue_draw();
}

const FlameBox* FlameView::boxAt(double x, double y) const {
    const double width = area_m.get_width(), height = area_m.get_height();
    if (width <= 0)
        return nullptr;
    const int depth = int((height - 2 - y) / kRow);
    return flameBoxAt(boxes_m, x / width, depth);
}

void FlameView::draw(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height) {
    cr->set_source_rgb(1, 1, 1);
    cr->paint();
    drawn_m = 0;
    cr->select_font_face("Sans", Cairo::ToyFontFace::Slant::NORMAL,
                         Cairo::ToyFontFace::Weight::NORMAL);
    cr->set_font_size(11);
    for (const FlameBox& b : boxes_m) {
        const double x = b.x0 * width, w = (b.x1 - b.x0) * width;
        const double y = height - 2 - (b.depth + 1) * kRow;
        double r, g, bl;
        if (b.depth == 0)
            r = g = bl = 0.85;
        else
            colour(b.node->name, r, g, bl);
        cr->set_source_rgb(r, g, bl);
        cr->rectangle(x, y, std::max(0.5, w - 1), kRow - 1);
        cr->fill();
        ++drawn_m;
        if (w < 24)
            continue;
        // The name, cut to the box.
        std::string base = b.depth == 0 && zoom_m ? zoom_m->name + " (click: all)" : b.node->name;
        std::string text = base;
        Cairo::TextExtents ext;
        cr->get_text_extents(text, ext);
        while (ext.x_advance > w - 6 && base.size() > 1) {
            base.pop_back();
            text = base + "..";
            cr->get_text_extents(text, ext);
        }
        if (ext.x_advance > w - 6)
            continue;
        cr->set_source_rgb(0, 0, 0);
        cr->move_to(x + 3, y + kRow - 5);
        cr->show_text(text);
    }
}

} // namespace traceview
