"""Random Unity scenes (game objects, transforms, scripts, colliders) and editor-like edits
for merge testing: `scenario(seed)` gives base, ours, theirs and the edits made."""
import collections
import random
import re

import harness
import scenecheck as sc

HDR = "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n"
# The settings every scene Unity saves begins with (so no edit leaves a scene without objects)
SETTINGS = ("--- !u!29 &1\nOcclusionCullingSettings:\n  m_ObjectHideFlags: 0\n  serializedVersion: 2\n"
            "--- !u!104 &2\nRenderSettings:\n  m_ObjectHideFlags: 0\n  serializedVersion: 9\n  m_Fog: 0\n")
class Obj:
    def __init__(s, cls, cid, fid, fields): s.cls, s.cid, s.fid, s.f = cls, cid, fid, fields
SCENE_ROOTS = "--- !u!1660057539 &9223372036854775807\nSceneRoots:\n  m_ObjectHideFlags: 0\n  m_Roots:"
class Scene:
    def __init__(s, rng, sequential=False):
        s.rng, s.objs, s.counter, s.scene_roots = rng, {}, 0, False
        # Unity before 2018.3 numbered a prefab's objects by class (`100000`, `100002` for game
        # objects, `400000`… for transforms): both sides take the same next numbers.
        s.sequential, s.next_number = sequential, collections.Counter()
    def newid(s, cid=None):
        if s.sequential and cid:
            while True:
                i = cid * 100000 + 2 * s.next_number[cid]
                s.next_number[cid] += 1
                if i not in s.objs: return i
        while True:
            i = s.rng.randint(10**8, 9 * 10**9)
            if i not in s.objs: return i
    def go(s, name, father):
        g = s.newid(1)
        s.objs[g] = Obj("GameObject", 1, g, {"components": [], "name": name})
        t = s.newid(4)
        s.objs[t] = Obj("Transform", 4, t, {"go": g, "children": [], "father": father, "pos": [s.rng.randint(-9, 9), 0, 0]})
        s.objs[g].f["components"].append(t)
        if father: s.objs[father].f["children"].append(t)
        return g, t
    def comp(s, g, kind):
        c = s.newid(114 if kind == "mono" else 65)
        if kind == "mono":
            # Its own game object where no other is left (an instance's, in a scene of instances).
            tgt = s.rng.choice([o.fid for o in s.objs.values() if o.cls == "GameObject"] or [g])
            # A script's list of transforms (waypoints): a list of references without ids.
            ts = [o.fid for o in s.transforms()]
            points = s.rng.sample(ts, s.rng.randint(0, min(3, len(ts))))
            s.objs[c] = Obj("MonoBehaviour", 114, c, {"go": g, "target": tgt, "speed": s.rng.randint(1, 9), "points": points})
        else:
            s.objs[c] = Obj("BoxCollider", 65, c, {"go": g, "size": s.rng.randint(1, 5)})
        s.objs[g].f["components"].append(c)
    def transforms(s): return [o for o in s.objs.values() if o.cls == "Transform"]
    def roots(s): return [o for o in s.transforms() if not o.f["father"]]
    def dumps(s):
        out = [HDR, SETTINGS]
        # root order: roots sorted by their order of creation kept in s.root_order
        order = {t: i for i, t in enumerate(s.root_order)}
        for fid in sorted(s.objs):
            o = s.objs[fid]; f = o.f
            if o.cls.startswith("Stripped"): continue  # written by unity_instances
            out.append(f"--- !u!{o.cid} &{fid}\n{o.cls}:\n  m_ObjectHideFlags: 0\n")
            if o.cls == "GameObject":
                out.append("  serializedVersion: 6\n  m_Component:\n" + "".join(f"  - component: {{fileID: {c}}}\n" for c in f["components"]))
                out.append(f"  m_Layer: 0\n  m_Name: {f['name']}\n  m_TagString: Untagged\n  m_IsActive: 1\n")
            elif o.cls == "Transform":
                p = f["pos"]
                out.append(f"  m_GameObject: {{fileID: {f['go']}}}\n  m_LocalRotation: {{x: 0, y: 0, z: 0, w: 1}}\n  m_LocalPosition: {{x: {p[0]}, y: {p[1]}, z: {p[2]}}}\n  m_LocalScale: {{x: 1, y: 1, z: 1}}\n")
                out.append("  m_Children:" + (" []\n" if not f["children"] else "\n" + "".join(f"  - {{fileID: {c}}}\n" for c in f["children"])))
                father = f["father"] or 0
                ro = s.objs[father].f["children"].index(fid) if father else order.get(fid, 0)
                # Unity 2022.2+ lists the roots in SceneRoots and writes no m_RootOrder
                root_order = "" if s.scene_roots else f"  m_RootOrder: {ro}\n"
                out.append(f"  m_Father: {{fileID: {father}}}\n{root_order}  m_LocalEulerAnglesHint: {{x: 0, y: 0, z: 0}}\n")
            elif o.cls == "MonoBehaviour":
                out.append(f"  m_GameObject: {{fileID: {f['go']}}}\n  m_Enabled: 1\n  m_Script: {{fileID: 11500000, guid: 5f2a9b7c3d4e4f6a8b9c0d1e2f3a4b5c, type: 3}}\n  m_Name: \n  target: {{fileID: {f['target']}}}\n  speed: {f['speed']}\n")
                points = f.get("points", [])
                out.append("  waypoints:" + (" []\n" if not points else "\n" + "".join(f"  - {{fileID: {w}}}\n" for w in points)))
            elif o.cls == "BoxCollider":
                out.append(f"  m_GameObject: {{fileID: {f['go']}}}\n  m_Material: {{fileID: 0}}\n  m_IsTrigger: 0\n  m_Enabled: 1\n  serializedVersion: 2\n  m_Size: {{x: {f['size']}, y: 1, z: 1}}\n  m_Center: {{x: 0, y: 0, z: 0}}\n")
        if s.scene_roots:
            # Unity writes an empty list as `[]`.
            out.append(SCENE_ROOTS + ("".join(f"\n  - {{fileID: {t}}}" for t in s.root_order) or " []") + "\n")
        return "".join(out)
