#include "CCertificate.h"
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <stdio.h>

int ccertificate_count_in_ca_file(const char *path, char *why, size_t why_size) {
    if (why_size > 0) why[0] = '\0';
    // The thread's error queue may hold older errors; only this load's count.
    ERR_clear_error();
    X509_STORE *store = X509_STORE_new();
    if (store == NULL) return -1;
    int count = -1;
    if (X509_STORE_load_file(store, path) == 1) {
        count = 0;
        STACK_OF(X509_OBJECT) *objects = X509_STORE_get0_objects(store);
        for (int i = 0; i < sk_X509_OBJECT_num(objects); i++) {
            if (X509_OBJECT_get_type(sk_X509_OBJECT_value(objects, i)) == X509_LU_X509) count++;
        }
    } else if (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_NO_CERTIFICATE_OR_CRL_FOUND) {
        // Empty, not PEM at all, or PEM of something else (a private key).
        count = 0;
    } else {
        // A PEM block it could not read: the first error says why ("bad
        // base64 decode"), the last only where ("PEM lib").
        unsigned long error = ERR_peek_error();
        const char *reason = error != 0 ? ERR_reason_error_string(error) : NULL;
        if (reason != NULL && why_size > 0) snprintf(why, why_size, "%s", reason);
    }
    ERR_clear_error();
    X509_STORE_free(store);
    return count;
}
