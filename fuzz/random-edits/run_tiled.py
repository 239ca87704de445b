"""Merge random Tiled maps edited on both sides, both ways, and report broken results,
unresolvable conflict views, asymmetries and lost additions. Usage: run_tiled.py FIRST_SEED COUNT"""
import collections
import json
import sys

import harness
import tiled


def walk(layers):
    for layer in layers:
        yield layer
        if layer.get("type") == "group":
            yield from walk(layer.get("layers", []))


def structure_problems(data):
    p = set()
    layers = list(walk(data["layers"]))
    objects = [o for layer in layers if layer.get("type") == "objectgroup" for o in layer["objects"]]
    for what, ids, counter in (("layer", [x["id"] for x in layers], "nextlayerid"),
                               ("object", [o["id"] for o in objects], "nextobjectid")):
        for i, n in collections.Counter(ids).items():
            if n > 1:
                p.add(f"{what} id {i} twice")
        if ids and data[counter] <= max(ids):
            p.add(f"{counter} {data[counter]} not above {max(ids)}")
    known = {o["id"] for o in objects}
    for o in objects:
        for prop in o.get("properties", []):
            if prop["type"] == "object" and prop["value"] and prop["value"] not in known:
                p.add(f"object {o['id']} refers to missing object {prop['value']}")
    for layer in layers:
        if layer.get("type") == "tilelayer" and "data" in layer and len(layer["data"]) != layer["width"] * layer["height"]:
            p.add(f"layer {layer['id']} has {len(layer['data'])} tiles")
        chunks = layer.get("chunks", [])
        for c in chunks:
            if len(c["data"]) != c["width"] * c["height"]:
                p.add(f"layer {layer['id']} chunk {c['x']},{c['y']} has {len(c['data'])} tiles")
            if not (layer["startx"] <= c["x"] and c["x"] + c["width"] <= layer["startx"] + layer["width"]
                    and layer["starty"] <= c["y"] and c["y"] + c["height"] <= layer["starty"] + layer["height"]):
                p.add(f"layer {layer['id']} chunk {c['x']},{c['y']} outside the layer's box")
        for at, n in collections.Counter((c["x"], c["y"]) for c in chunks).items():
            if n > 1:
                p.add(f"layer {layer['id']} chunk {at} twice")
        for gid in layer.get("data", []) + [g for c in chunks for g in c["data"]]:
            ts = tileset_of(data, gid) if gid else None
            if gid and (ts is None or gid >= ts["firstgid"] + tiled.tile_count(ts)):
                p.add(f"layer {layer['id']} paints gid {gid}, in no tileset")
    ranges = sorted((ts["firstgid"], ts["firstgid"] + tiled.tile_count(ts)) for ts in data["tilesets"])
    for (_, end), (start, _) in zip(ranges, ranges[1:]):
        if start < end:
            p.add(f"tilesets overlap at gid {start}")
    return p


def tileset_of(data, gid):
    """The tileset a gid falls in: the one with the highest first gid at or below it."""
    return max((ts for ts in data["tilesets"] if ts["firstgid"] <= gid), key=lambda ts: ts["firstgid"], default=None)


def tile_key(data, gid):
    """A tile as facts name it: its tileset (by name or file) and its number there (a new
    tileset may be given other gids)."""
    ts = tileset_of(data, gid) if gid else None
    return (ts.get("name") or ts.get("source"), gid - ts["firstgid"]) if ts else gid


def layer_key(layer):
    """A layer as facts name it: by id, but a new one by name (both sides may add a layer
    under one id, and one side's is renumbered; the other side cannot rename it)."""
    return layer["name"] if layer["name"].startswith("Added") else layer["id"]


def facts(text):
    """Each layer's and object's scalar members, properties, place (its group or layer,
    [`layer_key`]) and tiles, by id. An object property names its object as [`layer_key`]
    names a layer (a new object may be renumbered)."""
    data = json.loads(text)
    out = {}
    objects = {o["id"]: o for layer in walk(data["layers"]) for o in layer.get("objects", [])}

    def value(prop):
        named = objects.get(prop["value"]) if prop.get("type") == "object" else None
        return layer_key(named) if named else prop["value"]

    def scalars(what, x):
        for k, v in x.items():
            if not isinstance(v, (list, dict)):
                out[(what, x["id"], k)] = v
        for prop in x.get("properties", []):
            out[(what, x["id"], "property " + prop["name"])] = value(prop)

    def visit(layers, group):
        for layer in layers:
            scalars("layer", layer)
            out[("layer", layer["id"], "group")] = group and layer_key(group)
            for i, tile in enumerate(layer.get("data", [])):
                out[("layer", layer["id"], "tile", i)] = tile_key(data, tile)
            for c in layer.get("chunks", []):
                for i, tile in enumerate(c["data"]):
                    out[("layer", layer["id"], "cell", c["x"] + i % c["width"], c["y"] + i // c["width"])] = tile_key(data, tile)
            for o in layer.get("objects", []):
                scalars("object", o)
                out[("object", o["id"], "layer")] = layer_key(layer)
            visit(layer.get("layers", []), layer)

    visit(data["layers"], None)
    return out


def names(text):
    data = json.loads(text)
    layers = list(walk(data["layers"]))
    return collections.Counter([x["name"] for x in layers] + [o["name"] for x in layers if x.get("type") == "objectgroup" for o in x["objects"]]
                               + [ts["name"] for ts in data["tilesets"] if "name" in ts])


first, count = int(sys.argv[1]), int(sys.argv[2])
harness.run(range(first, first + count), tiled.scenario, ".tmj", harness.new_problems(harness.json_structure(structure_problems)), names, harness.added_names(names),
            facts)
