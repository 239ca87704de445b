"""Random Cocos Creator scenes/prefabs, in the 2.x layout (`.fire`, `_trs`, `_N$` members,
components named by `_id` in scenes and by nothing in prefabs) or the 3.x one, and random
editor-like edits, for merge testing."""
import json, os, random, string, copy
import harness

class Ref:
    __slots__ = ("to",)
    def __init__(self, to): self.to = to

def uid(rng, n=22):
    return "".join(rng.choice(string.ascii_letters + string.digits + "+/") for _ in range(n))

def vec3(x=0, y=0, z=0): return {"__type__": "cc.Vec3", "x": x, "y": y, "z": z}

def color(): return {"__type__": "cc.Color", "r": 255, "g": 255, "b": 255, "a": 255}

class Level:
    def __init__(self, rng, prefab, version):
        self.rng, self.prefab, self.v2 = rng, prefab, version == 2
        self.counter = 0
    # --- construction
    def node(self, name, parent):
        rng = self.rng
        n = {"__type__": "cc.Node", "_name": name, "_objFlags": 0, "__editorExtras__": {}, "_parent": Ref(parent) if parent else None,
             "_children": [], "_active": True, "_components": [], "_prefab": None}
        if self.v2:
            del n["__editorExtras__"]
            n.update({"_opacity": 255, "_color": color(), "_contentSize": {"__type__": "cc.Size", "width": rng.randint(10, 500), "height": 40},
                      "_anchorPoint": {"__type__": "cc.Vec2", "x": 0.5, "y": 0.5},
                      "_trs": {"__type__": "TypedArray", "ctor": "Float64Array", "array": [rng.randint(-300, 300), rng.randint(-300, 300), 0, 0, 0, 0, 1, 1, 1, 1]},
                      "_eulerAngles": vec3(), "_skewX": 0, "_skewY": 0, "_is3DNode": False, "_groupIndex": 0, "groupIndex": 0})
        else:
            n.update({"_lpos": vec3(rng.randint(-300, 300), rng.randint(-300, 300), 0), "_lrot": {"__type__": "cc.Quat", "x": 0, "y": 0, "z": 0, "w": 1},
                      "_lscale": vec3(1, 1, 1), "_mobility": 0, "_layer": 33554432, "_euler": vec3()})
        n["_id"] = "" if self.prefab else uid(rng)
        if self.prefab and self.v2:
            n["_prefab"] = Ref({"__type__": "cc.PrefabInfo", "root": Ref(self.root) if self.root else None, "asset": Ref(self.asset),
                                "fileId": uid(rng), "sync": False})
        elif self.prefab:
            n["_prefab"] = Ref({"__type__": "cc.PrefabInfo", "root": Ref(self.root) if self.root else None, "asset": Ref(self.asset),
                                "fileId": uid(rng), "instance": None, "targetOverrides": None, "nestedPrefabInstanceRoots": None})
            if not self.root:
                n["_prefab"].to["root"] = Ref(n)
        if parent:
            parent["_children"].append(Ref(n))
        return n
    def component(self, node, kind, **props):
        c = {"__type__": kind, "_name": "", "_objFlags": 0, "__editorExtras__": {}, "node": Ref(node), "_enabled": True,
             "__prefab": Ref({"__type__": "cc.CompPrefabInfo", "fileId": uid(self.rng)}) if self.prefab else None}
        if self.v2:
            del c["__editorExtras__"], c["__prefab"]
        c.update({self.member(k): v for k, v in props.items()})
        if not (self.v2 and self.prefab):
            c["_id"] = "" if self.prefab else uid(self.rng)
        node["_components"].append(Ref(c))
        return c
    def member(self, name):
        """2.x writes a property with a setter as `_N$name`."""
        return "_N$" + name[1:] if self.v2 and name in ("_string", "_interactable", "_target") else name
    def ui(self, node):
        rng = self.rng
        if not self.v2:
            self.component(node, "cc.UITransform", _contentSize={"__type__": "cc.Size", "width": rng.randint(10, 500), "height": rng.randint(10, 500)},
                           _anchorPoint={"__type__": "cc.Vec2", "x": 0.5, "y": 0.5})
        kind = rng.choice(["cc.Sprite", "cc.Label", "cc.Button", "script", None])
        if kind == "cc.Sprite":
            self.component(node, "cc.Sprite", _customMaterial=None, _srcBlendFactor=2, _dstBlendFactor=4,
                           _color={"__type__": "cc.Color", "r": 255, "g": 255, "b": 255, "a": 255},
                           _spriteFrame={"__uuid__": "57520716-48c8-4a19-8acf-41c9f8777fb0@f9941", "__expectedType__": "cc.SpriteFrame"}, _type=0)
        elif kind == "cc.Label":
            self.component(node, "cc.Label", _string=rng.choice(["Start", "Score: 0", "label", "Options"]), _fontSize=rng.randint(10, 60), _isBold=False)
        elif kind == "cc.Button":
            b = self.component(node, "cc.Button", clickEvents=[], _interactable=True, _transition=3, _target=None)
            b["clickEvents"].append(Ref({"__type__": "cc.ClickEvent", "target": Ref(self.any_node()), "component": "", "_componentId": "",
                                          "handler": "onClick", "customEventData": ""}))
            b[self.member("_target")] = Ref(node)
        elif kind == "script":
            self.component(node, "d1a2bAbCDhLj6NoZmVGqPrS", target=Ref(self.any_node()), speed=rng.randint(1, 9), tag="x")
    def nodes(self):
        out = []
        def walk(n):
            out.append(n)
            for c in n["_children"]: walk(c.to)
        walk(self.top)
        return out
    def any_node(self):
        ns = self.nodes()
        return self.rng.choice(ns[1:] if len(ns) > 1 else ns)
    # --- serialization: depth first, as the editor writes
    def elements(self):
        order, seen = [], set()
        def add(e):
            if id(e) in seen: return False
            seen.add(id(e)); order.append(e); return True
        def deps(v):
            if isinstance(v, Ref):
                if v.to.get("__type__") not in ("cc.Node",) and v.to.get("__type__") not in ("cc.Scene",):
                    visit_other(v.to)
            elif isinstance(v, dict):
                for x in v.values(): deps(x)
            elif isinstance(v, list):
                for x in v: deps(x)
        def visit_other(e):
            if e.get("__type__") in ("cc.Node", "cc.Scene"):
                return
            if e.get("__type__") in ("cc.Prefab", "cc.SceneAsset"):
                return
            if e.get("__type__") == "cc.PrefabInfo":
                return  # written after its node
            if add(e):
                for k, v in e.items():
                    if k not in ("node",): deps(v)
        def visit_node(n):
            add(n)
            for c in n["_children"]: visit_node(c.to)
            for c in n["_components"]: visit_other(c.to)
            if n.get("_prefab"): add(n["_prefab"].to)
        add(self.asset)
        visit_node(self.top)
        if not self.prefab and self.top.get("_globals"):
            g = self.top["_globals"].to
            add(g)
            for v in g.values():
                if isinstance(v, Ref): add(v.to)
        return order
    def dumps(self):
        order = self.elements()
        index = {id(e): i for i, e in enumerate(order)}
        def conv(v):
            if isinstance(v, Ref):
                return {"__id__": index[id(v.to)]}
            if isinstance(v, dict): return {k: conv(x) for k, x in v.items()}
            if isinstance(v, list): return [conv(x) for x in v]
            return v
        return json.dumps([conv(e) for e in order], indent=2, ensure_ascii=False)

