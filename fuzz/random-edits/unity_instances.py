"""Random Unity scenes holding prefab instances, and editor-like edits of them for merge
testing: besides `unity`'s edits, instantiate a prefab, override or revert one of its
properties (or point one at a scene object), remove one of its components, add a child or a
component to it, move or delete it.
`scenario(seed)` gives base, ours, theirs and the edits made."""
import collections
import random
import re

import harness
import scenecheck as sc
import unity

# The source prefabs' objects, by the fileIDs an instance's overrides name.
SOURCE_GAME_OBJECT, SOURCE_TRANSFORM = 100100, 400100
SOURCE_COMPONENTS = [11400100, 11400200, 6500100]
OVERRIDABLE = [
    (SOURCE_TRANSFORM, "m_LocalPosition.x"), (SOURCE_TRANSFORM, "m_LocalPosition.y"),
    (SOURCE_TRANSFORM, "m_LocalRotation.w"), (SOURCE_GAME_OBJECT, "m_IsActive"),
    (11400100, "speed"), (11400200, "m_Enabled"), (6500100, "m_Size.x"),
]
GUIDS = ["0a1b2c3d4e5f60718293a4b5c6d7e8f9", "f9e8d7c6b5a4938271605f4e3d2c1b0a"]


def source(fid, guid):
    return f"{{fileID: {fid}, guid: {guid}, type: 3}}"


class Scene(unity.Scene):
    """A `unity.Scene` whose stripped transforms (class `StrippedTransform`) stand for prefab
    instances, kept in `instances`: children hang under them as under any transform, and
    components added to an instance belong to its stripped game object, written only while
    it has some. What the file lists of both (`m_AddedGameObjects`, `m_AddedComponents`)
    and the instance's parent are written from them, so they always agree."""

    def __init__(s, rng):
        super().__init__(rng)
        s.instances = {}

    def instantiate(s, name, father):
        i, t = s.newid(), s.newid()
        # Unity derives a stripped object's fileID from its instance's and its source's
        g = (i ^ SOURCE_GAME_OBJECT) | 1
        while g in s.objs or g in (i, t):
            g += 2
        s.objs[t] = unity.Obj("StrippedTransform", 4, t, {"go": g, "children": [], "father": father, "instance": i})
        s.objs[g] = unity.Obj("StrippedGameObject", 1, g, {"components": [], "instance": i})
        if father:
            s.objs[father].f["children"].append(t)
        else:
            s.root_order.append(t)
        mods = {(SOURCE_GAME_OBJECT, "m_Name"): name, (SOURCE_TRANSFORM, "m_LocalPosition.x"): str(s.rng.randint(-9, 9))}
        s.instances[i] = {"transform": t, "guid": s.rng.choice(GUIDS), "mods": mods, "removed": []}
        return i

    def prune_instances(s):
        """Drop the instances whose stripped transform or game object an edit deleted (a
        deleted subtree takes the game objects it holds, and their components)."""
        for i, inst in list(s.instances.items()):
            t = inst["transform"]
            if t not in s.objs or s.objs[t].f["go"] not in s.objs:
                for x in [o.fid for o in s.objs.values() if o.cls.startswith("Stripped") and o.f["instance"] == i]:
                    father = s.objs[x].f.get("father")
                    if father in s.objs:
                        s.objs[father].f["children"].remove(x)
                    elif x in s.root_order:
                        s.root_order.remove(x)
                    del s.objs[x]
                del s.instances[i]

    def unset_references(s):
        """Overrides naming an object that is gone name nothing, as Unity writes them."""
        for inst in s.instances.values():
            for k, v in inst["mods"].items():
                if v.startswith("&") and int(v[1:]) not in s.objs:
                    inst["mods"][k] = "&0"

    def father_of(s, t):
        return s.objs[t].f["father"] or 0

    def dumps(s):
        head, *rest = super().dumps().split("--- ")
        docs = [(int(d.split("&", 1)[1].split("\n", 1)[0]), "--- " + d) for d in rest]
        for fid in set(s.instances) | {o.fid for o in s.objs.values() if o.cls.startswith("Stripped")}:
            docs.append((fid, s.dump_one(fid)))
        # every document sorted by fileID, as Unity writes a scene
        return head + "".join(d for _, d in sorted(docs))

    def dump_one(s, fid):
        if fid in s.instances:
            inst = s.instances[fid]
            t = s.objs[inst["transform"]]
            g = s.objs[t.f["go"]]
            guid = inst["guid"]
            out = [f"--- !u!1001 &{fid}\nPrefabInstance:\n  m_ObjectHideFlags: 0\n  serializedVersion: 2\n  m_Modification:\n"
                   f"    serializedVersion: 3\n    m_TransformParent: {{fileID: {s.father_of(t.fid)}}}\n    m_Modifications:\n"]
            father = s.father_of(t.fid)
            order = s.objs[father].f["children"].index(t.fid) if father else s.root_order.index(t.fid)
            mods = dict(inst["mods"])
            if not s.scene_roots:
                mods[(SOURCE_TRANSFORM, "m_RootOrder")] = str(order)
            for (target, path), value in sorted(mods.items()):
                # an override naming a scene object: its value empty, the object referenced
                ref = value[1:] if value.startswith("&") else "0"
                value = "" if value.startswith("&") else value
                out.append(f"    - target: {source(target, guid)}\n      propertyPath: {path}\n      value: {value}\n      objectReference: {{fileID: {ref}}}\n")
            out.append("    m_RemovedComponents:" + (" []\n" if not inst["removed"] else "\n" + "".join(f"    - {source(c, guid)}\n" for c in inst["removed"])))
            out.append("    m_RemovedGameObjects: []\n")
            out.append("    m_AddedGameObjects:" + (" []\n" if not t.f["children"] else "\n" + "".join(
                f"    - targetCorrespondingSourceObject: {source(SOURCE_TRANSFORM, guid)}\n      insertIndex: -1\n      addedObject: {{fileID: {c}}}\n" for c in t.f["children"])))
            out.append("    m_AddedComponents:" + (" []\n" if not g.f["components"] else "\n" + "".join(
                f"    - targetCorrespondingSourceObject: {source(SOURCE_GAME_OBJECT, guid)}\n      insertIndex: -1\n      addedObject: {{fileID: {c}}}\n" for c in g.f["components"])))
            out.append(f"  m_SourcePrefab: {{fileID: 100100000, guid: {guid}, type: 3}}\n")
            return "".join(out)
        o = s.objs[fid]
        if o.cls == "StrippedGameObject" and not o.f["components"]:
            return ""
        guid = s.instances[o.f["instance"]]["guid"]
        cid, cls, src = (4, "Transform", SOURCE_TRANSFORM) if o.cls == "StrippedTransform" else (1, "GameObject", SOURCE_GAME_OBJECT)
        return (f"--- !u!{cid} &{fid} stripped\n{cls}:\n  m_CorrespondingSourceObject: {source(src, guid)}\n"
                f"  m_PrefabInstance: {{fileID: {o.f['instance']}}}\n  m_PrefabAsset: {{fileID: 0}}\n")


