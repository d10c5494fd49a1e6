#!/usr/bin/env python3
"""Writes the seed corpora of the importer fuzz targets into fuzz/corpus/import_*/.

Seeds are small slices of the real graphs in testdata/real, the mangled Matrix Market files of
testdata/real/bad, the repository's parser fixtures, and a few
hand-made hostile inputs; each is laid out as its target reads it (crates/diskgraph-fuzz/src/
importers.rs: an options byte for csv, bin32/bin64 and gzip, cut lengths for bvgraph). Run
from the repository root: python3 scripts/fuzz_seeds.py. Existing files are overwritten, others
kept (so it can run again after `cargo fuzz cmin`).
"""

import gzip
import hashlib
import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "testdata" / "real"
INPUTS = ROOT / "testdata" / "inputs"
CORPUS = ROOT / "fuzz" / "corpus"
MAX_SEED = 16 << 10


def put(target: str, name: str, data: bytes) -> None:
    """Writes one seed (capped at MAX_SEED bytes)."""
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data[:MAX_SEED])


def head(path: Path, lines: int) -> bytes:
    """The first `lines` lines of a file."""
    with open(path, "rb") as f:
        return b"".join(f.readline() for _ in range(lines))


def edges_of(text: bytes) -> list[tuple[int, int]]:
    """The `u v` pairs of a whitespace edge list (comments skipped)."""
    out = []
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 2 and f[0][:1] not in (b"#", b"%"):
            out.append((int(f[0]), int(f[1])))
    return out


def gamma(bits: list[int], x: int) -> None:
    """Appends WebGraph's γ code of x."""
    v = x + 1
    msb = v.bit_length() - 1
    bits.extend([0] * msb + [1])
    bits.extend((v >> i) & 1 for i in range(msb - 1, -1, -1))


def bvgraph_seed(lists: list[list[int]]) -> bytes:
    """A BVGraph (window 0, no intervals, γ codes) laid out as import_bvgraph reads it."""
    bits: list[int] = []
    for x, succ in enumerate(lists):
        gamma(bits, len(succ))
        prev = None
        for s in sorted(succ):
            if prev is None:
                d = s - x
                gamma(bits, 2 * d if d >= 0 else -2 * d - 1)
            else:
                gamma(bits, s - prev - 1)
            prev = s
    bits.extend([0] * (-len(bits) % 8))
    graph = bytes(int("".join(map(str, bits[i : i + 8])), 2) for i in range(0, len(bits), 8))
    arcs = sum(len(s) for s in lists)
    flags = "|".join(f"{c}_GAMMA" for c in ["OUTDEGREES", "REFERENCES", "BLOCK_COUNT", "BLOCKS", "INTERVALS", "RESIDUALS"])
    props = (
        f"graphclass=it.unimi.dsi.webgraph.BVGraph\nversion=0\nnodes={len(lists)}\narcs={arcs}\n"
        f"windowsize=0\nminintervallength=0\ncompressionflags={flags}\n"
    ).encode()
    return struct.pack("<HH", len(props), 0) + props + graph


