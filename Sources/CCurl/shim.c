#include "CCurl.h"

CURLcode ccurl_easy_setopt_long(CURL *h, CURLoption option, long value) { return curl_easy_setopt(h, option, value); }
CURLcode ccurl_easy_setopt_off(CURL *h, CURLoption option, curl_off_t value) { return curl_easy_setopt(h, option, value); }
CURLcode ccurl_easy_setopt_string(CURL *h, CURLoption option, const char *value) { return curl_easy_setopt(h, option, value); }
CURLcode ccurl_easy_setopt_pointer(CURL *h, CURLoption option, void *value) { return curl_easy_setopt(h, option, value); }
CURLcode ccurl_easy_setopt_slist(CURL *h, CURLoption option, struct curl_slist *value) { return curl_easy_setopt(h, option, value); }
CURLcode ccurl_easy_setopt_data_callback(CURL *h, CURLoption option, ccurl_data_callback cb) { return curl_easy_setopt(h, option, cb); }

CURLcode ccurl_easy_getinfo_long(CURL *h, CURLINFO info, long *out) { return curl_easy_getinfo(h, info, out); }
CURLcode ccurl_easy_getinfo_off(CURL *h, CURLINFO info, curl_off_t *out) { return curl_easy_getinfo(h, info, out); }
CURLcode ccurl_easy_getinfo_string(CURL *h, CURLINFO info, char **out) { return curl_easy_getinfo(h, info, out); }
CURLcode ccurl_easy_getinfo_pointer(CURL *h, CURLINFO info, void **out) { return curl_easy_getinfo(h, info, out); }

CURLMcode ccurl_multi_setopt_long(CURLM *m, CURLMoption option, long value) { return curl_multi_setopt(m, option, value); }

CURLcode ccurl_msg_result(const CURLMsg *msg) { return msg->data.result; }
