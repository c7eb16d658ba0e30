"""Test certificates, made with the `cryptography` package (python3-cryptography).

`make_certs(directory)` writes PEM files for two CAs and a leaf for each
way a server's certificate can be wrong, and returns their paths:

| name | what it is |
|---|---|
| `ca` | the test CA (give its `cert` to `--ca-certificate`) |
| `other_ca` | a CA nobody here trusts |
| `valid` | IP:127.0.0.1, signed by the test CA |
| `self_signed` | IP:127.0.0.1, signed by its own key |
| `unknown_issuer` | IP:127.0.0.1, signed by the other CA |
| `wrong_name` | DNS:other.example only, signed by the test CA |
| `expired` | IP:127.0.0.1, signed by the test CA, ended a day ago |

Each entry is a `Pair(cert, key)` of paths, so `FaultServer(tls=pair)`
serves it. A server presents its leaf alone (no chain): a client that
trusts the test CA can verify `valid`, and for `unknown_issuer` it finds
no issuer at all. Keys are EC P-256, which is fast to make.
"""

import datetime
import ipaddress
from pathlib import Path
from typing import NamedTuple

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

LOOPBACK = ipaddress.IPv4Address("127.0.0.1")


class Pair(NamedTuple):
    """Paths of a PEM certificate and its PEM private key."""

    cert: str
    key: str


def _name(common_name):
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "downloadfs tests"),
                      x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _write(directory, stem, cert, key):
    cert_path, key_path = Path(directory) / f"{stem}.pem", Path(directory) / f"{stem}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return Pair(str(cert_path), str(key_path))


def _ca(common_name, now):
    key = ec.generate_private_key(ec.SECP256R1())
    name = _name(common_name)
    cert = (x509.CertificateBuilder()
            .subject_name(name).issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=365))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True,
                                         crl_sign=True, content_commitment=False,
                                         key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False,
                                         decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                           critical=False)
            .sign(key, hashes.SHA256()))
    return cert, key


def _leaf(common_name, alt_names, issuer, now, not_before=None, not_after=None):
    """A server certificate; `issuer` is (ca_cert, ca_key), or None for self-signed."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = _name(common_name)
    if issuer is None:
        issuer_name, signing_key, issuer_public = subject, key, key.public_key()
    else:
        issuer_name, signing_key, issuer_public = issuer[0].subject, issuer[1], \
            issuer[1].public_key()
    cert = (x509.CertificateBuilder()
            .subject_name(subject).issuer_name(issuer_name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(not_before or now - datetime.timedelta(days=1))
            .not_valid_after(not_after or now + datetime.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.SubjectAlternativeName(alt_names), critical=False)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                           critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                           critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_public),
                           critical=False)
            .sign(signing_key, hashes.SHA256()))
    return cert, key


def make_certs(directory):
    """Write the CAs and leaves described above into `directory`; return {name: Pair}."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ip = [x509.IPAddress(LOOPBACK)]
    ca = _ca("downloadfs test CA", now)
    other_ca = _ca("downloadfs other CA", now)
    made = {
        "ca": ca,
        "other_ca": other_ca,
        "valid": _leaf("127.0.0.1", ip, ca, now),
        "self_signed": _leaf("127.0.0.1", ip, None, now),
        "unknown_issuer": _leaf("127.0.0.1", ip, other_ca, now),
        "wrong_name": _leaf("other.example", [x509.DNSName("other.example")], ca, now),
        "expired": _leaf("127.0.0.1", ip, ca, now,
                         not_before=now - datetime.timedelta(days=30),
                         not_after=now - datetime.timedelta(days=1)),
    }
    return {stem: _write(directory, stem, cert, key) for stem, (cert, key) in made.items()}
