import CCurl

/// `curl_global_init` must run once, before any other libcurl call and not concurrently with
/// one. A global's initialiser runs lazily, exactly once, under a lock, which is exactly that.
let libcurlGlobalInit: CURLcode = curl_global_init(gbn_curl_global_all)
