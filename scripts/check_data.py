#!/usr/bin/env python3
"""Checks the self-play data against data/manifest.tsv: every listed chunk is present, of
the recorded size and sha256, and every .vf file under data/ is listed (a chunk left
unrecorded, e.g. by a killed datagen round, would otherwise go unchecked and untrained).
(The structure of each file — whole games, legal moves — is checked by
`rookery data stats FILE`.) Exit status 1 on any mismatch; prints what it checked."""

import csv
import hashlib
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main() -> int:
    manifest = os.path.join(ROOT, "data", "manifest.tsv")
    if not os.path.exists(manifest):
        print("no data/manifest.tsv: nothing to check")
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
    listed = {row["file"] for row in rows}
    for dirpath, _, files in os.walk(os.path.join(ROOT, "data")):
        for name in sorted(files):
            rel = os.path.relpath(os.path.join(dirpath, name), ROOT).replace(os.sep, "/")
            if name.endswith(".vf") and rel not in listed:
                print("UNLISTED %s: not in data/manifest.tsv (record it with scripts/manifest.sh)" % rel)
                bad += 1
    positions = sum(int(r["positions"]) for r in rows)
    print("%d files, %d positions, %d bad" % (len(rows), positions, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
