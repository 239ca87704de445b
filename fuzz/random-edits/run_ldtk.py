"""Merge random LDtk projects edited on both sides, both ways, and report broken results,
unresolvable conflict views, asymmetries and lost additions. Usage: run_ldtk.py FIRST_SEED COUNT"""
import collections
import json
import sys

import harness
import ldtk


def structure_problems(data):
    p = set()
    defs = data["defs"]
    uids = []
    for what, items in [("layer def", defs["layers"]), ("entity def", defs["entities"]), ("tileset", defs["tilesets"]), ("level", data["levels"])]:
        for u, n in collections.Counter(x["uid"] for x in items).items():
            if n > 1:
                p.add(f"{what} uid {u} twice")
        uids += [x["uid"] for x in items]
    fields = [f["uid"] for d in defs["entities"] for f in d.get("fieldDefs", [])]
    for u, n in collections.Counter(fields).items():
        if n > 1:
            p.add(f"field def uid {u} twice")
    uids += fields
    if uids and data["nextUid"] <= max(uids):
        p.add(f"nextUid {data['nextUid']} not above {max(uids)}")
    iids = [data["iid"]] + [lv["iid"] for lv in data["levels"]]
    entity_defs = {d["uid"] for d in defs["entities"]}
    layer_defs = {d["uid"] for d in defs["layers"]}
    entities = {}
    for lv in data["levels"]:
        for li in lv["layerInstances"]:
            iids.append(li["iid"])
            if li["layerDefUid"] not in layer_defs:
                p.add(f"layer instance of missing def {li['layerDefUid']}")
            if li["levelId"] != lv["uid"]:
                p.add(f"layer instance {li['iid'][:8]} in level {lv['uid']} says level {li['levelId']}")
            if li["__type"] == "IntGrid" and len(li["intGridCsv"]) != li["__cWid"] * li["__cHei"]:
                p.add(f"int grid {li['iid'][:8]} has {len(li['intGridCsv'])} cells")
            for e in li["entityInstances"]:
                iids.append(e["iid"])
                entities[e["iid"]] = e
                if e["defUid"] not in entity_defs:
                    p.add(f"entity of missing def {e['defUid']}")
        # A level lacking a layer another side defined is what LDtk fills in on load; one
        # holding a layer twice is not.
        for u, n in collections.Counter(li["layerDefUid"] for li in lv["layerInstances"]).items():
            if n > 1:
                p.add(f"level {lv['uid']} holds layer {u} twice")
    for i, n in collections.Counter(iids).items():
        if n > 1:
            p.add(f"iid {i[:8]} twice")
    levels = {lv["iid"] for lv in data["levels"]}
    for lv in data["levels"]:
        for n in lv.get("__neighbours", []):
            if n["levelIid"] not in levels:
                p.add(f"level {lv['iid'][:8]} has missing neighbour {n['levelIid'][:8]}")
    for e in entities.values():
        for f in e["fieldInstances"]:
            if f["__type"] == "EntityRef" and f["__value"] and f["__value"]["entityIid"] not in entities:
                p.add(f"entity {e['iid'][:8]} refers to missing {f['__value']['entityIid'][:8]}")
    return p


def facts(text):
    """Each level's, layer's and entity's scalar members (not LDtk's derived `__` ones), field
    values and place, int grid cells by index and tiles by position, and each definition's
    scalar members, by iid or uid."""
    data = json.loads(text)
    out = {}

    def scalars(what, key, x):
        for k, v in x.items():
            if not isinstance(v, (list, dict)) and not k.startswith("__"):
                out[(what, key, k)] = v

    for kind, items in data["defs"].items():
        for d in items if isinstance(items, list) else []:
            if isinstance(d, dict) and "uid" in d:
                scalars(kind, d["uid"], d)
    for lv in data["levels"]:
        scalars("level", lv["iid"], lv)
        for li in lv["layerInstances"]:
            scalars("layer", li["iid"], li)
            out[("layer", li["iid"], "level")] = lv["iid"]
            for i, cell in enumerate(li["intGridCsv"]):
                out[("layer", li["iid"], "cell", i)] = cell
            for tile in li["gridTiles"]:
                out[("layer", li["iid"], "tile at", tuple(tile["px"]))] = tile["t"]
            for e in li["entityInstances"]:
                scalars("entity", e["iid"], e)
                out[("entity", e["iid"], "px")] = tuple(e["px"])
                out[("entity", e["iid"], "layer")] = li["iid"]
                for f in e["fieldInstances"]:
                    out[("entity", e["iid"], "field " + f["__identifier"])] = json.dumps(f["__value"], sort_keys=True)
    return out


def names(text):
    data = json.loads(text)
    out = [lv["identifier"] for lv in data["levels"]] + [d["identifier"] for d in data["defs"]["entities"] + data["defs"]["layers"]]
    for lv in data["levels"]:
        for li in lv["layerInstances"]:
            out += [f["__value"] for e in li["entityInstances"] for f in e["fieldInstances"] if f["__identifier"] == "name"]
    return collections.Counter(out)


first, count = int(sys.argv[1]), int(sys.argv[2])
harness.run(range(first, first + count), ldtk.scenario, ".ldtk", harness.new_problems(harness.json_structure(structure_problems)), names, harness.added_names(names),
            facts)
