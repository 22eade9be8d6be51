#!/usr/bin/env python3
"""The engine's direction, for headers: a file of one role includes only the internal headers of
the roles its library links, directly or through another (read from cmake/engine.cmake's
tilelab_engine_library calls: the graph is written down once). The link graph catches calls across the
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

ENGINE_CMAKE = "cmake/engine.cmake"
# tilelab_engine_library(ROLE SOURCES ... [LINKS tilelab_a tilelab_b ...]) in cmake/engine.cmake.
LIBRARY = re.compile(r"tilelab_engine_library\(\s*(\w+)\s+SOURCES(.*?)\)", re.S)


def roles_graph(cmake_text):
    """What each role may include: itself and every role its library links, directly or through
    another (the graph cmake/engine.cmake builds; read from it, so there is no second copy)."""
    links = {}
    code = re.sub(r"#[^\n]*", "", cmake_text)   # not the calls a comment shows
    for role, rest in LIBRARY.findall(code):
        after = rest.split("LINKS", 1)[1] if "LINKS" in rest else ""
        links[role] = set(re.findall(r"\btilelab_(\w+)", after))
    def closure(role, seen):
        for d in links.get(role, ()):
            if d not in seen:
                seen.add(d)
                closure(d, seen)
        return seen
    return {role: closure(role, {role}) for role in links}


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


def problems(root, allowed_by_role):
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
                if role not in allowed_by_role and role != "outside":
                    out.append(f"{rel}: '{role}' is not a role of cmake/engine.cmake")
                    continue
                allowed = set() if role == "outside" else allowed_by_role[role]
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                for inc in INCLUDE.findall(text):
                    first = inc.split("/")[0]
                    if first not in allowed_by_role or "/" not in inc:
                        continue   # public (tilelab/...), a family's own header, or a system one
                    if first not in allowed:
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
        "engine/src/store/e.cpp": '#include "compile/compiler.h"\n',
        "engine/src/testing/ok.cpp": '#include "host/worker_client.h"\n#include "protocol/worker_protocol.h"\n',
    }
    # The project's own graph: the planted files are judged by what cmake/engine.cmake links.
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", ENGINE_CMAKE), encoding="utf-8") as f:
        graph = roles_graph(f.read())
    with tempfile.TemporaryDirectory() as root:
        for rel, text in plants.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write(text)
        found = problems(root, graph)
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
    with open(os.path.join(sys.argv[1], ENGINE_CMAKE), encoding="utf-8") as f:
        graph = roles_graph(f.read())
    if "model" not in graph or "gpu_worker" not in graph:
        print(f"{ENGINE_CMAKE}: no tilelab_engine_library calls for model and gpu_worker found")
        return 1
    found = problems(sys.argv[1], graph)
    for p in found:
        print(p)
    print(f"{len(found)} include(s) against the engine's direction")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
