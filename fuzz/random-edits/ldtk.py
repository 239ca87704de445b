"""Random LDtk projects and editor-like edits (add, delete, move entities and point one at
another; paint tiles and int grid cells; add, delete, rename and reorder levels; add entity
and layer definitions, the layer to every level; delete definitions with what uses them;
rename entity definitions) written in LDtk's own JSON style:
`scenario(seed)` gives base, ours, theirs and the edits made."""
import json
import random

import harness


def is_leaf(v):
    return not any(isinstance(x, dict) or (isinstance(x, list) and any(isinstance(y, (dict, list)) for y in x)) for x in v.values())


def dumps(v, depth=0):
    """LDtk's layout: tabs; small objects of plain values and arrays of numbers on one line."""
    if isinstance(v, dict):
        if not v:
            return "{}"
        if is_leaf(v) and len(v) <= 6:
            return "{ " + ", ".join(f"{json.dumps(k)}: {dumps(x, depth + 1)}" for k, x in v.items()) + " }"
        pad = "\t" * (depth + 1)
        return "{\n" + ",\n".join(f"{pad}{json.dumps(k)}: {dumps(x, depth + 1)}" for k, x in v.items()) + "\n" + "\t" * depth + "}"
    if isinstance(v, list):
        if not v:
            return "[]"
        if not any(isinstance(x, (dict, list)) for x in v):
            return "[" + ",".join(json.dumps(x) for x in v) + "]"
        pad = "\t" * (depth + 1)
        return "[\n" + ",\n".join(pad + dumps(x, depth + 1) for x in v) + "\n" + "\t" * depth + "]"
    return json.dumps(v)


def iid(rng):
    h = "%032x" % rng.getrandbits(128)
    return f"{h[:8]}-{h[8:12]}-11ee-{h[16:20]}-{h[20:]}"