def build(rng, size):
    s = Scene(rng)
    s.root_order = []
    base = unity.build(rng, size)
    s.objs, s.root_order = base.objs, base.root_order
    for k in range(rng.randint(1, 4)):
        ts = s.transforms()
        father = rng.choice(ts).fid if ts and rng.random() < 0.6 else None
        i = s.instantiate(f"Instance{k}", father)
        if rng.random() < 0.4:
            unity.Scene.go(s, f"Child{k}", s.instances[i]["transform"])
        if rng.random() < 0.3:
            s.comp(s.objs[s.instances[i]["transform"]].f["go"], "mono")
    return s


def op(s, rng, tag, log):
    kind = rng.choice(["scene", "scene", "instantiate", "override", "override", "revert", "remove_component",
                       "add_child", "add_component", "delete_instance", "move_instance", "override_reference"])
    if not s.instances and kind not in ("scene", "instantiate"):
        kind = "instantiate"
    if kind == "scene":
        unity.op(s, rng, tag, log)
        s.prune_instances()
        s.unset_references()
        return
    if kind == "instantiate":
        # under a scene transform, at the root, or nested under another instance
        ts = s.transforms()
        nests = [o for o in s.objs.values() if o.cls == "StrippedTransform"]
        if nests and rng.random() < 0.25:
            ts = nests
        father = rng.choice(ts).fid if ts and rng.random() < 0.7 else None
        s.instantiate(f"Added{tag}{s.counter}", father)
        s.counter += 1
    else:
        i = rng.choice(sorted(s.instances))
        inst = s.instances[i]
        t = inst["transform"]
        if kind == "override":
            inst["mods"][rng.choice(OVERRIDABLE)] = str(rng.randint(-99, 99))
        elif kind == "override_reference":
            game_objects = [o.fid for o in s.objs.values() if o.cls == "GameObject"]
            if game_objects:
                inst["mods"][(11400100, "target")] = "&" + str(rng.choice(game_objects))
        elif kind == "revert":
            reverting = [k for k in inst["mods"] if k[1] != "m_Name"]
            if reverting:
                del inst["mods"][rng.choice(reverting)]
        elif kind == "remove_component":
            left = [c for c in SOURCE_COMPONENTS if c not in inst["removed"]]
            if left:
                inst["removed"].append(rng.choice(left))
                inst["mods"] = {k: v for k, v in inst["mods"].items() if k[0] not in inst["removed"]}
        elif kind == "add_child":
            s.go(f"Added{tag}{s.counter}", t)
            s.counter += 1
        elif kind == "add_component":
            s.comp(s.objs[t].f["go"], "mono")
        elif kind == "delete_instance":
            gone = set()
            for x in unity.subtree(s, t):
                g = s.objs[x].f["go"]
                gone.add(x)
                gone.add(g)
                gone.update(s.objs[g].f["components"])
            father = s.objs[t].f["father"]
            if father:
                s.objs[father].f["children"].remove(t)
            else:
                s.root_order.remove(t)
            for x in gone:
                del s.objs[x]
            unity.unset_references(s, gone)
            s.prune_instances()
            s.unset_references()
        elif kind == "move_instance":
            inside = set(unity.subtree(s, t))
            candidates = [x.fid for x in s.transforms() if x.fid not in inside]
            if candidates:
                father = s.objs[t].f["father"]
                if father:
                    s.objs[father].f["children"].remove(t)
                else:
                    s.root_order.remove(t)
                new = rng.choice(candidates)
                s.objs[new].f["children"].append(t)
                s.objs[t].f["father"] = new
    log.append((kind,))