def build(rng, size, sequential=False):
    s = Scene(rng, sequential); s.root_order = []
    names = ["Player", "Enemy", "Wall", "Light", "Cube", "Spawner", "Door"]
    for i in range(size):
        ts = s.transforms()
        father = rng.choice(ts).fid if ts and rng.random() < 0.7 else None
        g, t = s.go(rng.choice(names), father)
        if not father: s.root_order.append(t)
        if rng.random() < 0.4: s.comp(g, rng.choice(["mono", "box"]))
    return s
def subtree(s, t):
    out = [t]
    for c in s.objs[t].f["children"]: out += subtree(s, c)
    return out
def duplicate(s, t):
    """Duplicate the subtree of transform `t` beside it, as Unity's Edit > Duplicate does (every
    object of it under a new fileID, references within it to the copies), each copy named
    `NAME_1` (alike on both sides, so both sides may duplicate one object alike; Unity renames
    only the top one, but the runner names new objects by their names); whether it was done."""
    inside = subtree(s, t)
    if any(s.objs[x].cls != "Transform" for x in inside):
        return False  # a prefab instance inside (`unity_instances`): placing one is an edit of its own
    objs = [x for tr in inside for x in [tr, s.objs[tr].f["go"]] + s.objs[s.objs[tr].f["go"]].f["components"][1:]]
    new = {x: s.newid(s.objs[x].cid) for x in objs}
    for x in objs:
        o = s.objs[x]; f = dict(o.f)
        for k in ("go", "father", "target"):
            if f.get(k) in new: f[k] = new[f[k]]
        for k in ("children", "components"):
            if k in f: f[k] = [new[c] for c in f[k]]
        if "points" in f: f["points"] = [new.get(w, w) for w in f["points"]]
        if o.cls == "Transform": f["pos"] = list(f["pos"])
        s.objs[new[x]] = Obj(o.cls, o.cid, new[x], f)
    for x in inside:
        s.objs[s.objs[new[x]].f["go"]].f["name"] += "_1"
    top = s.objs[new[t]]
    fa = top.f["father"]
    if fa: s.objs[fa].f["children"].insert(s.objs[fa].f["children"].index(t) + 1, new[t])
    else: s.root_order.insert(s.root_order.index(t) + 1, new[t])
    return True