class Project:
    def __init__(self, rng, data):
        self.rng, self.data, self.counter = rng, data, 0

    def dumps(self):
        return dumps(self.data) + "\n"

    def uid(self):
        u = self.data["nextUid"]
        self.data["nextUid"] += 1
        return u

    def layer_instances(self):
        return [(li, lv) for lv in self.data["levels"] for li in lv["layerInstances"]]

    def entities(self):
        return [(e, li, lv) for li, lv in self.layer_instances() for e in li["entityInstances"]]

    def layer_instance(self, rng, level, layer_def):
        grid = layer_def["gridSize"]
        w, h = level["pxWid"] // grid, level["pxHei"] // grid
        li = {"__identifier": layer_def["identifier"], "__type": layer_def["type"], "__cWid": w, "__cHei": h, "__gridSize": grid,
              "iid": iid(rng), "levelId": level["uid"], "layerDefUid": layer_def["uid"], "visible": True,
              "intGridCsv": [rng.choice([0, 0, 1]) for _ in range(w * h)] if layer_def["type"] == "IntGrid" else [],
              "gridTiles": [], "entityInstances": []}
        if layer_def["type"] == "Tiles":
            for _ in range(rng.randint(0, 6)):
                li["gridTiles"].append(self.tile(rng, li))
        return li

    def tile(self, rng, li):
        g = li["__gridSize"]
        x, y = rng.randrange(li["__cWid"]) * g, rng.randrange(li["__cHei"]) * g
        t = rng.randrange(16)
        return {"px": [x, y], "src": [t % 4 * g, t // 4 * g], "f": 0, "t": t, "d": [y // g * li["__cWid"] + x // g], "a": 1}

    def entity(self, rng, li, lv, name):
        defs = self.data["defs"]["entities"]
        d = rng.choice(defs)
        g = li["__gridSize"]
        gx, gy = rng.randrange(li["__cWid"]), rng.randrange(li["__cHei"])
        e = {"__identifier": d["identifier"], "__grid": [gx, gy], "__pivot": [0, 0], "__tags": [], "__tile": None,
             "__smartColor": d["color"], "__worldX": lv["worldX"] + gx * g, "__worldY": lv["worldY"] + gy * g,
             "iid": iid(rng), "width": d["width"], "height": d["height"], "defUid": d["uid"], "px": [gx * g, gy * g],
             "fieldInstances": [{"__identifier": "name", "__type": "String", "__value": name, "__tile": None, "defUid": d["fieldDefs"][0]["uid"],
                                 "realEditorValues": [{"id": "V_String", "params": [name]}]}]}
        return e

    def level(self, rng, name, index):
        lv = {"identifier": name, "iid": iid(rng), "uid": self.uid(), "worldX": index * 256, "worldY": 0, "worldDepth": 0,
              "pxWid": 16 * rng.randint(2, 6), "pxHei": 16 * rng.randint(2, 4), "__bgColor": "#40465B", "bgColor": None,
              "fieldInstances": [], "layerInstances": [], "__neighbours": []}
        lv["layerInstances"] = [self.layer_instance(rng, lv, d) for d in self.data["defs"]["layers"]]
        return lv

    def duplicate_level(self, rng, lv, name, index):
        """LDtk's Duplicate level: a copy under a new uid and iids (its layers' and entities'),
        placed in the next free place; references among its entities turned to the copies. The
        copies' entities are named `name_k`, so the runner tells them from their originals."""
        copy = json.loads(json.dumps(lv))
        copy.update(identifier=name, iid=iid(rng), uid=self.uid(), worldX=index * 256)
        iids = {lv["iid"]: copy["iid"]}
        k = 0
        for li in copy["layerInstances"]:
            old, li["iid"] = li["iid"], iid(rng)
            iids[old] = li["iid"]
            li["levelId"] = copy["uid"]
            for e in li["entityInstances"]:
                old, e["iid"] = e["iid"], iid(rng)
                iids[old] = e["iid"]
                e["__worldX"] += copy["worldX"] - lv["worldX"]
                e["fieldInstances"][0]["__value"] = f"{name}_{k}"
                e["fieldInstances"][0]["realEditorValues"] = [{"id": "V_String", "params": [f"{name}_{k}"]}]
                k += 1
        for li in copy["layerInstances"]:
            for e in li["entityInstances"]:
                for f in e["fieldInstances"][1:]:
                    ref = f["__value"]
                    if isinstance(ref, dict) and ref.get("entityIid") in iids:
                        for key in ("entityIid", "layerIid", "levelIid"):
                            ref[key] = iids.get(ref[key], ref[key])
                        f["realEditorValues"] = [{"id": "V_String", "params": [ref["entityIid"]]}]
        return copy


def build(rng):
    data = {"__header__": {"fileType": "LDtk Project JSON", "app": "LDtk", "appAuthor": "Sebastien 'deepnight' Benard", "appVersion": "1.5.3"},
            "iid": iid(rng), "jsonVersion": "1.5.3", "nextUid": 1, "worldLayout": "Free", "defaultGridSize": 16,
            "defs": {"layers": [], "entities": [], "tilesets": [], "enums": [], "externalEnums": [], "levelFields": []},
            "levels": [], "worlds": []}
    p = Project(rng, data)
    data["defs"]["tilesets"].append({"__cWid": 4, "__cHei": 4, "identifier": "Tiles", "uid": p.uid(), "relPath": "tiles.png", "pxWid": 64, "pxHei": 64, "tileGridSize": 16})
    for name in ["Player", "Chest", "Door"][: rng.randint(1, 3)]:
        add_entity_def(p, rng, name)
    for name, kind in [("Entities", "Entities"), ("Walls", "IntGrid"), ("Ground", "Tiles")]:
        if kind == "Entities" or rng.random() < 0.7:
            data["defs"]["layers"].append({"__type": kind, "identifier": name, "type": kind, "uid": p.uid(), "gridSize": 16})
    for i in range(rng.randint(1, 3)):
        data["levels"].append(p.level(rng, f"Level_{i}", i))
    for li, lv in p.layer_instances():
        if li["__type"] == "Entities":
            for j in range(rng.randint(0, 5)):
                li["entityInstances"].append(p.entity(rng, li, lv, f"e{lv['uid']}_{j}"))
    return p


def add_entity_def(p, rng, name):
    d = {"identifier": name, "uid": p.uid(), "width": 16, "height": 16, "color": rng.choice(["#BE4A2F", "#0034FF", "#D77643"]),
         "fieldDefs": [{"identifier": "name", "__type": "String", "uid": p.uid(), "type": "F_String"},
                       {"identifier": "target", "__type": "EntityRef", "uid": p.uid(), "type": "F_EntityRef"}]}
    p.data["defs"]["entities"].append(d)
    return d


def move_level(p, lv, x, y):
    """Put level `lv` at `x`, `y` in the world, its entities' world places with it."""
    dx, dy = x - lv["worldX"], y - lv["worldY"]
    lv["worldX"], lv["worldY"] = x, y
    for li in lv["layerInstances"]:
        for e in li["entityInstances"]:
            e["__worldX"] += dx
            e["__worldY"] += dy
    relink(p)


def relink(p):
    """Every level's `__neighbours` written anew, as LDtk does on every save."""
    for a in p.data["levels"]:
        a["__neighbours"] = [{"levelIid": b["iid"], "dir": d} for b in p.data["levels"] if b is not a for d in [touching(a, b)] if d]


def touching(a, b):
    """Where level `b` touches level `a` (`n`, `s`, `w`, `e`, or a corner), as LDtk's
    `__neighbours` says it; `None` where they do not touch."""
    ax0, ay0, ax1, ay1 = a["worldX"], a["worldY"], a["worldX"] + a["pxWid"], a["worldY"] + a["pxHei"]
    bx0, by0, bx1, by1 = b["worldX"], b["worldY"], b["worldX"] + b["pxWid"], b["worldY"] + b["pxHei"]
    across = bx0 < ax1 and ax0 < bx1
    along = by0 < ay1 and ay0 < by1
    if across and by1 == ay0: return "n"
    if across and by0 == ay1: return "s"
    if along and bx1 == ax0: return "w"
    if along and bx0 == ax1: return "e"
    ns = "n" if by1 == ay0 else "s" if by0 == ay1 else None
    we = "w" if bx1 == ax0 else "e" if bx0 == ax1 else None
    return ns + we if ns and we else None


def op(p, rng, tag, log):
    """One edit, saved as LDtk saves: every level's `__neighbours` written anew."""
    edit(p, rng, tag, log)
    relink(p)


def edit(p, rng, tag, log):
    name = f"Added{tag}{p.counter}"
    kind = rng.choice(["add_entity", "add_entity", "delete_entity", "move_entity", "refer", "paint", "int_grid",
                       "add_level", "delete_level", "rename_level", "reorder_levels", "add_entity_def", "add_layer_def", "edit_def",
                       "delete_entity_def", "delete_layer_def", "rename_entity_def", "duplicate_level", "move_level"])
    entities = p.entities()
    entity_layers = [(li, lv) for li, lv in p.layer_instances() if li["__type"] == "Entities"]
    if kind == "add_entity" and entity_layers:
        li, lv = rng.choice(entity_layers)
        li["entityInstances"].insert(rng.randint(0, len(li["entityInstances"])), p.entity(rng, li, lv, name))
        p.counter += 1
        log.append((kind, name, lv["identifier"]))
    elif kind == "delete_entity" and entities:
        e, li, _ = rng.choice(entities)
        li["entityInstances"].remove(e)
        drop_references(p, {e["iid"]})
        log.append((kind, e["fieldInstances"][0]["__value"]))
    elif kind == "move_entity" and entities:
        e, li, lv = rng.choice(entities)
        g = li["__gridSize"]
        gx, gy = rng.randrange(li["__cWid"]), rng.randrange(li["__cHei"])
        e.update({"__grid": [gx, gy], "px": [gx * g, gy * g], "__worldX": lv["worldX"] + gx * g, "__worldY": lv["worldY"] + gy * g})
        log.append((kind, e["fieldInstances"][0]["__value"]))
    elif kind == "refer" and len(entities) > 1:
        (e, _, _), (target, tli, tlv) = rng.sample(entities, 2)
        e["fieldInstances"] = [f for f in e["fieldInstances"] if f["__identifier"] != "target"] + [
            {"__identifier": "target", "__type": "EntityRef",
             "__value": {"entityIid": target["iid"], "layerIid": tli["iid"], "levelIid": tlv["iid"], "worldIid": p.data["iid"]},
             "__tile": None, "defUid": next(d for d in p.data["defs"]["entities"] if d["uid"] == e["defUid"])["fieldDefs"][1]["uid"], "realEditorValues": [{"id": "V_String", "params": [target["iid"]]}]}]
        log.append((kind, e["fieldInstances"][0]["__value"], target["fieldInstances"][0]["__value"]))
    elif kind == "paint":
        tiles = [li for li, _ in p.layer_instances() if li["__type"] == "Tiles"]
        if tiles:
            li = rng.choice(tiles)
            for _ in range(rng.randint(1, 3)):
                if li["gridTiles"] and rng.random() < 0.4:
                    li["gridTiles"].pop(rng.randrange(len(li["gridTiles"])))
                else:
                    li["gridTiles"].append(p.tile(rng, li))
            log.append((kind, li["iid"][:8]))
    elif kind == "int_grid":
        grids = [li for li, _ in p.layer_instances() if li["__type"] == "IntGrid"]
        if grids:
            li = rng.choice(grids)
            for _ in range(rng.randint(1, 4)):
                li["intGridCsv"][rng.randrange(len(li["intGridCsv"]))] = rng.choice([0, 1, 2])
            log.append((kind, li["iid"][:8]))
    elif kind == "duplicate_level" and p.data["levels"]:
        lv = rng.choice(p.data["levels"])
        p.data["levels"].append(p.duplicate_level(rng, lv, name, len(p.data["levels"])))
        p.counter += 1
        log.append((kind, lv["identifier"], name))
    elif kind == "move_level" and len(p.data["levels"]) > 1:
        # dragged in the world view to touch another level, on one of its sides
        lv, by = rng.sample(p.data["levels"], 2)
        side = rng.choice(["e", "w", "s", "n"])
        x = {"e": by["worldX"] + by["pxWid"], "w": by["worldX"] - lv["pxWid"]}.get(side, by["worldX"])
        y = {"s": by["worldY"] + by["pxHei"], "n": by["worldY"] - lv["pxHei"]}.get(side, by["worldY"])
        move_level(p, lv, x, y)
        log.append((kind, lv["identifier"], side, by["identifier"]))
    elif kind == "add_level":
        p.data["levels"].append(p.level(rng, name, len(p.data["levels"])))
        p.counter += 1
        log.append((kind, name))
    elif kind == "delete_level" and len(p.data["levels"]) > 1:
        lv = rng.choice(p.data["levels"])
        p.data["levels"].remove(lv)
        drop_references(p, {e["iid"] for li in lv["layerInstances"] for e in li["entityInstances"]})
        log.append((kind, lv["identifier"]))
    elif kind == "rename_level":
        lv = rng.choice(p.data["levels"])
        lv["identifier"] += tag
        log.append((kind, lv["identifier"]))
    elif kind == "reorder_levels" and len(p.data["levels"]) > 1:
        lv = p.data["levels"]
        lv.insert(rng.randint(0, len(lv) - 1), lv.pop(rng.randrange(len(lv))))
        log.append((kind,))
    elif kind == "add_entity_def":
        add_entity_def(p, rng, name)
        p.counter += 1
        log.append((kind, name))
    elif kind == "add_layer_def":
        d = {"__type": "IntGrid", "identifier": name, "type": "IntGrid", "uid": p.uid(), "gridSize": 16}
        p.data["defs"]["layers"].insert(0, d)
        for lv in p.data["levels"]:
            lv["layerInstances"].insert(0, p.layer_instance(rng, lv, d))
        p.counter += 1
        log.append((kind, name))
    elif kind == "edit_def":
        d = rng.choice(p.data["defs"]["entities"])
        d["color"] = rng.choice(["#111111", "#222222", "#333333"])
        for e, _, _ in p.entities():
            if e["defUid"] == d["uid"]:
                e["__smartColor"] = d["color"]
        log.append((kind, d["identifier"]))
    elif kind == "delete_entity_def" and len(p.data["defs"]["entities"]) > 1:
        # As LDtk does: the definition's entities go with it.
        d = rng.choice(p.data["defs"]["entities"])
        p.data["defs"]["entities"].remove(d)
        gone = set()
        for li, _ in p.layer_instances():
            gone |= {e["iid"] for e in li["entityInstances"] if e["defUid"] == d["uid"]}
            li["entityInstances"] = [e for e in li["entityInstances"] if e["defUid"] != d["uid"]]
        drop_references(p, gone)
        log.append((kind, d["identifier"]))
    elif kind == "delete_layer_def" and len(p.data["defs"]["layers"]) > 1:
        # As LDtk does: the layer's instance goes from every level, with what it holds.
        d = rng.choice(p.data["defs"]["layers"])
        p.data["defs"]["layers"].remove(d)
        gone = set()
        for lv in p.data["levels"]:
            gone |= {e["iid"] for li in lv["layerInstances"] if li["layerDefUid"] == d["uid"] for e in li["entityInstances"]}
            lv["layerInstances"] = [li for li in lv["layerInstances"] if li["layerDefUid"] != d["uid"]]
        drop_references(p, gone)
        log.append((kind, d["identifier"]))
    elif kind == "rename_entity_def":
        d = rng.choice(p.data["defs"]["entities"])
        d["identifier"] += tag
        for e, _, _ in p.entities():
            if e["defUid"] == d["uid"]:
                e["__identifier"] = d["identifier"]
        log.append((kind, d["identifier"]))


def drop_references(p, gone):
    for e, _, _ in p.entities():
        for f in e["fieldInstances"]:
            if f["__type"] == "EntityRef" and f["__value"] and f["__value"]["entityIid"] in gone:
                f["__value"] = None
                f["realEditorValues"] = []


def scenario(seed):
    rng = random.Random(seed)
    return harness.two_sides(seed, rng, build(rng), op)
