#!/usr/bin/env python3
"""Where a kernel's loops spend their instructions, read from its cubin on a machine without a GPU.

The CUDA 13 toolkit of the development machine has no cuobjdump or nvdisasm. Debian's non-free
nvidia-cuda-toolkit (CUDA 11.8) has an nvdisasm that decodes sm_90 SASS (HMMA, HGMMA and SYNCS
included) once the cubin's ELF header is written in the layout it knows: CUDA 13 moved the SM
number within e_flags (bits 8-15, was 0-7 and 16-23) and raised the OS ABI and ABI version (0x41
and 8, were 0x33 and 7). scripts/sass_local.sh fetches that nvdisasm.

A cubin comes from `nvcc -cubin`, or from TileLab's compile cache: `XDG_CACHE_HOME=DIR tilelab-cli
--model-mode compile VARIANT --set ...` leaves DIR/tilelab/*.tlcubin, the exact NVRTC cubin of
the built-in kernel (a `--source` kernel is not cached on disk; build it with nvcc).

Prints each loop (a back edge of nvdisasm's control-flow graph): its addresses, instructions,
register moves (MOV and IMAD.MOV) and its most frequent opcodes. --dump ADDR lists the loop
that starts at ADDR (hex).

Usage: scripts/sass_loops.py FILE.cubin|FILE.tlcubin [--nvdisasm PATH] [--top 16] [--dump ADDR]
"""
import argparse
import collections
import os
import re
import struct
import subprocess
import sys
import tempfile

ELF_MAGIC = b"\x7fELF"
OLD_OSABI, OLD_ABI_VERSION = 0x33, 7
OLD_FLAGS_UNIFIED_64BIT = 0x500   # EF_CUDA_TEXMODE_UNIFIED | EF_CUDA_64BIT_ADDRESS


def cbor_bytes_after(data, key):
    """The CBOR byte string that follows the text key `key` (a .tlcubin is a CBOR map)."""
    head = bytes([0x60 + len(key)]) + key.encode()
    at = data.find(head)
    if at < 0:
        raise ValueError(f"no '{key}' in the file")
    i = at + len(head)
    major, info = data[i] >> 5, data[i] & 31
    if major != 2 or info > 27:
        raise ValueError(f"'{key}' is not followed by a byte string")
    width = {24: 1, 25: 2, 26: 4, 27: 8}.get(info, 0)
    size = info if width == 0 else int.from_bytes(data[i + 1:i + 1 + width], "big")
    start = i + 1 + width
    return data[start:start + size]


def read_cubin(path):
    data = open(path, "rb").read()
    return data if data.startswith(ELF_MAGIC) else cbor_bytes_after(data, "cubin")


def with_old_header(cubin):
    """The cubin with CUDA 11's ELF header layout (unchanged if it already has it)."""
    d = bytearray(cubin)
    if not d.startswith(ELF_MAGIC):
        raise ValueError("not an ELF file")
    if d[8] < 8:
        return bytes(d)
    flags = struct.unpack_from("<I", d, 0x30)[0]
    sm = (flags >> 8) & 0xFF
    d[7], d[8] = OLD_OSABI, OLD_ABI_VERSION
    struct.pack_into("<I", d, 0x30, (sm << 16) | OLD_FLAGS_UNIFIED_64BIT | sm)
    return bytes(d)


def parse_cfg(dot):
    """nvdisasm -bbcfg -poff's graph: {block: [(address, instruction)]}, [(from, to)]."""
    blocks = {}
    for m in re.finditer(r'^"([^"]+)"\n\[label="\{(.*?)\}"\]', dot, re.M | re.S):
        rows = re.findall(r"([0-9a-f]{4,}):(?:\\ )+(.*?)(?:\\ )*;", m.group(2))
        blocks[m.group(1)] = [(int(a, 16), text.replace("\\ ", " ").strip()) for a, text in rows]
    edges = re.findall(r'^"([^"]+)":\w+:\w+ -> "([^"]+)":entry', dot, re.M)
    return blocks, edges


def opcode(instruction):
    op = re.sub(r"^@!?U?P\w+\s+", "", instruction).split()[0]
    return "IMAD.MOV" if op.startswith("IMAD.MOV") else op.split(".")[0]


def loops(blocks, edges):
    """(first, last address, ((address, instruction), ...)) of each loop: an edge back to an
    earlier block."""
    code = sorted(row for rows in blocks.values() for row in rows)
    found = set()
    for a, b in edges:
        if not blocks.get(a) or not blocks.get(b):
            continue
        first, last = blocks[b][0][0], blocks[a][-1][0]
        if first <= last:
            found.add((first, last, tuple(row for row in code if first <= row[0] <= last)))
    return sorted(found)


def summary(first, last, body, top):
    ops = collections.Counter(opcode(t) for _, t in body)
    moves = ops["MOV"] + ops["IMAD.MOV"]
    common = ", ".join(f"{op} {n}" for op, n in ops.most_common(top))
    return f"loop {first:#x}-{last:#x}: {len(body)} instructions, {moves} moves; {common}"


def disassemble(nvdisasm, cubin):
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(with_old_header(cubin))
        f.flush()
        run = subprocess.run([nvdisasm, "-bbcfg", "-poff", f.name], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"nvdisasm failed: {run.stderr.strip()}")
    return run.stdout


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--nvdisasm", default=os.path.expanduser("~/.cache/tilelab-nvdisasm/nvdisasm"))
    ap.add_argument("--top", type=int, default=16)
    ap.add_argument("--dump", help="list the loop starting at this hex address")
    a = ap.parse_args(argv)
    if not os.access(a.nvdisasm, os.X_OK):
        sys.exit(f"{a.nvdisasm}: no nvdisasm there (scripts/sass_local.sh fetches one)")
    try:
        blocks, edges = parse_cfg(disassemble(a.nvdisasm, read_cubin(a.file)))
    except (OSError, ValueError, RuntimeError) as e:
        sys.exit(f"{a.file}: {e}")
    for first, last, body in loops(blocks, edges):
        if a.dump is None:
            print(summary(first, last, body, a.top))
        elif first == int(a.dump, 16):
            print("\n".join(f"{addr:05x} {text}" for addr, text in body))


if __name__ == "__main__":
    main(sys.argv[1:])