def op(s, rng, tag, log):
    ts = s.transforms()
    kind = rng.choice(["add", "add", "delete", "edit", "edit", "rename", "reorder", "reparent", "component", "duplicate",
                       "uncomponent", "points", "move_component"])
    if not ts:
        kind = "add"  # an earlier edit deleted every object: only adding is left
    if kind == "add":
        father = rng.choice(ts).fid if ts and rng.random() < 0.8 else None
        g, t = s.go(f"Added{tag}{s.counter}", father); s.counter += 1
        if not father: s.root_order.append(t)
        if rng.random() < 0.5: s.comp(g, "mono")
        log.append(("add",))
    elif kind == "delete":
        t = rng.choice(ts).fid
        gone = set()
        for x in subtree(s, t):
            g = s.objs[x].f["go"]; gone.add(g); gone.update(s.objs[g].f["components"])
        fa = s.objs[t].f["father"]
        if fa: s.objs[fa].f["children"].remove(t)
        else: s.root_order.remove(t)
        for x in gone: del s.objs[x]
        unset_references(s, gone)
        log.append(("delete",))
    elif kind == "edit":
        rng.choice(ts).f["pos"][1] = rng.randint(-99, 99); log.append(("edit",))
    elif kind == "rename":
        t = rng.choice(ts); s.objs[t.f["go"]].f["name"] += tag; log.append(("rename",))
    elif kind == "reorder":
        ps = [t for t in ts if len(t.f["children"]) > 1]
        if ps: rng.shuffle(rng.choice(ps).f["children"]); log.append(("reorder",))
    elif kind == "reparent":
        t = rng.choice(ts).fid; sub = set(subtree(s, t))
        cands = [x.fid for x in ts if x.fid not in sub]
        fa = s.objs[t].f["father"]
        if fa and rng.random() < 0.2:
            # to the root
            s.objs[fa].f["children"].remove(t); s.root_order.append(t); s.objs[t].f["father"] = None; log.append(("unparent",))
        elif cands:
            n = rng.choice(cands)
            if fa: s.objs[fa].f["children"].remove(t)
            else: s.root_order.remove(t)
            s.objs[n].f["children"].append(t); s.objs[t].f["father"] = n; log.append(("reparent",))
    elif kind == "component":
        g = rng.choice(ts).f["go"]; s.comp(g, rng.choice(["mono", "box"])); log.append(("component",))
    elif kind == "duplicate":
        t = rng.choice(ts).fid
        if duplicate(s, t): log.append(("duplicate",))
    elif kind == "uncomponent":
        # Remove Component: a game object's script or collider, its entry with it
        comps = [(g, c) for g in (t.f["go"] for t in ts) for c in s.objs[g].f["components"][1:]]
        if comps:
            g, c = rng.choice(comps)
            s.objs[g].f["components"].remove(c); del s.objs[c]; log.append(("uncomponent",))
    elif kind == "move_component":
        # the inspector's Move Up / Move Down: the transform stays first
        gos = [s.objs[t.f["go"]] for t in ts if len(s.objs[t.f["go"]].f["components"]) > 2]
        if gos:
            comps = rng.choice(gos).f["components"]
            k = rng.randrange(1, len(comps) - 1)
            comps[k], comps[k + 1] = comps[k + 1], comps[k]
            log.append(("move_component",))
    elif kind == "points":
        monos = [o for o in s.objs.values() if o.cls == "MonoBehaviour"]
        if monos:
            points = rng.choice(monos).f.setdefault("points", [])
            how = rng.choice(["append", "insert", "remove", "set", "swap"])
            if how in ("append", "insert") or not points:
                points.insert(len(points) if how == "append" else rng.randint(0, len(points)), rng.choice(ts).fid)
            elif how == "remove":
                points.pop(rng.randrange(len(points)))
            elif how == "set":
                points[rng.randrange(len(points))] = rng.choice(ts).fid
            else:
                rng.shuffle(points)
            log.append(("points", how))
def unset_references(s, gone):
    """A script's references to objects an edit deleted name nothing, as Unity writes them
    (an emptied list element stays, naming nothing)."""
    for o in s.objs.values():
        if o.cls == "MonoBehaviour":
            if o.f["target"] in gone: o.f["target"] = 0
            o.f["points"] = [0 if w in gone else w for w in o.f.get("points", [])]
