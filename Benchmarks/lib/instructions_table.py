#!/usr/bin/env python3
"""instructions_table.py N PINWATCH_ANNOTATED REFERENCE_ANNOTATED: the table
of Benchmarks/instructions.sh from two `callgrind_annotate --inclusive=yes`
listings.

Each row is one function's inclusive instruction count divided by N hosts.
The functions are OpenSSL's (both programs reach them the same way), so a
row compares like with like; "outside the handshake" is the total less
SSL_do_handshake: start-up, configuration, verdicts and output for pinwatch,
start-up and the TSV for the reference.
"""
import re
import sys

ROWS = [
    ("total", None),
    ("TLS handshake (SSL_do_handshake)", ["SSL_do_handshake"]),
    ("of which: chain signatures (X509_verify)", ["X509_verify"]),
    ("of which: certificate decoding (d2i_X509)", ["d2i_X509"]),
    ("of which, inside decoding: public-key decoder set-up (OSSL_DECODER_CTX_new_for_pkey)", ["OSSL_DECODER_CTX_new_for_pkey"]),
    ("of which: key exchange (EVP_PKEY_keygen + EVP_PKEY_derive)", ["EVP_PKEY_keygen", "EVP_PKEY_derive"]),
    ("outside the handshake", "outside"),
]

LINE = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(?:\?\?\?|[^:]*):(\S+)")


def read(path):
    """Inclusive count per function name; the total from PROGRAM TOTALS."""
    counts, total = {}, None
    with open(path) as listing:
        for line in listing:
            if "PROGRAM TOTALS" in line:
                total = int(line.split()[0].replace(",", ""))
                continue
            match = LINE.match(line)
            if match:
                name = match.group(2)
                # The first listing of a name is its largest inclusive count;
                # recursive entries ("name'2") are listed separately.
                counts.setdefault(name, int(match.group(1).replace(",", "")))
    if total is None:
        sys.exit(f"instructions_table: no PROGRAM TOTALS in {path}")
    return counts, total


def row_value(counts, total, functions):
    if functions is None:
        return total
    if functions == "outside":
        return total - counts.get("SSL_do_handshake", 0)
    return sum(counts.get(name, 0) for name in functions)


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: instructions_table.py N PINWATCH_ANNOTATED REFERENCE_ANNOTATED")
    hosts = int(sys.argv[1])
    pinwatch, pinwatch_total = read(sys.argv[2])
    reference, reference_total = read(sys.argv[3])
    print(f"Instructions per host (callgrind, inclusive), {hosts} farm hosts:")
    print()
    print("| | pinwatch | reference | pinwatch/reference |")
    print("|---|---:|---:|---:|")
    for label, functions in ROWS:
        ours = row_value(pinwatch, pinwatch_total, functions) / hosts
        theirs = row_value(reference, reference_total, functions) / hosts
        ratio = f"{ours / theirs:.2f}" if theirs else "–"
        print(f"| {label} | {ours / 1e6:.2f} M | {theirs / 1e6:.2f} M | {ratio} |")


if __name__ == "__main__":
    main()
