// CCertificate: reads a file of CA certificates the way OpenSSL's libcrypto
// reads curl's CAINFO, so a file that would fail every TLS connection
// (`--ca-certificate`, R55) is refused at mount instead.
#ifndef CCERTIFICATE_H
#define CCERTIFICATE_H
#include <stddef.h>

/// Loads `path` into a certificate store as curl's CAINFO is loaded (PEM
/// certificates and CRLs, X509_STORE_load_file) and returns how many
/// certificates it holds: 0 when it holds none (empty, not PEM, a private
/// key only), -1 when OpenSSL cannot read a PEM block of it. `why` (of
/// `why_size` bytes) gets OpenSSL's reason for the -1, or an empty string.
int ccertificate_count_in_ca_file(const char *path, char *why, size_t why_size);
#endif