def scenario(seed):
    rng = random.Random(seed)
    base = build(rng, rng.randint(3, 18))
    base.scene_roots = seed % 2 == 1  # every other scene as Unity 2022.2+ writes it
    return harness.two_sides(seed, rng, base, op)


# What the runner checks in a merged scene, besides `unity.problems`
FILE_ID = re.compile(r"\{fileID: (-?\d+)")


def instance_problems(text):
    """Instances whose lists disagree with the scene: an added object that is missing, not
    under the instance or listed twice, an object under an instance it does not list, an
    override made twice, a parent that is not the stripped transform's."""
    head, docs, _ = sc.unity_docs(text.encode())
    docs = {int(fid): (cls.decode(), stripped, body.decode()) for cls, fid, stripped, body in docs}
    p = set()
    stripped_of = collections.defaultdict(dict)
    for fid, (cls, stripped, body) in docs.items():
        m = re.search(r"m_PrefabInstance: \{fileID: (-?\d+)\}", body)
        if stripped and m:
            stripped_of[int(m.group(1))][cls] = fid
    listed_by = collections.defaultdict(list)
    for fid, (cls, stripped, body) in docs.items():
        if cls == "4" and not stripped:
            for c in map(int, FILE_ID.findall(body.split("m_Children:", 1)[1].split("m_Father:")[0])):
                listed_by[c].append(fid)
    for i, (cls, stripped, body) in docs.items():
        if cls != "1001":
            continue
        mine = stripped_of[i]
        t, g = mine.get("4"), mine.get("1")
        mods = re.findall(r"- target: \{fileID: (-?\d+)[^\n]*\n\s+propertyPath: (\S+)", body)
        if len(set(mods)) != len(mods):
            p.add(f"instance {i} overrides one property twice")
        parent = int(re.search(r"m_TransformParent: \{fileID: (-?\d+)\}", body).group(1))
        fathers = listed_by.get(t, [])
        nested = parent in docs and docs[parent][1]  # under another instance, listed by its m_AddedGameObjects
        if len(fathers) > 1 or (fathers[0] if fathers else 0) != (0 if nested else parent):
            p.add(f"instance {i} has parent {parent}, its transform is listed by {fathers}")
        for what, owner, key in (("m_AddedGameObjects", t, "m_Father"), ("m_AddedComponents", g, "m_GameObject")):
            part = body.split(what + ":", 1)[1]
            part = part.split("\n    m_", 1)[0].split("\n  m_", 1)[0]
            added = [int(x) for x in re.findall(r"addedObject: \{fileID: (-?\d+)\}", part)]
            if len(set(added)) != len(added):
                p.add(f"instance {i} lists an added object twice in {what}")
            # what hangs on the instance: objects naming it by `key`, and the stripped
            # transforms of the instances nested under it
            on_it = set()
            if owner is not None:
                for fid, (cls, stripped, other) in docs.items():
                    if f"{key}: {{fileID: {owner}}}" in other and not stripped:
                        on_it.add(fid)
                    if cls == "1001" and what == "m_AddedGameObjects" and f"m_TransformParent: {{fileID: {owner}}}" in other:
                        on_it.add(stripped_of[fid].get("4"))
            for a in added:
                if a not in docs:
                    p.add(f"instance {i} lists missing {a} in {what}")
                elif a not in on_it:
                    p.add(f"instance {i} lists {a} in {what}, which is not on it")
            for fid in on_it - set(added):
                p.add(f"{fid} is on instance {i} but not in its {what}")
    return p


def problems(text, inputs):
    mine = instance_problems(text) - set().union(*[instance_problems(x) for x in inputs])
    return sorted(set(unity.problems(text, inputs)) | mine)


def names(text):
    """Object names, an instance's override of its name among them."""
    return unity.names(text) + collections.Counter(re.findall(r"propertyPath: m_Name\n\s+value: (\S+)", text))


def added(text):
    return {n for n in names(text) if n.startswith("Added")}
