#include <curl/curl.h>

/*
 * curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, so
 * Swift cannot call them. These wrappers fix the argument type, one per kind
 * of value, the way swift-corelibs-foundation does. Only the Curl module
 * calls them.
 */

typedef size_t (*gbn_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode gbn_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gbn_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gbn_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gbn_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

/* For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION, which share a signature. */
static inline CURLcode gbn_curl_easy_setopt_data_callback(CURL *handle, CURLoption option, gbn_curl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gbn_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gbn_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode gbn_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

/* The multi socket interface: libcurl says which sockets to watch and when to call it back, and
 * the main loop does the watching. */
typedef int (*gbn_curl_socket_callback)(CURL *easy, curl_socket_t socket, int what, void *context, void *socket_context);
typedef int (*gbn_curl_timer_callback)(CURLM *multi, long timeout_ms, void *context);

static inline CURLMcode gbn_curl_multi_setopt_socket_callback(CURLM *multi, gbn_curl_socket_callback callback, void *context) {
    CURLMcode code = curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, callback);
    return code != CURLM_OK ? code : curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, context);
}

static inline CURLMcode gbn_curl_multi_setopt_timer_callback(CURLM *multi, gbn_curl_timer_callback callback, void *context) {
    CURLMcode code = curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, callback);
    return code != CURLM_OK ? code : curl_multi_setopt(multi, CURLMOPT_TIMERDATA, context);
}

static const int gbn_curl_poll_in = CURL_POLL_IN;
static const int gbn_curl_poll_out = CURL_POLL_OUT;
static const int gbn_curl_poll_remove = CURL_POLL_REMOVE;
static const int gbn_curl_cselect_in = CURL_CSELECT_IN;
static const int gbn_curl_cselect_out = CURL_CSELECT_OUT;
static const int gbn_curl_cselect_err = CURL_CSELECT_ERR;
static const curl_socket_t gbn_curl_socket_timeout = CURL_SOCKET_TIMEOUT;

/* CURL_GLOBAL_ALL is a macro built from other macros; spelled out here so Swift sees one constant. */
static const long gbn_curl_global_all = CURL_GLOBAL_ALL;

/* For streams: a write callback's "pause this transfer", and curl_easy_pause's "go on". */
static const size_t gbn_curl_writefunc_pause = CURL_WRITEFUNC_PAUSE;
static const int gbn_curlpause_cont = CURLPAUSE_CONT;
