// CDigest: streaming message digests from OpenSSL's libcrypto (EVP API),
// used to verify `checksum=` (R56). The EVP context is opaque to Swift.
#ifndef CDIGEST_H
#define CDIGEST_H
#include <stddef.h>

typedef struct cdigest cdigest;
/// name: "md5", "sha1", "sha256", "sha512"; NULL when unknown.
cdigest *cdigest_new(const char *name);
int cdigest_update(cdigest *d, const void *data, size_t len);
/// Writes the digest to out (at least 64 bytes); returns its length, or -1.
int cdigest_final(cdigest *d, unsigned char *out);
void cdigest_free(cdigest *d);
#endif
