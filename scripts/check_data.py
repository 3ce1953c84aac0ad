#!/usr/bin/env python3
"""Checks every file listed in data/manifest.tsv and data/human/manifest.tsv: present, of
the recorded size and sha256. (The structure of each file — whole games, legal moves — is
checked by `rookery data stats FILE` / `rookery human-data stats FILE`, and for the human
files by tests/human_data.rs.) Exit status 1 on any mismatch; prints what it checked."""

import csv
import hashlib
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


MANIFESTS = [
    os.path.join(ROOT, "data", "manifest.tsv"),
    os.path.join(ROOT, "data", "human", "manifest.tsv"),
]


def check(manifest: str) -> int:
    """Checks one manifest's files; returns the number of bad ones."""
    if not os.path.exists(manifest):
        print("no %s: nothing to check" % os.path.relpath(manifest, ROOT))
        return 0
    bad = 0
    with open(manifest, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    for row in rows:
        path = os.path.join(ROOT, row["file"])
        if not os.path.exists(path):
            print("MISSING %s" % row["file"])
            bad += 1
            continue
        data = open(path, "rb").read()
        sha = hashlib.sha256(data).hexdigest()
        if len(data) != int(row["bytes"]) or sha != row["sha256"]:
            print("MISMATCH %s: %d bytes sha256 %s, manifest %s bytes %s" % (
                row["file"], len(data), sha, row["bytes"], row["sha256"]))
            bad += 1
        else:
            print("ok %s: %s games, %s positions" % (row["file"], row["games"], row["positions"]))
    positions = sum(int(r["positions"]) for r in rows)
    print("%s: %d files, %d positions, %d bad" % (
        os.path.relpath(manifest, ROOT), len(rows), positions, bad))
    return bad


def main() -> int:
    bad = sum(check(m) for m in MANIFESTS)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
