#include "CDigest.h"
#include <openssl/evp.h>
#include <stdlib.h>

struct cdigest { EVP_MD_CTX *ctx; };

cdigest *cdigest_new(const char *name) {
    const EVP_MD *md = EVP_get_digestbyname(name);
    if (md == NULL) return NULL;
    cdigest *d = malloc(sizeof(*d));
    if (d == NULL) return NULL;
    d->ctx = EVP_MD_CTX_new();
    if (d->ctx == NULL || EVP_DigestInit_ex(d->ctx, md, NULL) != 1) {
        EVP_MD_CTX_free(d->ctx);
        free(d);
        return NULL;
    }
    return d;
}
int cdigest_update(cdigest *d, const void *data, size_t len) { return EVP_DigestUpdate(d->ctx, data, len) == 1 ? 0 : -1; }
int cdigest_final(cdigest *d, unsigned char *out) {
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(d->ctx, out, &len) != 1) return -1;
    return (int)len;
}
void cdigest_free(cdigest *d) { if (d) { EVP_MD_CTX_free(d->ctx); free(d); } }
