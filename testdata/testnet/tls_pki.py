# SPDX-License-Identifier: BSD-3-Clause
"""Test certificates made at test time (python3-cryptography): a CA, and
server certificates signed by it for given names, expired ones, and ones
from a CA nobody trusts. ECDSA P-256 keys: quick to make."""
import datetime
import os

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def _key():
    return ec.generate_private_key(ec.SECP256R1())


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def _pem_key(key):
    return key.private_bytes(serialization.Encoding.PEM,
                             serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


class CA:
    """A certificate authority; cert_file is its PEM certificate (the
    tls-cert-bundle of a client that trusts it)."""

    def __init__(self, workdir, name="Test DNS CA"):
        self.dir = workdir
        self.key = _key()
        now = datetime.datetime.utcnow()
        subj = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        self.name = subj
        self.cert = (x509.CertificateBuilder()
                     .subject_name(subj).issuer_name(subj)
                     .public_key(self.key.public_key())
                     .serial_number(x509.random_serial_number())
                     .not_valid_before(now - datetime.timedelta(days=1))
                     .not_valid_after(now + datetime.timedelta(days=30))
                     .add_extension(x509.BasicConstraints(ca=True,
                                                          path_length=None),
                                    critical=True)
                     .add_extension(x509.KeyUsage(
                         digital_signature=True, key_cert_sign=True,
                         crl_sign=True, content_commitment=False,
                         key_encipherment=False, data_encipherment=False,
                         key_agreement=False, encipher_only=False,
                         decipher_only=False), critical=True)
                     .sign(self.key, hashes.SHA256()))
        tag = name.lower().replace(" ", "_")
        self.cert_file = _write(os.path.join(workdir, tag + ".pem"),
                                self.cert.public_bytes(
                                    serialization.Encoding.PEM))

    def server(self, tag, names, expired=False):
        """(certificate file, key file) for a server with names as DNS
        subjectAltNames; expired: valid only in the past."""
        key = _key()
        now = datetime.datetime.utcnow()
        if expired:
            start = now - datetime.timedelta(days=10)
            end = now - datetime.timedelta(days=1)
        else:
            start = now - datetime.timedelta(days=1)
            end = now + datetime.timedelta(days=30)
        cert = (x509.CertificateBuilder()
                .subject_name(x509.Name([x509.NameAttribute(
                    NameOID.COMMON_NAME, names[0])]))
                .issuer_name(self.name)
                .public_key(key.public_key())
                .serial_number(x509.random_serial_number())
                .not_valid_before(start).not_valid_after(end)
                .add_extension(x509.SubjectAlternativeName(
                    [x509.DNSName(n) for n in names]), critical=False)
                .add_extension(x509.BasicConstraints(ca=False,
                                                     path_length=None),
                               critical=True)
                .sign(self.key, hashes.SHA256()))
        certf = _write(os.path.join(self.dir, tag + ".pem"),
                       cert.public_bytes(serialization.Encoding.PEM))
        keyf = _write(os.path.join(self.dir, tag + ".key"), _pem_key(key))
        os.chmod(keyf, 0o600)
        return certf, keyf