def scenario(seed):
    rng = random.Random(seed)
    # every other scene as Unity 2022.2+ writes it; every other pair numbered by class
    base = build(rng, rng.randint(3, 25), sequential=seed // 2 % 2 == 1)
    base.scene_roots = seed % 2 == 1
    return harness.two_sides(seed, rng, base, op)


# What the runners check in a merged scene
def problems(text, inputs):
    """What scenecheck finds in a result that no input had, and parent cycles."""
    p = set(sc.validate_unity(text.encode())) - set().union(*[set(sc.validate_unity(i.encode())) for i in inputs])
    # parent cycles
    father = {int(m.group(1)): int(m.group(2)) for m in re.finditer(r"--- !u!4 &(\d+)\n(?:.*\n)*?  m_Father: \{fileID: (\d+)\}", text)}
    for t in father:
        seen, at = set(), t
        while at and at not in seen: seen.add(at); at = father.get(at, 0)
        if at: p.add("cycle"); break
    p |= scene_roots_problems(text) - set().union(*[scene_roots_problems(i) for i in inputs])
    return sorted(p)
def scene_roots_problems(text):
    """SceneRoots must list each root once: the transforms under no father and the stripped
    transforms of the instances under no parent."""
    _, docs, _ = sc.unity_docs(text.encode())
    docs = {int(fid): (cls.decode(), stripped, body.decode()) for cls, fid, stripped, body in docs}
    listed = [int(x) for cls, _, body in docs.values() if cls == "1660057539" for x in re.findall(r"\{fileID: (-?\d+)\}", body)]
    if not any(cls == "1660057539" for cls, _, _ in docs.values()):
        return set()
    def instance_parent(i):
        m = re.search(r"m_TransformParent: \{fileID: (-?\d+)\}", docs.get(i, ("", False, ""))[2])
        return int(m.group(1)) if m else None
    roots = set()
    for fid, (cls, stripped, body) in docs.items():
        if cls != "4":
            continue
        if not stripped and "  m_Father: {fileID: 0}" in body:
            roots.add(fid)
        m = re.search(r"m_PrefabInstance: \{fileID: (-?\d+)\}", body)
        if stripped and m and instance_parent(int(m.group(1))) == 0:
            roots.add(fid)
    p = {f"SceneRoots lists {x} twice" for x, n in collections.Counter(listed).items() if n > 1}
    p |= {f"root {x} not in SceneRoots" for x in roots - set(listed)}
    p |= {f"SceneRoots lists {x}, no root" for x in set(listed) - roots}
    return p
def facts(text):
    """Each document's members written on one line at its top (`m_Name`, a flow map such as
    `m_LocalPosition`, a reference such as `m_Father`), and each prefab instance's overrides
    by target and property path, by fileID."""
    out = {}
    docs = [doc.partition("\n") for doc in re.split(r"^--- ", text, flags=re.M)[1:]]
    named = added_objects(docs)
    def value(v):
        return re.sub(r"\{fileID: (-?\d+)\}", lambda m: "{fileID: %s}" % named.get(m.group(1), m.group(1)), v)
    for head, _, body in docs:
        fid = head.split("&")[1].split()[0]
        for m in re.finditer(r"^  (\w+): (\S.*)$", body, re.M):
            out[(fid, m.group(1))] = value(m.group(2))
        for m in re.finditer(r"^  waypoints:(?: \[\])?\n((?:  - .*\n)*)", body, re.M):
            out[(fid, "waypoints")] = value(m.group(1))
        for m in re.finditer(r"- target: (\{[^}]*\})\n\s+propertyPath: (\S+)\n\s+value: ?(.*)\n\s+objectReference: (\{[^}]*\})", body):
            out[(fid, "override", m.group(1), m.group(2))] = (m.group(3), m.group(4))
    return out


def added_objects(docs):
    """The objects of added and duplicated game objects (`docs`: each document's head line and body), named
    by the game object's name and their place among its components: a merge may give a side's
    new objects other fileIDs (both sides numbering by class), and references to them are
    compared by these names."""
    bodies = {head.split("&")[1].split()[0]: body for head, _, body in docs}
    named = {}
    for fid, body in bodies.items():
        name = re.search(r"^  m_Name: (Added\S*|\S*_1)$", body, re.M)
        if name and "m_Component:" in body:
            named[fid] = name.group(1)
            for k, c in enumerate(re.findall(r"- component: \{fileID: (-?\d+)\}", body)):
                named[c] = f"{name.group(1)}#{k}"
    return named


def names(text):
    return collections.Counter(re.findall(r"m_Name: (\S+)", text))
def added(text):
    return {n for n in names(text) if n.startswith("Added")}

