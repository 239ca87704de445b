"""Merge random Godot 4 scenes edited on both sides, both ways, and report broken results,
unresolvable conflict views, asymmetries and lost additions. Usage: run_godot4.py FIRST_SEED COUNT"""
import collections
import sys

import harness
import godot4
import scenecheck as sc

def problems(text, inputs):
    data = text.encode()
    p = set(sc.validate_godot(data)) - set().union(*[set(sc.validate_godot(i.encode())) for i in inputs])
    secs, _ = sc.godot_sections(data)
    paths = set()
    for kind, attrs, hdr, body in secs:
        if kind == b"node":
            par = attrs.get(b"parent")
            name = sc._unq(attrs.get(b"name", b""))
            paths.add(b"." if par is None else (name if sc._unq(par) == b"." else sc._unq(par) + b"/" + name))
    for kind, attrs, hdr, body in secs:
        if kind == b"connection":
            for k in (b"from", b"to"):
                v = sc._unq(attrs.get(k, b""))
                if v not in paths: p.add(f"connection {k.decode()} {v.decode()} missing")
    return sorted(p)
def names(text):
    secs, _ = sc.godot_sections(text.encode())
    return collections.Counter((sc._unq(a.get(b"name", b"")), sc._unq(a.get(b"parent", b"-")), body) for k, a, h, body in secs if k == b"node")
def added(text):
    return {n for (n, _, _) in names(text) if n.startswith(b"Added")}


first, count = int(sys.argv[1]), int(sys.argv[2])
harness.run(range(first, first + count), godot4.scenario, ".tscn", problems, names, added)
