#!/usr/bin/env python3
"""check_plot_png.py — `mls plot --out X.png`: a real PNG of the chart mls draws as SVG.

Checked: the file is a PNG (signature, chunk CRCs), its IHDR is the SVG's size at scale 2
(720 px wide -> 1440), its pixels decode (zlib) and are not blank (some are far from white: the
lines and text), two runs give the same bytes, `--format png` without --out is a usage error
(64, nothing written to a terminal), and a table the run lacks is still plot.table (64). And the
documentation says so: docs/report.md describes `--format png` and nowhere claims that PNG output
is not written (issue #36: it did, while `--format png` worked).

usage: check_plot_png.py MLS REPO_ROOT
"""
import os
import re
import struct
import subprocess
import sys
import tempfile
import zlib


def chunks(data):
    pos = 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            raise ValueError("bad CRC in chunk %r" % kind)
        yield kind, body
        pos += 12 + length


def main():
    mls, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    scenario = os.path.join(root, "scenarios", "thousand_gpus.mls")
    problems = []
    with tempfile.TemporaryDirectory() as work:
        outs = []
        for i in range(2):
            png = os.path.join(work, "plot%d.png" % i)
            p = subprocess.run([mls, "plot", scenario, "scale", "--y", "step_s,mfu_pct", "--out", png],
                               capture_output=True, timeout=300)
            if p.returncode != 0:
                print("mls plot --out X.png exited %d: %s" % (p.returncode, p.stderr.decode()))
                return 1
            with open(png, "rb") as f:
                outs.append(f.read())
        data = outs[0]
        if outs[0] != outs[1]:
            problems.append("two runs wrote different PNG bytes")
        if data[:8] != b"\x89PNG\r\n\x1a\n":
            print("not a PNG: %r" % data[:8])
            return 1
        try:
            parts = list(chunks(data))
        except ValueError as e:
            print(str(e))
            return 1
        ihdr = dict(parts)[b"IHDR"]
        width, height, depth, colour = struct.unpack(">IIBB", ihdr[:10])
        if width != 1440 or not 400 < height < 4000:
            problems.append("PNG is %dx%d, expected 1440 wide (720 px SVG at scale 2)" % (width, height))
        raw = zlib.decompress(b"".join(body for kind, body in parts if kind == b"IDAT"))
        channels = {2: 3, 6: 4}.get(colour, 1)
        if depth != 8 or len(raw) != height * (1 + width * channels):
            problems.append("PNG pixel data: depth %d colour type %d, %d bytes" % (depth, colour, len(raw)))
        dark = sum(1 for b in raw if b < 128)
        if dark < 2000:
            problems.append("the PNG looks blank (%d dark bytes)" % dark)
        p = subprocess.run([mls, "plot", scenario, "scale", "--format", "png"], capture_output=True, timeout=300)
        if p.returncode != 64 or p.stdout:
            problems.append("--format png without --out: exit %d, %d bytes on stdout" % (p.returncode, len(p.stdout)))
        p = subprocess.run([mls, "plot", scenario, "nope", "--out", os.path.join(work, "x.png")], capture_output=True,
                           timeout=300)
        if p.returncode != 64 or b"plot.table" not in p.stderr or os.path.exists(os.path.join(work, "x.png")):
            problems.append("unknown table with --out X.png: exit %d: %s" % (p.returncode, p.stderr.decode()))
    with open(os.path.join(root, "docs", "report.md"), encoding="utf-8") as f:
        doc = " ".join(f.read().split())
    if "`--format png`" not in doc or re.search(r"PNG output is not written|no PNG|cannot write PNG", doc, re.I):
        problems.append("docs/report.md does not describe `--format png` as written by mls plot")
    if problems:
        print("\n".join(problems))
        return 1
    print("ok: mls plot --out X.png writes a %dx%d PNG with content, the same bytes twice" % (width, height))
    return 0


if __name__ == "__main__":
    sys.exit(main())