def build(rng, prefab, size, version):
    lv = Level(rng, prefab, version)
    lv.root = None
    if prefab:
        lv.asset = {"__type__": "cc.Prefab", "_name": "Panel", "_objFlags": 0, "__editorExtras__": {}, "_native": "", "data": None,
                    "optimizationPolicy": 0, "persistent": False}
        if lv.v2:
            del lv.asset["__editorExtras__"], lv.asset["persistent"]
            lv.asset["asyncLoadAssets"] = False
        lv.top = lv.node("Panel", None)
        lv.root = lv.top
        lv.asset["data"] = Ref(lv.top)
        lv.ui(lv.top)
    else:
        lv.asset = {"__type__": "cc.SceneAsset", "_name": "main", "_objFlags": 0, "__editorExtras__": {}, "_native": "", "scene": None}
        scene = {"__type__": "cc.Scene", "_name": "main", "_objFlags": 0, "__editorExtras__": {}, "_parent": None, "_children": [],
                 "_active": True, "_components": [], "_prefab": None, "_lpos": vec3(), "_lrot": {"__type__": "cc.Quat", "x": 0, "y": 0, "z": 0, "w": 1},
                 "_lscale": vec3(1, 1, 1), "_mobility": 0, "_layer": 1073741824, "_euler": vec3(), "autoReleaseAssets": False,
                 "_globals": None, "_id": uid(rng)}
        if lv.v2:
            del lv.asset["__editorExtras__"], scene["__editorExtras__"], scene["_globals"]
            for k in ("_lpos", "_lrot", "_lscale", "_mobility", "_layer", "_euler"): del scene[k]
            scene.update({"_opacity": 255, "_color": color(), "_contentSize": {"__type__": "cc.Size", "width": 0, "height": 0},
                          "_anchorPoint": {"__type__": "cc.Vec2", "x": 0, "y": 0},
                          "_trs": {"__type__": "TypedArray", "ctor": "Float64Array", "array": [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]},
                          "_is3DNode": True, "_groupIndex": 0, "groupIndex": 0})
            scene["_id"] = scene.pop("_id")
        lv.asset["scene"] = Ref(scene)
        lv.top = scene
        if lv.v2:
            canvas = lv.node("Canvas", scene)
            lv.component(canvas, "cc.Canvas", _designResolution={"__type__": "cc.Size", "width": 960, "height": 640}, _fitWidth=False, _fitHeight=True)
            cam = lv.node("Main Camera", canvas)
            lv.component(cam, "cc.Camera", _cullingMask=4294967295, _clearFlags=7, _depth=-1, _zoomRatio=1, _ortho=True)
            return fill(lv, rng, size)
        g = {"__type__": "cc.SceneGlobals", "ambient": Ref({"__type__": "cc.AmbientInfo", "_skyIllum": 20000}),
             "shadows": Ref({"__type__": "cc.ShadowsInfo", "_enabled": False}), "_skybox": Ref({"__type__": "cc.SkyboxInfo", "_enabled": False}),
             "fog": Ref({"__type__": "cc.FogInfo", "_type": 0}), "octree": Ref({"__type__": "cc.OctreeInfo", "_enabled": False})}
        scene["_globals"] = Ref(g)
        canvas = lv.node("Canvas", scene)
        lv.ui(canvas)
        cam = lv.node("Camera", canvas)
        lv.component(cam, "cc.Camera", _projection=0, _priority=1073741824, _fov=45, _orthoHeight=320, _near=0, _far=2000)
    return fill(lv, rng, size)

