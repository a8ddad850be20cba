"""A throwaway certificate authority for TLS tests and benchmarks, made with the openssl command:
a CA, a server certificate it signed for localhost and 127.0.0.1, and a second CA that signed
nothing of the server's (the wrong one to trust)."""

import shutil
import subprocess
import tempfile
from pathlib import Path


def _openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _new_key(name):
    return ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", f"{name}.key"]


def _ca(folder, name):
    _openssl("req", "-x509", *_new_key(name), "-out", f"{name}.pem", "-days", "2", "-subj", f"/CN=Breakroom test {name}",
             cwd=folder)
    return folder / f"{name}.pem"


def make(folder=None):
    """{"ca", "other", "cert", "key", "folder"}: paths to PEM files."""
    folder = Path(folder or tempfile.mkdtemp(prefix="breakroom-tls-"))
    ca = _ca(folder, "ca")
    other = _ca(folder, "other")
    _openssl("req", *_new_key("server"), "-out", "server.csr", "-subj", "/CN=localhost", cwd=folder)
    (folder / "ext.cnf").write_text(
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
    )
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
             "-out", "server.pem", "-days", "2", "-extfile", "ext.cnf", cwd=folder)
    return {"ca": ca, "other": other, "cert": folder / "server.pem", "key": folder / "server.key", "folder": folder}


def remove(made):
    shutil.rmtree(made["folder"], ignore_errors=True)
