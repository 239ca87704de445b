"""Random Tiled JSON maps and editor-like edits (add, delete, move, rename objects; paint
tiles; add, delete, reorder, rename layers; move an object to another layer; custom
properties, among them object references) written in Tiled's own JSON style:
`scenario(seed)` gives base, ours, theirs and the edits made."""
import json
import random

import harness

# The chunk size of infinite maps (Tiled's `editorsettings`; 16 unless set)
CHUNK = 4


def dumps_value(v, key_indent):
    """Tiled's layout: objects in an array sit 7 columns right of the array's key, their keys
    one column right of the brace; arrays of scalars stay on one line."""
    if isinstance(v, dict):
        return dumps_object(v, key_indent - 1)
    if isinstance(v, list):
        if v and isinstance(v[0], dict):
            pad = " " * (key_indent + 7)
            return "[\n" + ", \n".join(pad + dumps_object(x, key_indent + 7) for x in v) + "]"
        return "[" + ", ".join(dumps_value(x, key_indent) for x in v) + "]"
    return json.dumps(v)


def dumps_object(d, indent):
    pad = " " * (indent + 1)
    keys = [f'"{k}":{dumps_value(d[k], indent + 1)}' for k in sorted(d)]
    return "{\n" + ",\n".join(pad + k for k in keys) + "\n" + " " * indent + "}"


class Map:
    def __init__(self, rng, data):
        self.rng, self.data, self.counter = rng, data, 0

    def dumps(self):
        body = dumps_object(self.data, 0)
        return "{ " + body[len("{\n "):] + "\n"

    def layers(self, within=None):
        """Every layer with the list that holds it, groups' layers included."""
        out = []
        for layer in self.data["layers"] if within is None else within:
            out.append((layer, self.data["layers"] if within is None else within))
            if layer["type"] == "group":
                out += [(x, lst) for x, lst in self.layers(layer["layers"])]
        return out

    def objects(self):
        return [(o, layer) for layer, _ in self.layers() if layer["type"] == "objectgroup" for o in layer["objects"]]

    def new_object(self, rng, name):
        oid = self.data["nextobjectid"]
        self.data["nextobjectid"] += 1
        obj = {"height": rng.randint(0, 64), "id": oid, "name": name, "rotation": 0, "type": rng.choice(["", "npc", "door"]),
               "visible": True, "width": rng.randint(0, 64), "x": rng.randint(0, 900), "y": rng.randint(0, 900)}
        others = self.objects()
        if others and rng.random() < 0.3:
            obj["properties"] = [{"name": "target", "type": "object", "value": rng.choice(others)[0]["id"]}]
        return obj

    def new_layer(self, rng, name):
        lid = self.data["nextlayerid"]
        self.data["nextlayerid"] += 1
        base = {"id": lid, "name": name, "opacity": 1, "visible": True, "x": 0, "y": 0}
        kind = rng.choice(["tilelayer", "objectgroup", "objectgroup", "group"])
        if kind == "tilelayer" and self.data["infinite"]:
            # An infinite map's layer holds chunks, within the box it states
            base.update(type="tilelayer", chunks=[], startx=0, starty=0, width=0, height=0)
            self.paint_cell(base, 0, 0, rng.choice([3, 7]))
        elif kind == "tilelayer":
            w, h = self.data["width"], self.data["height"]
            base.update(type="tilelayer", width=w, height=h, data=[rng.choice([0, 0, 0, 3, 7]) for _ in range(w * h)])
        elif kind == "objectgroup":
            base.update(type="objectgroup", draworder="topdown", objects=[])
        else:
            base.update(type="group", layers=[])
        return base

    def paint_cell(self, layer, x, y, gid):
        """Paint cell `x`, `y` of an infinite map's tile layer as Tiled does: the chunk holding it
        made where there is none (but for an erased cell), the layer's box grown to hold it
        (Tiled never shrinks it), the chunks kept in rows."""
        cx, cy = x - x % CHUNK, y - y % CHUNK
        chunk = next((c for c in layer["chunks"] if (c["x"], c["y"]) == (cx, cy)), None)
        if chunk is None:
            if not gid:
                return
            chunk = {"data": [0] * (CHUNK * CHUNK), "height": CHUNK, "width": CHUNK, "x": cx, "y": cy}
            layer["chunks"].append(chunk)
            layer["chunks"].sort(key=lambda c: (c["y"], c["x"]))
            if layer["width"]:
                x0, y0 = min(layer["startx"], cx), min(layer["starty"], cy)
                x1, y1 = max(layer["startx"] + layer["width"], cx + CHUNK), max(layer["starty"] + layer["height"], cy + CHUNK)
            else:
                x0, y0, x1, y1 = cx, cy, cx + CHUNK, cy + CHUNK
            layer.update(startx=x0, starty=y0, width=x1 - x0, height=y1 - y0)
        chunk["data"][(y - cy) * CHUNK + (x - cx)] = gid

    def duplicate_layer(self, layer, name):
        """Tiled's Duplicate Layer: a copy under the next layer id, its objects under the next
        object ids, references among them turned to the copies (the copies named `name_k`, so
        the runner tells them apart from their originals)."""
        copy = json.loads(json.dumps(layer))
        copy["id"], copy["name"] = self.data["nextlayerid"], name
        self.data["nextlayerid"] += 1
        ids = {}
        for k, o in enumerate(copy.get("objects", [])):
            ids[o["id"]] = self.data["nextobjectid"]
            o["id"], o["name"] = self.data["nextobjectid"], f"{name}_{k}"
            self.data["nextobjectid"] += 1
        for o in copy.get("objects", []):
            for p in o.get("properties", []):
                if p["type"] == "object" and p["value"] in ids:
                    p["value"] = ids[p["value"]]
        return copy


