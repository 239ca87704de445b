"""Random GDevelop layouts (objects, layers, placed instances with their `persistentUuid`)
and editor-like edits (place, move, delete and edit instances; add, rename and delete
objects and layers, an object's or a layer's instances going with it; reorder layers; add a
scene variable), written in GDevelop's JSON style: `scenario(seed)` gives base, ours, theirs
and the edits made."""
import json
import random

import harness


def uuid(rng):
    h = "%032x" % rng.getrandbits(128)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{h[16:20]}-{h[20:]}"


class Layout:
    def __init__(self, rng, data):
        self.rng, self.data, self.counter = rng, data, 0

    def dumps(self):
        return json.dumps(self.data, indent=2) + "\n"

    def instance(self, rng, obj, layer):
        return {"angle": 0, "customSize": False, "height": 0, "layer": layer, "locked": False, "name": obj,
                "persistentUuid": uuid(rng), "width": 0, "x": rng.randint(-500, 500), "y": rng.randint(-500, 500),
                "zOrder": rng.randint(0, 9), "numberProperties": [], "stringProperties": [], "initialVariables": []}

    def layer_names(self):
        return [l["name"] for l in self.data["layers"]]


def new_object(name, kind):
    return {"name": name, "tags": "", "type": kind, "updateIfNotVisible": False, "variables": [], "behaviors": [], "effects": []}


def new_layer(name):
    return {"ambientLightColorB": 200, "ambientLightColorG": 200, "ambientLightColorR": 200, "followBaseLayerCamera": False,
            "isLightingLayer": False, "name": name, "visibility": True, "cameras": [], "effects": []}


def build(rng):
    data = {"b": 209, "mangledName": "Level", "name": "Level", "r": 209, "standardSortMethod": True, "title": "", "v": 209,
            "uiSettings": {"grid": True, "gridWidth": 32, "snap": True, "zoomFactor": 0.5}, "objectsGroups": [],
            "variables": [], "instances": [], "objects": [], "events": [], "layers": [new_layer("")], "behaviorsSharedData": []}
    p = Layout(rng, data)
    for i in range(rng.randint(1, 3)):
        data["layers"].append(new_layer(rng.choice(["Background", "UI", "Front", "Lights"]) + str(i)))
    for i in range(rng.randint(2, 6)):
        data["objects"].append(new_object(rng.choice(["Player", "Coin", "Wall", "Enemy", "Door"]) + str(i), rng.choice(["Sprite", "TiledSprite", "TextObject::Text"])))
    for _ in range(rng.randint(2, 40)):
        data["instances"].append(p.instance(rng, rng.choice(data["objects"])["name"], rng.choice(p.layer_names())))
    return p


def op(p, rng, tag, log):
    d = p.data
    kind = rng.choice(["place", "place", "move", "move", "delete", "edit", "add_object", "rename_object", "delete_object",
                       "add_layer", "rename_layer", "delete_layer", "reorder_layers", "variable"])
    if not d["objects"]:
        kind = "add_object"
    if kind == "place":
        d["instances"].append(p.instance(rng, rng.choice(d["objects"])["name"], rng.choice(p.layer_names())))
    elif kind == "move" and d["instances"]:
        i = rng.choice(d["instances"])
        i["x"], i["y"] = rng.randint(-900, 900), rng.randint(-900, 900)
    elif kind == "delete" and d["instances"]:
        d["instances"].remove(rng.choice(d["instances"]))
    elif kind == "edit" and d["instances"]:
        i = rng.choice(d["instances"])
        i["angle"], i["zOrder"] = rng.randint(0, 359), rng.randint(0, 20)
    elif kind == "add_object":
        d["objects"].append(new_object(f"Added{tag}{p.counter}", "Sprite"))
        p.counter += 1
    elif kind == "rename_object":
        o = rng.choice(d["objects"])
        old, new = o["name"], o["name"] + tag
        if new not in [x["name"] for x in d["objects"]]:
            o["name"] = new
            for i in d["instances"]:
                if i["name"] == old:
                    i["name"] = new
    elif kind == "delete_object" and len(d["objects"]) > 1:
        o = rng.choice(d["objects"])
        d["objects"].remove(o)
        d["instances"] = [i for i in d["instances"] if i["name"] != o["name"]]
    elif kind == "add_layer":
        d["layers"].append(new_layer(f"Added{tag}{p.counter}"))
        p.counter += 1
    elif kind == "rename_layer" and len(d["layers"]) > 1:
        l = rng.choice(d["layers"][1:])
        old, new = l["name"], l["name"] + tag
        if new not in p.layer_names():
            l["name"] = new
            for i in d["instances"]:
                if i["layer"] == old:
                    i["layer"] = new
    elif kind == "delete_layer" and len(d["layers"]) > 1:
        l = rng.choice(d["layers"][1:])
        d["layers"].remove(l)
        d["instances"] = [i for i in d["instances"] if i["layer"] != l["name"]]
    elif kind == "reorder_layers":
        rng.shuffle(d["layers"])
    elif kind == "variable":
        d["variables"].append({"name": f"var{tag}{p.counter}", "value": rng.randint(0, 9)})
        p.counter += 1
    log.append((kind,))


def scenario(seed):
    rng = random.Random(seed)
    return harness.two_sides(seed, rng, build(rng), op)
