#!/usr/bin/env python3
"""The engine's direction, for headers: a file of one role includes only the internal headers of
the roles its library links (cmake/engine.cmake). The link graph catches calls across the
direction (the layer_check_* programs); this catches an include of a header-only piece, which no
linker sees. Internal headers are included by role ("protocol/worker_protocol.h"), so the role
is the first folder of the path.

Usage: check_engine_layout.py SOURCE_DIR      (exit 1 and one line per wrong include)
       check_engine_layout.py --self-test     (plants wrong includes; fails unless each is caught)
"""
import os
import re
import sys
import tempfile

# What each role's library links (cmake/engine.cmake), and so may include.
ALLOWED = {
    "model": {"model"},
    "store": {"store", "model"},
    "content": {"content", "store", "compile", "model"},
    "protocol": {"protocol", "model"},
    "compile": {"compile", "store", "model"},
    "cpu": {"cpu", "content", "store", "compile", "model"},
    "device": {"device", "model"},
    "host": {"host", "cpu", "content", "store", "protocol", "compile", "device", "model"},
    "gpu_worker": {"gpu_worker", "protocol", "compile", "device", "store", "model"},
    "testing": None,  # the tests' hooks see everything
}
# Files outside engine/src that go into a role's library.
FAMILY_FILE_ROLE = {"shape.cpp": "model", "cpu.cpp": "cpu", "gpu_cuda.cpp": "gpu_worker"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def role_of(rel):
    parts = rel.split("/")
    if parts[:2] == ["engine", "src"] and len(parts) > 3:
        return parts[2]
    if parts[0] == "families" and len(parts) >= 3:
        return FAMILY_FILE_ROLE.get(parts[-1], "model")   # a family's shared headers: its models'
    if parts[0] == "lessons":
        return "model"
    if parts[0] in ("gui", "cli", "bench"):
        return "outside"   # the app, the CLI and tools see the public headers only
    return None


def problems(root):
    out = []
    for top in ("engine/src", "families", "lessons", "gui", "cli", "bench"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".cpp", ".h")) or name.startswith("test_"):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                role = role_of(rel)
                if role is None:
                    if rel.startswith("engine/src/"):
                        out.append(f"{rel}: not in a role's folder (engine/src/<role>/)")
                    continue
                if role not in ALLOWED and role != "outside":
                    out.append(f"{rel}: '{role}' is not a role of cmake/engine.cmake")
                    continue
                allowed = set() if role == "outside" else ALLOWED[role]
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                for inc in INCLUDE.findall(text):
                    first = inc.split("/")[0]
                    if first not in ALLOWED or "/" not in inc:
                        continue   # public (tilelab/...), a family's own header, or a system one
                    if allowed is not None and first not in allowed:
                        out.append(f"{rel}: a {role} file includes \"{inc}\" ({first} is not below {role})")
    return out


def self_test():
    plants = {
        "engine/src/model/a.cpp": '#include "host/engine_thing.h"\n',
        "engine/src/host/b.cpp": '#include "gpu_worker/runner_gpu.h"\n',
        "families/x/shape.cpp": '#include "cpu/cpu_family.h"\n',
        "gui/c.cpp": '#include "protocol/worker_protocol.h"\n',
        "engine/src/d.cpp": "\n",
        "engine/src/gpu_worker/ok.cpp": '#include "protocol/worker_protocol.h"\n#include "tilelab/util.h"\n',
        "engine/src/testing/ok.cpp": '#include "gpu_worker/runner_gpu.h"\n#include "host/worker_client.h"\n',
    }
    with tempfile.TemporaryDirectory() as root:
        for rel, text in plants.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write(text)
        found = problems(root)
    wrong = [rel for rel in plants if "ok.cpp" not in rel and not any(p.startswith(rel + ":") for p in found)]
    extra = [p for p in found if "ok.cpp" in p]
    for rel in wrong:
        print(f"self-test: the planted {rel} was not caught")
    for p in extra:
        print(f"self-test: a correct file was flagged: {p}")
    return 1 if wrong or extra else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    found = problems(sys.argv[1])
    for p in found:
        print(p)
    print(f"{len(found)} include(s) against the engine's direction")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