def build(rng, infinite=False):
    w, h = rng.randint(2, 8), rng.randint(2, 6)
    data = {"compressionlevel": -1, "height": h, "infinite": infinite, "layers": [], "nextlayerid": 1, "nextobjectid": 1,
            "orientation": "orthogonal", "renderorder": "right-down", "tiledversion": "1.8.2", "tileheight": 32,
            "tilesets": [{"firstgid": 1, "source": "tiles.tsx"}], "tilewidth": 32, "type": "map", "version": "1.8", "width": w}
    if infinite:
        data["editorsettings"] = {"chunksize": {"height": CHUNK, "width": CHUNK}}
    m = Map(rng, data)
    for i in range(rng.randint(1, 6)):
        groups = [layer["layers"] for layer, _ in m.layers() if layer["type"] == "group"]
        target = rng.choice([data["layers"]] + groups)
        target.append(m.new_layer(rng, rng.choice(["ground", "walls", "objects", "zones", "deco"]) + str(i)))
    groups = [layer for layer, _ in m.layers() if layer["type"] == "objectgroup"]
    for i in range(rng.randint(0, 12) if groups else 0):
        rng.choice(groups)["objects"].append(m.new_object(rng, rng.choice(["chest", "spawn", "npc", "sign"]) + str(i)))
    return m


def tile_count(tileset):
    """How many tiles a tileset holds (the external `tiles.tsx` of every map holds 16)."""
    return tileset.get("tilecount", 16)


def drop_references(m, gone):
    for o, _ in m.objects():
        for p in o.get("properties", []):
            if p["type"] == "object" and p["value"] in gone:
                p["value"] = 0


