"""go-plugin's AutoMTLS against a plugin, with grpcio's TLS and with OpenSSL: why strata does not
use it (README, "What protects the channel").

    python -m tests.plugins.mtls_probe PLUGIN_EXECUTABLE

As terraform does it: the client makes a self-signed ECDSA P-521 certificate (go-plugin's
``generateCert``: CN and DNS name ``localhost``, CA, server and client auth) and passes it in
``PLUGIN_CLIENT_CERT``; the plugin answers with its own certificate, base64 DER without padding,
in the handshake line's sixth field, and requires the client's. Then:

* ``grpcio``: GetProviderSchema over ``grpc.secure_channel`` with both certificates and
  ``grpc.ssl_target_name_override=localhost`` (without it grpcio checks the certificate against
  the unix socket's path: "Hostname Verification Check failed");
* ``openssl``: ``openssl s_client`` over the socket, TLS 1.3 with and without the signature
  scheme ``ecdsa_secp521r1_sha512``, and TLS 1.2.

What it showed (grpcio 1.85, OpenSSL 3.0): null 2.1.2 (Go 1.11: TLS 1.2 only) and the example
provider (an RSA certificate) work with grpcio; aws 3.39.0 (a Go with TLS 1.3) does not: its
certificate is P-521, TLS 1.3 binds the curve to the signature scheme, and BoringSSL (grpcio's
TLS) does not offer ``ecdsa_secp521r1_sha512``, so the plugin finds no scheme to sign with and
aborts ("SSLV3_ALERT_HANDSHAKE_FAILURE"). OpenSSL without that scheme fails the same way; with it,
or with TLS 1.2, it succeeds. grpcio's Python API can set neither the signature schemes nor the
highest TLS version.
"""

from __future__ import annotations

import base64
import datetime
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from engine.plugin.process import MAGIC_COOKIE, MAGIC_COOKIE_KEY


def client_certificate() -> tuple[bytes, bytes]:
    """go-plugin's client certificate: (certificate PEM, private key PEM), ECDSA P-521."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = ec.generate_private_key(ec.SECP521R1())
    name = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "HashiCorp"),
                      x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    usage = x509.KeyUsage(digital_signature=True, key_encipherment=True, key_cert_sign=True,
                          content_commitment=False, data_encipherment=False, key_agreement=False,
                          crl_sign=False, encipher_only=False, decipher_only=False)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(seconds=30))
            .not_valid_after(now + datetime.timedelta(hours=262980))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(usage, critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH,
                                                  ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
            .sign(key, hashes.SHA512()))
    return (cert.public_bytes(serialization.Encoding.PEM),
            key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                              serialization.NoEncryption()))


def probe(executable: Path) -> list[str]:
    """One line per attempt: what was tried and what happened."""
    import grpc
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    cert_pem, key_pem = client_certificate()
    out = []
    with tempfile.TemporaryDirectory(prefix="strata-mtls-") as tmp:
        env = {**os.environ, MAGIC_COOKIE_KEY: MAGIC_COOKIE, "PLUGIN_PROTOCOL_VERSIONS": "5,6",
               "PLUGIN_CLIENT_CERT": cert_pem.decode(), "TMPDIR": tmp, "PLUGIN_UNIX_SOCKET_DIR": tmp}
        proc = subprocess.Popen([str(executable)], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            assert proc.stdout is not None
            parts = proc.stdout.readline().decode().strip().split("|")
            raw = parts[5] if len(parts) > 5 else ""
            if not raw:
                return [f"{executable.name}: no certificate in the handshake line {'|'.join(parts)!r}"]
            server = x509.load_der_x509_certificate(base64.b64decode(raw + "=" * (-len(raw) % 4)))
            key = server.public_key()
            out.append(f"{executable.name}: protocol {parts[1]}, server certificate "
                       f"{getattr(getattr(key, 'curve', None), 'name', type(key).__name__)}")
            server_pem = server.public_bytes(serialization.Encoding.PEM)
            for f, data in (("c.pem", cert_pem), ("k.pem", key_pem), ("s.pem", server_pem)):
                Path(tmp, f).write_bytes(data)
            creds = grpc.ssl_channel_credentials(server_pem, key_pem, cert_pem)
            with grpc.secure_channel(f"unix:{parts[3]}", creds,
                                     options=[("grpc.ssl_target_name_override", "localhost")]) as ch:
                v = parts[1]
                method = "/tfplugin5.Provider/GetSchema" if v == "5" else "/tfplugin6.Provider/GetProviderSchema"
                call = ch.unary_unary(method, request_serializer=lambda _: b"", response_deserializer=len)
                try:
                    out.append(f"  grpcio: GetProviderSchema answered ({call(None, timeout=60)} bytes)")
                except grpc.RpcError as exc:
                    out.append(f"  grpcio: failed: {exc.details()}")  # type: ignore[attr-defined]
            for args in (["-tls1_3", "-sigalgs", "ECDSA+SHA256:ECDSA+SHA384:RSA-PSS+SHA256:RSA+SHA256"],
                         ["-tls1_3", "-sigalgs", "ECDSA+SHA256:ECDSA+SHA384:ECDSA+SHA512:RSA-PSS+SHA256"],
                         ["-tls1_2"]):
                r = subprocess.run(["openssl", "s_client", "-unix", parts[3], "-cert", f"{tmp}/c.pem",
                                    "-key", f"{tmp}/k.pem", "-CAfile", f"{tmp}/s.pem", "-alpn", "h2", *args],
                                   input=b"", capture_output=True, timeout=30)
                text = r.stdout.decode(errors="replace")
                got = next((ln.strip() for ln in text.splitlines() if ln.startswith("New, ")), "no session")
                out.append(f"  openssl {' '.join(args)}: {'failed' if '(NONE)' in got else 'ok'} ({got})")
        finally:
            proc.kill()
            proc.wait()
    return out


if __name__ == "__main__":
    for line in probe(Path(sys.argv[1])):
        print(line)
