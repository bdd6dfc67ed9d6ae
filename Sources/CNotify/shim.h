#include <libnotify/notify.h>

/*
 * GObject's signal and property calls are macros or variadic, which Swift cannot call; these
 * fix their arguments. Only the Notifications module calls them.
 */

typedef void (*gbn_closed_callback)(NotifyNotification *notification, gpointer user_data);

/* g_signal_connect is a macro. */
static inline gulong gbn_notification_connect_closed(NotifyNotification *notification, gbn_closed_callback callback,
                                                     gpointer user_data, GClosureNotify destroy) {
    return g_signal_connect_data(notification, "closed", G_CALLBACK(callback), user_data, destroy, 0);
}

/* The server's id, which libnotify keeps in the "id" property: set to take over a notification
 * an earlier process showed, so that showing it again replaces it. */
static inline void gbn_notification_set_id(NotifyNotification *notification, gint id) {
    g_object_set(notification, "id", id, NULL);
}

static inline gint gbn_notification_get_id(NotifyNotification *notification) {
    gint id = 0;
    g_object_get(notification, "id", &id, NULL);
    return id;
}

static inline GVariant *gbn_variant_bool(gboolean value) {
    return g_variant_new_boolean(value);
}