def op(m, rng, tag, log):
    name = f"Added{tag}{m.counter}"
    kind = rng.choice(["add_object", "add_object", "delete_object", "move_object", "rename_object", "refer",
                       "paint", "add_layer", "delete_layer", "reorder_layers", "rename_layer", "layer_visibility",
                       "object_to_layer", "map_property", "add_tileset", "duplicate_layer"])
    objects, layers = m.objects(), m.layers()
    groups = [layer for layer, _ in layers if layer["type"] == "objectgroup"]
    if kind == "add_object" and groups:
        g = rng.choice(groups)
        g["objects"].insert(rng.randint(0, len(g["objects"])), m.new_object(rng, name))
        m.counter += 1
        log.append((kind, name, g["name"]))
    elif kind == "delete_object" and objects:
        o, g = rng.choice(objects)
        g["objects"].remove(o)
        drop_references(m, {o["id"]})
        log.append((kind, o["name"]))
    elif kind == "move_object" and objects:
        o, _ = rng.choice(objects)
        o["x"], o["y"] = rng.randint(0, 900) + rng.choice([0, 0.5, 0.25]), rng.randint(0, 900)
        log.append((kind, o["name"]))
    elif kind == "rename_object" and objects:
        o, _ = rng.choice(objects)
        o["name"] += tag
        log.append((kind, o["name"]))
    elif kind == "refer" and len(objects) > 1:
        (o, _), (target, _) = rng.sample(objects, 2)
        o["properties"] = [p for p in o.get("properties", []) if p["name"] != "target"] + [
            {"name": "target", "type": "object", "value": target["id"]}]
        log.append((kind, o["name"], target["name"]))
    elif kind == "paint":
        tiles = [layer for layer, _ in layers if layer["type"] == "tilelayer"]
        if tiles:
            t = rng.choice(tiles)
            for _ in range(rng.randint(1, 4)):
                ts = rng.choice(m.data["tilesets"])
                gid = rng.choice([0, ts["firstgid"] + rng.randrange(tile_count(ts))])
                if "chunks" in t:
                    # anywhere near the chunks already painted, often beyond them
                    m.paint_cell(t, rng.randint(-3 * CHUNK, 3 * CHUNK - 1), rng.randint(-2 * CHUNK, 2 * CHUNK - 1), gid)
                else:
                    t["data"][rng.randrange(len(t["data"]))] = gid
            log.append((kind, t["name"]))
    elif kind == "add_tileset":
        # As Tiled does: the new tileset's gids follow the last one's.
        first = max(ts["firstgid"] + tile_count(ts) for ts in m.data["tilesets"])
        m.data["tilesets"].append({"columns": 4, "firstgid": first, "image": name + ".png", "imageheight": 64, "imagewidth": 64,
                                   "margin": 0, "name": name, "spacing": 0, "tilecount": rng.choice([8, 16]), "tileheight": 16, "tilewidth": 16})
        m.counter += 1
        log.append((kind, name))
    elif kind == "add_layer":
        holders = [m.data["layers"]] + [layer["layers"] for layer, _ in layers if layer["type"] == "group"]
        h = rng.choice(holders)
        h.insert(rng.randint(0, len(h)), m.new_layer(rng, name))
        m.counter += 1
        log.append((kind, name))
    elif kind == "delete_layer" and layers:
        layer, holder = rng.choice(layers)
        holder.remove(layer)
        drop_references(m, {o["id"] for o, _ in objects} - {o["id"] for o, _ in m.objects()})
        log.append((kind, layer["name"]))
    elif kind == "reorder_layers":
        holders = [h for h in [m.data["layers"]] + [layer["layers"] for layer, _ in layers if layer["type"] == "group"] if len(h) > 1]
        if holders:
            h = rng.choice(holders)
            h.insert(rng.randint(0, len(h) - 1), h.pop(rng.randrange(len(h))))
            log.append((kind,))
    elif kind == "rename_layer" and layers:
        layer, _ = rng.choice(layers)
        layer["name"] += tag
        log.append((kind, layer["name"]))
    elif kind == "layer_visibility" and layers:
        layer, _ = rng.choice(layers)
        layer["visible"] = not layer["visible"]
        layer["opacity"] = rng.choice([1, 0.5, 0.75])
        log.append((kind, layer["name"]))
    elif kind == "object_to_layer" and objects and len(groups) > 1:
        o, g = rng.choice(objects)
        g["objects"].remove(o)
        rng.choice([x for x in groups if x is not g])["objects"].append(o)
        log.append((kind, o["name"]))
    elif kind == "duplicate_layer":
        plain = [(layer, holder) for layer, holder in layers if layer["type"] != "group"]
        if plain:
            layer, holder = rng.choice(plain)
            holder.insert(holder.index(layer) + 1, m.duplicate_layer(layer, name))
            m.counter += 1
            log.append((kind, layer["name"], name))
    elif kind == "map_property":
        m.data.setdefault("properties", []).append({"name": f"p{tag}{m.counter}", "type": "string", "value": tag})
        m.counter += 1
        log.append((kind,))


def scenario(seed):
    rng = random.Random(seed)
    # every other pair of maps infinite
    return harness.two_sides(seed, rng, build(rng, infinite=seed // 2 % 2 == 1), op)
