#include <glib.h>
#include <glib-unix.h>

/*
 * GLib's G_SOURCE_CONTINUE and G_SOURCE_REMOVE are macros of a cast type; these carry them
 * across, with the GIOCondition bits a descriptor is watched for.
 */
static const gboolean CGLIB_SOURCE_CONTINUE = G_SOURCE_CONTINUE;
static const gboolean CGLIB_SOURCE_REMOVE = G_SOURCE_REMOVE;
