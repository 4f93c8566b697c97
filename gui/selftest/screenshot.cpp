// Screenshot of a widget: snapshot its paintable, render the node tree with
// the window's GSK renderer, save the texture.
#include "screenshot.hpp"

namespace traceview {

bool saveScreenshot(Gtk::Widget& widget, const std::string& path) {
    const int w = widget.get_width(), h = widget.get_height();
    if (w <= 0 || h <= 0)
        return false;
    GtkNative* native = gtk_widget_get_native(widget.gobj());
    if (!native)
        return false;
    GskRenderer* renderer = gtk_native_get_renderer(native);
    if (!renderer)
        return false;
    GdkPaintable* paintable = gtk_widget_paintable_new(widget.gobj());
    GtkSnapshot* snapshot = gtk_snapshot_new();
    gdk_paintable_snapshot(paintable, GDK_SNAPSHOT(snapshot), w, h);
    GskRenderNode* node = gtk_snapshot_free_to_node(snapshot);
    bool ok = false;
    if (node) {
        graphene_rect_t viewport = GRAPHENE_RECT_INIT(0, 0, float(w), float(h));
        GdkTexture* texture = gsk_renderer_render_texture(renderer, node, &viewport);
        if (texture) {
            ok = gdk_texture_save_to_png(texture, path.c_str());
            g_object_unref(texture);
        }
        gsk_render_node_unref(node);
    }
    g_object_unref(paintable);
    return ok;
}

} // namespace traceview
