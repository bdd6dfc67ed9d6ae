/*
 * The D-Bus path calls (secret-paths.h: search for paths, unlock paths, secrets by path, an
 * item or collection proxy for a path) are what let the keyring read every item found and
 * leave out one deleted meanwhile, instead of failing the whole search; libsecret has kept
 * them unchanged since 0.7, under this "subject to change" label.
 */
#define SECRET_API_SUBJECT_TO_CHANGE
#include <libsecret/secret.h>

/*
 * GObject's checked casts are macros, which Swift does not import: these carry
 * the one the Keyring module needs. Only the Keyring module calls it.
 */
static inline GDBusProxy *csecret_service_proxy(SecretService *service) { return G_DBUS_PROXY(service); }

/* G_MAXINT as a D-Bus timeout means none: a call waits as long as the user takes. */
static const gint CSECRET_TIMEOUT_NONE = G_MAXINT;
