#!/usr/bin/env python3
"""Checks every file listed in data/manifest.tsv, data/mcts/manifest.tsv,
data/human/manifest.tsv and data/human/labels/manifest.tsv: present, of the recorded
size and sha256, and (data/manifest.tsv) a valid `starts` column; and every data file
under data/ (.vf self-play chunks, .mcv MCTS visit counts, .rkh human games) is listed
(a chunk left unrecorded, e.g. by a killed datagen round, would
otherwise go unchecked and untrained). (The structure of each file — whole games, legal moves — is
checked by `rookery data stats FILE` / `rookery human-data stats FILE`, and for the human
files by tests/human_data.rs.) Exit status 1 on any mismatch; prints what it checked."""

import csv
import hashlib
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


MANIFESTS = [
    os.path.join(ROOT, "data", "manifest.tsv"),
    os.path.join(ROOT, "data", "mcts", "manifest.tsv"),
    os.path.join(ROOT, "data", "human", "manifest.tsv"),
    os.path.join(ROOT, "data", "human", "labels", "manifest.tsv"),
]


def starts_error(value):
    """Why a self-play row's `starts` value is not valid (None if it is): `standard`, or
    `chess960=F/double=D` with F and D fractions from 0 to 1 (datagen's --chess960 and
    --double-chess960). A row without the column was written before it: standard."""
    if value is None or value == "standard":
        return None
    fields = dict(part.partition("=")[::2] for part in value.split("/"))
    if sorted(fields) != ["chess960", "double"] or len(value.split("/")) != 2:
        return "starts %r is neither 'standard' nor 'chess960=F/double=D'" % value
    for name, text in fields.items():
        try:
            fraction = float(text)
        except ValueError:
            return "starts %r: %s is not a number" % (value, name)
        if not 0.0 <= fraction <= 1.0:
            return "starts %r: %s is not a fraction from 0 to 1" % (value, name)
    return None


def check(manifest: str, listed: set) -> int:
    """Checks one manifest's files, adding them to `listed`; returns the number of bad ones."""
    if not os.path.exists(manifest):
        print("MISSING manifest %s" % os.path.relpath(manifest, ROOT))
        return 1
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
        elif starts_error(row.get("starts")):
            print("BAD %s: %s" % (row["file"], starts_error(row.get("starts"))))
            bad += 1
        else:
            print("ok %s: %s games, %s positions" % (row["file"], row["games"], row["positions"]))
    listed.update(row["file"] for row in rows)
    positions = sum(int(r["positions"]) for r in rows)
    print("%s: %d files, %d positions, %d bad" % (
        os.path.relpath(manifest, ROOT), len(rows), positions, bad))
    return bad


def unlisted(listed: set) -> int:
    """Data files under data/ that no manifest lists; returns their number."""
    bad = 0
    for dirpath, _, files in os.walk(os.path.join(ROOT, "data")):
        for name in sorted(files):
            rel = os.path.relpath(os.path.join(dirpath, name), ROOT).replace(os.sep, "/")
            if name.endswith((".vf", ".mcv", ".rkh", ".tsv.gz")) and rel not in listed:
                print("UNLISTED %s: in no manifest (scripts/manifest.sh records self-play "
                      "chunks; data/human/README.md says how human files are recorded)" % rel)
                bad += 1
    return bad


def main() -> int:
    listed: set = set()
    bad = sum(check(m, listed) for m in MANIFESTS)
    bad += unlisted(listed)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