def fill(lv, rng, size):
    names = ["Label", "Button", "Icon", "Item", "New Node", "Bg", "Title"]
    for i in range(size):
        parent = rng.choice(lv.nodes()[1:] if not lv.prefab else lv.nodes())
        if lv.v2 and not lv.prefab and rng.random() < 0.15:
            instance(lv, rng, parent)
            continue
        n = lv.node(rng.choice(names), parent)
        lv.ui(n)
    return lv

def instance(lv, rng, parent):
    """A 2.x prefab instance placed in a scene: its nodes keep their scene `_id`s and each
    names the instance's root and the prefab asset through a `cc.PrefabInfo`."""
    asset = {"__uuid__": rng.choice(["b8392351-be97-4f01-985e-3e7d2118f3c9", "0c2d4e6f-1a3b-4c5d-8e9f-a0b1c2d3e4f5"])}
    root = lv.node("Prefab" + rng.choice(["Item", "Coin", "Door"]), parent)
    lv.ui(root)
    for n in [root] + [lv.node(rng.choice(["Icon", "Label"]), root) for _ in range(rng.randint(0, 2))]:
        if n is not root: lv.ui(n)
        n["_prefab"] = Ref({"__type__": "cc.PrefabInfo", "root": Ref(root), "asset": asset, "fileId": uid(rng), "sync": False})

# ---------------- edits
def referrers_null(lv, gone):
    """Null every reference to an element in `gone` (the editor does for component properties)."""
    def fix(v):
        if isinstance(v, dict):
            for k, x in list(v.items()):
                if isinstance(x, Ref) and id(x.to) in gone: v[k] = None
                else: fix(x)
        elif isinstance(v, list):
            v[:] = [x for x in v if not (isinstance(x, Ref) and id(x.to) in gone)]
            for x in v: fix(x)
    for e in lv.elements():
        fix(e)

def subtree(n):
    out = [n]
    for c in n["_children"]: out += subtree(c.to)
    return out

def duplicate(lv, n):
    """The editor's Duplicate: node `n`'s subtree copied beside it under the same names, with
    its components and what they own (click events, prefab infos), under new `_id`s and
    `fileId`s; references within the copy turned to the copies, others kept."""
    owned = []
    for m in subtree(n):
        owned.append(m)
        if m.get("_prefab"): owned.append(m["_prefab"].to)
        for c in m["_components"]:
            owned.append(c.to)
            if c.to.get("__prefab"): owned.append(c.to["__prefab"].to)
            owned += [e.to for e in c.to.get("clickEvents", [])]
    copies = {id(e): {} for e in owned}
    def copied(v):
        if isinstance(v, Ref): return Ref(copies[id(v.to)]) if id(v.to) in copies else Ref(v.to)
        if isinstance(v, dict): return {k: copied(x) for k, x in v.items()}
        if isinstance(v, list): return [copied(x) for x in v]
        return v
    for e in owned:
        c = copies[id(e)]
        c.update(copied(e))
        if c.get("_id"): c["_id"] = uid(lv.rng)
        if "fileId" in c: c["fileId"] = uid(lv.rng)
    p = n["_parent"].to
    at = next(i for i, c in enumerate(p["_children"]) if c.to is n)
    p["_children"].insert(at + 1, Ref(copies[id(n)]))

