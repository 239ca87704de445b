"""Merge random Cocos Creator scenes or prefabs (3.x, or 2.x with `2`) edited on both sides, both
ways, and report broken results, unresolvable conflict views, asymmetries and lost additions.
Usage: run_cocos.py FIRST_SEED COUNT scene|prefab [2|3]"""
import collections
import json
import sys

import harness
import cocos

def structure_problems(text):
    if "<<<<<<<" in text or ">>>>>>>" in text: return ["markers"]
    try: a = json.loads(text)
    except Exception as e: return [f"json: {e}"]
    probs = []
    def refs(v, out):
        if isinstance(v, dict):
            if set(v) == {"__id__"}: out.append(v["__id__"]); return
            for x in v.values(): refs(x, out)
        elif isinstance(v, list):
            for x in v: refs(x, out)
    for i, e in enumerate(a):
        r = []; refs(e, r)
        for n in r:
            if not (isinstance(n, int) and 0 <= n < len(a)): probs.append(f"dangling {i}->{n}")
    if probs: return probs
    listed = collections.Counter()
    for i, e in enumerate(a):
        if e.get("__type__") in ("cc.Node", "cc.Scene"):
            for c in e.get("_children", []):
                listed[c["__id__"]] += 1
                if (a[c["__id__"]].get("_parent") or {}).get("__id__") != i: probs.append(f"child {c['__id__']} of {i} has another parent")
            seen = set()
            for c in e.get("_components", []):
                if c["__id__"] in seen: probs.append(f"component {c['__id__']} twice")
                seen.add(c["__id__"])
                if (a[c["__id__"]].get("node") or {}).get("__id__") != i: probs.append(f"component {c['__id__']} of {i} names another node")
    for i, e in enumerate(a):
        if e.get("__type__") == "cc.Node":
            p = e.get("_parent")
            if p is not None and listed[i] != 1: probs.append(f"node {i} listed {listed[i]} times")
            if p is not None and a[p["__id__"]].get("__type__") not in ("cc.Node", "cc.Scene"): probs.append(f"node {i} parent not a node")
        if e.get("__type__", "").startswith("cc.") is False or "node" in e:
            n = e.get("node")
            if n and not any(c["__id__"] == i for c in a[n["__id__"]].get("_components", [])): probs.append(f"component {i} not listed by its node")
    ids = collections.Counter(e.get("_id") for e in a if e.get("_id"))
    probs += [f"_id {k} x{v}" for k, v in ids.items() if v > 1]
    fids = collections.Counter(e.get("fileId") for e in a if e.get("fileId"))
    probs += [f"fileId {k} x{v}" for k, v in fids.items() if v > 1]
    # reachability from element 0
    seen, stack = {0}, [0]
    while stack:
        r = []; refs(a[stack.pop()], r)
        for n in r:
            if n not in seen: seen.add(n); stack.append(n)
    # components/prefab infos are referenced from their nodes; unreachable elements are lost
    un = [i for i in range(len(a)) if i not in seen]
    if un: probs.append(f"unreachable {un[:5]}")
    return probs

NAMELESS = "(an element without _id)"


def facts(text):
    """Each element's members by its `_id` (where it has one): values, and for references
    (array indices, which an insertion renumbers) the `_id` of the element named; members
    naming an element without one are left out."""
    a = json.loads(text)

    def plain(v):
        if isinstance(v, dict) and set(v) == {"__id__"}:
            named = a[v["__id__"]] if 0 <= v["__id__"] < len(a) else {}
            return ("ref", named.get("_id") or NAMELESS)
        if isinstance(v, list):
            return tuple(plain(x) for x in v)
        if isinstance(v, dict):
            return tuple(sorted((k, plain(x)) for k, x in v.items()))
        return v

    members = ((e["_id"], k, plain(v)) for e in a if isinstance(e, dict) and e.get("_id") for k, v in e.items() if k not in ("_children", "_components"))
    return {(i, k): v for i, k, v in members if NAMELESS not in repr(v)}


def names(text):
    a = json.loads(text)
    return collections.Counter((e.get("_name"), a[e["_parent"]["__id__"]].get("_name") if e.get("_parent") else None, len(e.get("_components", [])))
                               for e in a if e.get("__type__") == "cc.Node")

def added(text):
    return {n for (n, _, _) in names(text) if n.startswith("Added")}


first, count, prefab = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "prefab"
version = int(sys.argv[4]) if len(sys.argv) > 4 else 3
harness.run(
    range(first, first + count),
    lambda seed: cocos.scenario(seed, prefab, version),
    ".prefab" if prefab else ".fire" if version == 2 else ".scene",
    lambda text, inputs: structure_problems(text),
    names,
    added,
    facts,
)
