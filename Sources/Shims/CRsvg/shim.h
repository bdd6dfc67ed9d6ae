#include <cairo.h>
#include <librsvg/rsvg.h>

/*
 * librsvg (which brings cairo with it) for the tray icon: the shipped SVG rendered at the sizes
 * tray hosts ask for, and the unread count drawn over it. Only the Tray module calls these.
 */

/* g_object_unref takes a gpointer; a typed one keeps the handle's type visible to Swift. */
static inline void gbn_rsvg_handle_free(RsvgHandle *handle) {
    g_object_unref(handle);
}

