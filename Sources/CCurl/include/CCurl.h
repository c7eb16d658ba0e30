// CCurl: typed wrappers over libcurl's variadic calls.
//
// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt take a C
// variadic argument whose type depends on the option; Swift cannot call
// variadic C. One wrapper per argument type keeps the types honest
// (a curl_off_t option must get a 64-bit value, a callback a function).
#ifndef CCURL_H
#define CCURL_H

#include <curl/curl.h>
#include <stddef.h>

typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t nmemb, void *userdata);

CURLcode ccurl_easy_setopt_long(CURL *h, CURLoption option, long value);
CURLcode ccurl_easy_setopt_off(CURL *h, CURLoption option, curl_off_t value);
CURLcode ccurl_easy_setopt_string(CURL *h, CURLoption option, const char *value);
CURLcode ccurl_easy_setopt_pointer(CURL *h, CURLoption option, void *value);
CURLcode ccurl_easy_setopt_slist(CURL *h, CURLoption option, struct curl_slist *value);
CURLcode ccurl_easy_setopt_data_callback(CURL *h, CURLoption option, ccurl_data_callback cb);

CURLcode ccurl_easy_getinfo_long(CURL *h, CURLINFO info, long *out);
CURLcode ccurl_easy_getinfo_off(CURL *h, CURLINFO info, curl_off_t *out);
CURLcode ccurl_easy_getinfo_string(CURL *h, CURLINFO info, char **out);
CURLcode ccurl_easy_getinfo_pointer(CURL *h, CURLINFO info, void **out);

CURLMcode ccurl_multi_setopt_long(CURLM *m, CURLMoption option, long value);

/// The easy handle and result of a CURLMSG_DONE message (a union in C).
CURLcode ccurl_msg_result(const CURLMsg *msg);

#endif