def op(lv, rng, tag, log):
    nodes = lv.nodes()
    inner = nodes[1:] if not lv.prefab else nodes
    kinds = ["add", "add", "delete", "edit", "edit", "rename", "reorder", "reparent", "component"]
    if os.environ.get("COCOS_DUPLICATE"):
        # Drawn only when asked, so that the seeds of earlier findings stay as they were.
        kinds += ["duplicate"]
    if lv.v2:
        # Drawn only for 2.x scenes, so that the 3.x seeds of earlier findings stay as they were.
        kinds += ["text", "active", "uncomponent"]
    kind = rng.choice(kinds)
    if kind == "add":
        p = rng.choice(inner)
        n = lv.node(f"Added{tag}{lv.counter}", p); lv.counter += 1
        lv.ui(n)
        log.append(("add", n["_name"]))
    elif kind == "delete":
        cands = [n for n in nodes[1:] if n["_name"] not in ("Canvas", "Camera", "Main Camera")]
        if not cands: return
        n = rng.choice(cands)
        gone = set()
        for m in subtree(n):
            gone.add(id(m))
            for c in m["_components"]:
                gone.add(id(c.to))
        p = n["_parent"].to
        p["_children"] = [c for c in p["_children"] if c.to is not n]
        referrers_null(lv, gone)
        log.append(("delete", n["_name"]))
    elif kind == "edit":
        n = rng.choice(inner)
        if lv.v2: n["_trs"]["array"][0] = rng.randint(-999, 999)
        else: n["_lpos"]["x"] = rng.randint(-999, 999)
        log.append(("edit", n["_name"]))
    elif kind == "rename":
        n = rng.choice(inner[1:] or inner)
        n["_name"] = n["_name"] + f"-{tag}"
        log.append(("rename", n["_name"]))
    elif kind == "reorder":
        ps = [n for n in nodes if len(n["_children"]) > 1]
        if not ps: return
        p = rng.choice(ps)
        rng.shuffle(p["_children"])
        log.append(("reorder", p["_name"]))
    elif kind == "reparent":
        if len(nodes) < 2: return
        n = rng.choice(nodes[1:])
        if n["_name"] in ("Canvas", "Camera", "Main Camera"): return
        sub = {id(m) for m in subtree(n)}
        targets = [m for m in inner if id(m) not in sub]
        if not targets: return
        t = rng.choice(targets)
        p = n["_parent"].to
        p["_children"] = [c for c in p["_children"] if c.to is not n]
        t["_children"].append(Ref(n)); n["_parent"] = Ref(t)
        log.append(("reparent", n["_name"], t["_name"]))
    elif kind == "component":
        n = rng.choice(inner)
        lv.component(n, "cc.Widget", _alignFlags=rng.randint(1, 45), _left=rng.randint(0, 50), _target=Ref(lv.any_node()))
        log.append(("component", n["_name"]))
    elif kind == "text":
        labels = [c.to for n in nodes for c in n["_components"] if c.to["__type__"] == "cc.Label"]
        if not labels: return
        label = rng.choice(labels)
        label[lv.member("_string")] = rng.choice(["Play", "Quit", "Score: 10", "Level 2"]) + tag
        log.append(("text", label["node"].to["_name"]))
    elif kind == "active":
        n = rng.choice(inner)
        n["_active"] = not n["_active"]
        log.append(("active", n["_name"]))
    elif kind == "duplicate":
        cands = [n for n in nodes[1:] if n["_name"] not in ("Canvas", "Camera", "Main Camera")]
        if not cands: return
        n = rng.choice(cands)
        duplicate(lv, n)
        log.append(("duplicate", n["_name"]))
    elif kind == "uncomponent":
        owners = [n for n in nodes if n["_components"]]
        if not owners: return
        n = rng.choice(owners)
        gone = n["_components"].pop(rng.randrange(len(n["_components"]))).to
        referrers_null(lv, {id(gone)} | {id(e.to) for e in gone.get("clickEvents", [])})
        log.append(("uncomponent", n["_name"], gone["__type__"]))

def scenario(seed, prefab, version):
    rng = random.Random(seed)
    return harness.two_sides(seed, rng, build(rng, prefab, rng.randint(3, 25), version), op)
