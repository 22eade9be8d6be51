#!/usr/bin/env python3
"""scripts/sass_loops.py without nvdisasm: the cubin out of a .tlcubin, the ELF header rewritten
for CUDA 11.8's nvdisasm, and loops found in a control-flow graph as nvdisasm -bbcfg -poff writes
it (a loop of two blocks with a branch out of it, a forward edge that is no loop)."""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import sass_loops  # noqa: E402

failures = []
checks = 0


def expect(what, got, want):
    global checks
    checks += 1
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


def elf(osabi, abi, flags):
    head = bytearray(64)
    head[0:4] = sass_loops.ELF_MAGIC
    head[7], head[8] = osabi, abi
    struct.pack_into("<I", head, 0x30, flags)
    return bytes(head) + b"text"


# A CUDA 13 cubin for sm_90 (e_flags 0x0a005a04) gets CUDA 11's layout; an old one is left alone.
new = elf(0x41, 8, 0x0A005A04)
old = sass_loops.with_old_header(new)
expect("OS ABI, ABI version", (old[7], old[8]), (0x33, 7))
expect("e_flags", struct.unpack_from("<I", old, 0x30)[0], 0x005A055A)
expect("the rest", old[64:], b"text")
expect("already old", sass_loops.with_old_header(old), old)

# A .tlcubin: a CBOR map whose "cubin" holds the ELF bytes (a 2-byte length here), other keys around.
cubin = new + bytes(300)
tl = b"\xa3\x68checksum\x1b" + bytes(8) + b"\x65cubin\x59" + len(cubin).to_bytes(2, "big") + cubin + b"\x65entry\x61k"
expect("cubin from .tlcubin", sass_loops.cbor_bytes_after(tl, "cubin"), cubin)
try:
    sass_loops.cbor_bytes_after(b"\xa1\x65entry\x61k", "cubin")
    refused = False
except ValueError:
    refused = True
expect("a file without a cubin refused", refused, True)


def block(name, rows):
    body = "\\l".join(f"{a:04x}:\\ \\ \\ {t.replace(' ', chr(92) + ' ')}\\ ;" for a, t in rows)
    return f'"{name}"\n[label="{{<entry>{body}\\l|<exit0>}}"]\n'


dot = (block("BB0", [(0x00, "MOV R1, R2")]) +
       block(".L_x_1", [(0x10, "FFMA R3, R4, R5, R3"), (0x20, "@P0 BRA `(.L_x_3)")]) +
       block("BB2", [(0x30, "IMAD.MOV.U32 R6, RZ, RZ, R3"), (0x40, "@!P1 BRA `(.L_x_1)")]) +
       block(".L_x_3", [(0x50, "EXIT")]) +
       '"BB0":exit0:s -> ".L_x_1":entry:n [style=solid];\n'
       '".L_x_1":exit0:e -> ".L_x_3":entry:n [style=solid];\n'
       '".L_x_1":exit0:s -> "BB2":entry:n [style=solid];\n'
       '"BB2":exit0:e -> ".L_x_1":entry:n [style=solid];\n'
       '"BB2":exit0:s -> ".L_x_3":entry:n [style=solid];\n')
blocks, edges = sass_loops.parse_cfg(dot)
expect("blocks", sorted(blocks), [".L_x_1", ".L_x_3", "BB0", "BB2"])
expect("instructions of .L_x_1", blocks[".L_x_1"], [(0x10, "FFMA R3, R4, R5, R3"), (0x20, "@P0 BRA `(.L_x_3)")])
found = sass_loops.loops(blocks, edges)
expect("loops", [(f, l, len(b)) for f, l, b in found], [(0x10, 0x40, 4)])
expect("opcodes", [sass_loops.opcode(t) for _, t in found[0][2]], ["FFMA", "BRA", "IMAD.MOV", "BRA"])
expect("moves in the summary", "4 instructions, 1 moves; BRA 2" in sass_loops.summary(*found[0], 3), True)

for f in failures:
    print("FAIL:", f)
print(f"{checks - len(failures)} of {checks} checks as expected")
sys.exit(1 if failures else 0)
