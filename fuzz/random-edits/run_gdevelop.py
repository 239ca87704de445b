"""Merge random GDevelop layouts edited on both sides, both ways, and report broken results,
unresolvable conflict views, asymmetries and lost additions. Usage: run_gdevelop.py FIRST_SEED COUNT"""
import collections
import json
import sys

import gdevelop
import harness


def structure_problems(data):
    p = set()
    for what, items in [("object", data["objects"]), ("layer", data["layers"]), ("variable", data["variables"])]:
        for name, n in collections.Counter(x["name"] for x in items).items():
            if n > 1:
                p.add(f"{what} {name!r} twice")
    for u, n in collections.Counter(i["persistentUuid"] for i in data["instances"]).items():
        if n > 1:
            p.add(f"instance {u[:8]} twice")
    objects, layers = {o["name"] for o in data["objects"]}, {l["name"] for l in data["layers"]}
    for i in data["instances"]:
        if i["name"] not in objects:
            p.add(f"instance {i['persistentUuid'][:8]} of missing object {i['name']!r}")
        if i["layer"] not in layers:
            p.add(f"instance {i['persistentUuid'][:8]} on missing layer {i['layer']!r}")
    return p


def facts(text):
    """Each instance's scalar members by `persistentUuid` (where it has one), each object's,
    layer's and variable's by name."""
    data = json.loads(text)
    out = {}
    for what, items, key in (("instance", data["instances"], "persistentUuid"), ("object", data["objects"], "name"),
                             ("layer", data["layers"], "name"), ("variable", data["variables"], "name")):
        for x in (x for x in items if key in x):
            for k, v in x.items():
                if not isinstance(v, (list, dict)):
                    out[(what, x[key], k)] = v
    return out


def names(text):
    data = json.loads(text)
    return collections.Counter([o["name"] for o in data["objects"]] + [l["name"] for l in data["layers"]] + [v["name"] for v in data["variables"]])


first, count = int(sys.argv[1]), int(sys.argv[2])
harness.run(range(first, first + count), gdevelop.scenario, ".json", harness.new_problems(harness.json_structure(structure_problems)), names,
            harness.added_names(names), facts)