def main() -> None:
    texts = {
        "wiki-Vote": head(DATA / "wiki-Vote.txt", 60),
        "as20graph": head(DATA / "as20graph.txt", 60),
        "email-Eu-core": head(DATA / "email-Eu-core.txt", 60),
        "tiny-crlf": (INPUTS / "tiny-crlf.txt").read_bytes(),
    }
    for name, text in texts.items():
        put("import_snap", name, text)
    put("import_snap", "weighted", b"# u v w\n0 1 1.5\n1 2 -2\n2 0 3e3\n")
    put("import_snap", "bom-and-blank", b"\xef\xbb\xbf\n\n% c\n5 7 extra columns\n7 5\n")
    put("import_snap", "huge-ids", b"18446744073709551615 0\n4294967296 1\n")

    gap = DATA / "gapbs-tiny" / "graphs"
    put("import_el", "4.el", (gap / "4.el").read_bytes())
    put("import_wel", "4.wel", (gap / "4.wel").read_bytes())
    put("import_wel", "tiny.wel", (INPUTS / "tiny.wel").read_bytes())
    put("import_el", "self-loops-dups", b"0 0\n0 1\n0 1\n1 0\n")

    for p in sorted((DATA / "bad").glob("*.mtx")) + sorted(DATA.glob("*.mtx")) + [gap / "4.mtx", gap / "4w.mtx"]:
        put("import_mtx", p.name, p.read_bytes())
    put("import_mtx", "tiny-symmetric.mtx", (INPUTS / "tiny-symmetric.mtx").read_bytes())

    rome = head(DATA / "rome99.gr", 80)
    arcs = [l for l in rome.splitlines() if l.startswith(b"a ")]
    put("import_dimacs", "rome99-head.gr", b"c rome99, first arcs\np sp 3353 %d\n" % len(arcs) + b"\n".join(arcs) + b"\n")
    put("import_dimacs", "4.gr", (gap / "4.gr").read_bytes())
    put("import_dimacs", "tiny.gr", (INPUTS / "tiny.gr").read_bytes())

    konect = head(DATA / "foodweb-baydry.konect", 60)
    put("import_konect", "foodweb-baydry-head", konect)
    put("import_konect", "out.tiny-sym", (INPUTS / "out.tiny-sym").read_bytes())
    put("import_konect", "counted", b"% asym positive\n% 3 4 4\n1 2 1.5 100\n2 3 2 101\n4 1 1 102\n")

    csvs = {
        "ints": b"src,dst\n0,1\n1,2\n2,0\n",
        "names": b"from,to,weight\nalice,bob,1.5\nbob,\"carol, jr\",2\ncarol,alice,0.5\n",
        "noheader": b"a,b\nb,c\nc,a\n",
        "tsv": b"# comment\n1\t2\t3.5\n2\t3\t1\n",
        "semicolon": b"x;y;w\n1;2;3\n2;3;4\n",
        "quoted": b"\"s\",\"t\"\n\"1\",\"2\"\n\"2\",\"3\"\r\n",
    }
    options = {"ints": 0x00, "names": 0x10 | 0x20, "noheader": 0x02 | 0x08, "tsv": 0x02 | 0x10 | 0x80, "semicolon": 0x10 | 0xC0, "quoted": 0x01}
    for name, text in csvs.items():
        put("import_csv", name, bytes([options[name]]) + text)

    pairs = edges_of((gap / "4.el").read_bytes())
    b32 = b"".join(struct.pack("<II", u, v) for u, v in pairs)
    b64 = b"".join(struct.pack("<QQ", u, v) for u, v in pairs)
    w = b"".join(struct.pack("<f", 1.0 + i) for i in range(len(pairs)))
    put("import_bin32", "4.el", b"\x00" + b32)
    put("import_bin32", "4.el-weighted", b"\x03" + struct.pack("<H", len(b32)) + b32 + w)
    put("import_bin32", "tiny", b"\x00" + (INPUTS / "tiny.bin32").read_bytes())
    put("import_bin64", "4.el", b"\x00" + b64)
    put("import_bin64", "4.el-weighted", b"\x03" + struct.pack("<H", len(b64)) + b64 + w)
    put("import_bin64", "tiny", b"\x00" + (INPUTS / "tiny.bin64").read_bytes())

    gz_sources = [texts["wiki-Vote"], (gap / "4.mtx").read_bytes(), rome[:2000], konect[:2000], csvs["ints"]]
    for i, text in enumerate(gz_sources):
        put("import_gzip", f"plain{i}", b"\x00\x00" + text)
        put("import_gzip_raw", f"gz{i}", gzip.compress(text, mtime=0))
    put("import_gzip", "two-members", b"\x01\x00" + texts["as20graph"])
    put("import_gzip", "cut", b"\x02\x05" + texts["email-Eu-core"])
    put("import_gzip_raw", "two-members", gzip.compress(b"1 2\n", mtime=0) + gzip.compress(b"2 3\n", mtime=0))

    lists = [[1, 2, 5], [0, 2], [3, 4, 5, 6], [], [0], [1, 6], [0, 1, 2, 3]]
    put("import_bvgraph", "gamma7", bvgraph_seed(lists))
    put("import_bvgraph", "path", bvgraph_seed([[i + 1] for i in range(30)] + [[]]))
    cnr = DATA / "cnr-2000"
    props = (cnr / "cnr-2000.properties").read_bytes()
    put("import_bvgraph", "cnr-2000-head", struct.pack("<HH", len(props), 0) + props + (cnr / "cnr-2000.graph").read_bytes()[:2048])
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sorted(CORPUS.rglob("*")) if p.is_file())).hexdigest()
    print(f"seeds written under {CORPUS} (sha256 of all: {digest[:12]})")


if __name__ == "__main__":
    main()
