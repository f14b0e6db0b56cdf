#!/usr/bin/env python3
"""cert_facts.py OUT PEM:HOST:LEVEL...: the expected pins of the bench PKI.

For each PEM certificate, the SHA-256 of its DER SubjectPublicKeyInfo in
base64 (a `sha256/` pin) and its notAfter as `openssl x509 -enddate` prints
it, one `host<TAB>level<TAB>pin<TAB>notAfter` line each (expected-pins.tsv).
The DER is walked here, in a few lines of Python, so the expected values do
not come from any of the programs the benchmark checks.
"""
import base64
import datetime as dt
import hashlib
import sys


def read_element(der, offset):
    """(tag, header_length, content_length) of the element at offset."""
    tag = der[offset]
    first = der[offset + 1]
    if first < 0x80:
        return tag, 2, first
    count = first & 0x7F
    length = int.from_bytes(der[offset + 2:offset + 2 + count], "big")
    return tag, 2 + count, length


def children(der, offset):
    """Offsets of the elements inside the constructed element at offset."""
    _, header, length = read_element(der, offset)
    position, end = offset + header, offset + header + length
    while position < end:
        yield position
        _, child_header, child_length = read_element(der, position)
        position += child_header + child_length


def facts(pem_text):
    body = "".join(line for line in pem_text.splitlines() if line and not line.startswith("-----"))
    der = base64.b64decode(body)
    tbs = next(children(der, 0))
    fields = list(children(der, tbs))
    if der[fields[0]] == 0xA0:  # [0] version
        fields = fields[1:]
    # serial, signature, issuer, validity, subject, subjectPublicKeyInfo
    validity, spki = fields[3], fields[5]
    _, header, length = read_element(der, spki)
    pin = base64.b64encode(hashlib.sha256(der[spki:spki + header + length]).digest()).decode()
    not_after_at = list(children(der, validity))[1]
    tag, header, length = read_element(der, not_after_at)
    text = der[not_after_at + header:not_after_at + header + length].decode()
    when = dt.datetime.strptime(text, "%y%m%d%H%M%SZ" if tag == 0x17 else "%Y%m%d%H%M%SZ")
    # openssl's enddate form: "Mar  1 12:00:00 2027 GMT" (day padded to 2).
    return pin, f"{when.strftime('%b')} {when.day:2d} {when.strftime('%H:%M:%S %Y')} GMT"


def main():
    out_path, specs = sys.argv[1], sys.argv[2:]
    with open(out_path, "w") as out:
        for spec in specs:
            path, host, level = spec.rsplit(":", 2)
            with open(path) as f:
                pin, not_after = facts(f.read())
            out.write(f"{host}\t{level}\t{pin}\t{not_after}\n")


if __name__ == "__main__":
    main()
