"""Certificates for tests, made by the real openssl: a CA, a second CA that signed nothing the
daemon serves, a server certificate for given subject alternative names, and the same server
certificate already expired.

    certs = make_test_certificates(workdir, sans=["IP:127.0.0.1"])
    certs.ca, certs.other_ca, certs.server_cert, certs.server_key,
    certs.expired_cert, certs.expired_key

Files live in WORKDIR/certs (the caller removes WORKDIR). Runs in about a second; with
reuse=True, certificates made earlier in WORKDIR are kept (a daemon restarted on them still
matches the CA its clients hold).
"""
import os
import subprocess
from types import SimpleNamespace

# `openssl ca` is the one openssl command of Debian 12 (OpenSSL 3.0) that sets an arbitrary
# validity window, which an expired certificate needs.
CA_CONFIG = """[ ca ]
default_ca = test_ca
[ test_ca ]
dir = .
database = index.txt
new_certs_dir = .
serial = serial
default_md = sha256
policy = any_name
copy_extensions = copy
unique_subject = no
[ any_name ]
commonName = supplied
"""


def _run(args, cwd):
    p = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {p.stderr}")


def make_test_certificates(workdir, sans=("IP:127.0.0.1",), days=2, reuse=False):
    d = os.path.join(workdir, "certs")
    p = lambda n: os.path.join(d, n)
    made = SimpleNamespace(ca=p("ca.pem"), other_ca=p("other-ca.pem"),
                           server_cert=p("server.pem"), server_key=p("server.key"),
                           expired_cert=p("expired.pem"), expired_key=p("expired.key"))
    if reuse and all(os.path.exists(f) for f in vars(made).values()):
        return made
    os.makedirs(d, exist_ok=True)
    for name, cn in (("ca", "toporr-test-ca"), ("other-ca", "toporr-other-ca")):
        _run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
              f"{name}.key", "-out", f"{name}.pem", "-days", str(days), "-subj", f"/CN={cn}"], d)
    with open(os.path.join(d, "ca.cnf"), "w") as f:
        f.write(CA_CONFIG)
    open(os.path.join(d, "index.txt"), "w").close()
    with open(os.path.join(d, "serial"), "w") as f:
        f.write("1000\n")
    san = "subjectAltName=" + ",".join(sans)
    for name, window in (("server", ["-days", str(days)]),
                         ("expired", ["-startdate", "20200101000000Z",
                                      "-enddate", "20200102000000Z"])):
        _run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key",
              "-out", f"{name}.csr", "-subj", "/CN=toporrd", "-addext", san], d)
        _run(["openssl", "ca", "-batch", "-config", "ca.cnf", "-cert", "ca.pem", "-keyfile",
              "ca.key", "-in", f"{name}.csr", "-out", f"{name}.pem", "-notext"] + window, d)
    return made


def tls_listener(cert, key):
    """A free loopback address and the toporrd.conf lines that make a daemon listen there
    over TLS with `cert` and `key`: (address, config text)."""
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"
    return address, (f"listen_address = {address}\ntls_cert_path = {cert}\n"
                     f"tls_key_path = {key}\n")
