"""Random Godot 4 scenes and editor-like edits (add, delete, rename, reorder, reparent, edit,
connect) for merge testing: `scenario(seed)` gives base, ours, theirs and the edits made."""
import collections
import random
import re
import string

import harness
import scenecheck as sc

class N:
    def __init__(s, name, typ, props=None):
        s.name, s.type, s.props, s.children = name, typ, props or {}, []
        s.instance = None
        # NodePath properties: the node they lead to, or the text left once it was deleted
        s.refs = {}
def rid(rng, n=5): return "".join(rng.choice(string.ascii_lowercase + string.digits) for _ in range(n))
class Scene:
    def __init__(s, rng):
        s.rng = rng
        s.ext = []   # (id, type, path)
        s.sub = []   # (id, type, props)
        s.root = N("Main", "Node2D")
        s.conns = [] # (signal, from_path, to_path, method)
        s.counter = 0
    def nodes(s):
        out = []
        def walk(n, path):
            out.append((n, path))
            for c in n.children: walk(c, c.name if path == "." else path + "/" + c.name)
        walk(s.root, ".")
        return out
    def path_of(s, node):
        for n, p in s.nodes():
            if n is node: return p
    def node_path(s, owner, target):
        """`target` as a NodePath written on `owner`, as the editor writes it (kept as it was
        written once the node it led to is gone)."""
        if isinstance(target, str):
            return target
        a, b = s.path_of(owner), s.path_of(target)
        steps = lambda p: [] if p == "." else p.split("/")
        fa, fb = steps(a), steps(b)
        common = 0
        while common < min(len(fa), len(fb)) and fa[common] == fb[common]: common += 1
        return "/".join([".."] * (len(fa) - common) + fb[common:]) or "."
    def parent_of(s, node):
        for n, p in s.nodes():
            if node in n.children: return n
    def dumps(s):
        used_sub = set(); used_ext = set()
        def scan(v):
            import re
            for m in re.finditer(r'SubResource\("([^"]+)"\)', v): used_sub.add(m.group(1))
            for m in re.finditer(r'ExtResource\("([^"]+)"\)', v): used_ext.add(m.group(1))
        for n, _ in s.nodes():
            for v in n.props.values(): scan(v)
            if n.instance: used_ext.add(n.instance)
        for i, t, props in s.sub:
            for v in props.values(): scan(v)
        ext = [e for e in s.ext if e[0] in used_ext]
        sub = [x for x in s.sub if x[0] in used_sub]
        out = [f'[gd_scene load_steps={1 + len(ext) + len(sub)} format=3 uid="uid://b{s.uid}"]', ""]
        for i, t, p in ext:
            out += [f'[ext_resource type="{t}" path="{p}" id="{i}"]']
        if ext: out.append("")
        for i, t, props in sub:
            out.append(f'[sub_resource type="{t}" id="{i}"]')
            out += [f"{k} = {v}" for k, v in props.items()]
            out.append("")
        for n, path in s.nodes():
            if n is s.root:
                hdr = f'[node name="{n.name}" type="{n.type}"]'
            else:
                par = s.path_of(s.parent_of(n))
                hdr = f'[node name="{n.name}" parent="{par}"' + (f' instance=ExtResource("{n.instance}")]' if n.instance else f' type="{n.type}"]')
            out.append(hdr)
            out += [f"{k} = {v}" for k, v in n.props.items()]
            out += [f'{k} = NodePath("{s.node_path(n, t)}")' for k, t in n.refs.items()]
            out.append("")
        for sig, f, t, m in conns_paths(s):
            out.append(f'[connection signal="{sig}" from="{f}" to="{t}" method="{m}"]')
        if s.conns: out.append("")
        return "\n".join(out).rstrip("\n") + "\n"

def build(rng, size):
    s = Scene(rng); s.uid = rid(rng, 12)
    s.ext.append((f"1_{rid(rng)}", "Script", "res://main.gd"))
    s.root.props["script"] = f'ExtResource("{s.ext[0][0]}")'
    s.ext.append((f"2_{rid(rng)}", "Texture2D", "res://icon.svg"))
    s.ext.append((f"3_{rid(rng)}", "PackedScene", "res://enemy.tscn"))
    names = ["Player", "Sprite", "Enemy", "Coin", "Wall", "Area", "Label", "Timer"]
    for i in range(size):
        parent = rng.choice([n for n, _ in s.nodes()])
        add_node(s, rng, parent, rng.choice(names) + str(rng.randint(1, 3)))
    nodes = [n for n, _ in s.nodes()]
    for n in nodes:
        if rng.random() < 0.15:
            n.refs["target"] = rng.choice([x for x in nodes if x is not n] or [n])
    return s

def add_node(s, rng, parent, name):
    if any(c.name == name for c in parent.children): name += "_" + rid(rng, 3)
    kind = rng.choice(["Sprite2D", "CollisionShape2D", "Node2D", "Label", "instance", "Timer"])
    n = N(name, kind)
    if kind == "Sprite2D":
        n.props["texture"] = f'ExtResource("{s.ext[1][0]}")'
        n.props["position"] = f"Vector2({rng.randint(-500, 500)}, {rng.randint(-500, 500)})"
    elif kind == "CollisionShape2D":
        sid = f"RectangleShape2D_{rid(rng)}"
        s.sub.append((sid, "RectangleShape2D", {"size": f"Vector2({rng.randint(1, 90)}, {rng.randint(1, 90)})"}))
        n.props["shape"] = f'SubResource("{sid}")'
    elif kind == "Label":
        n.props["text"] = '"' + rng.choice(["Score", "Lives", "Hello\\nworld"]) + '"'
    elif kind == "instance":
        n.instance = s.ext[2][0]
        n.props["position"] = f"Vector2({rng.randint(-500, 500)}, 0)"
    elif kind == "Timer":
        n.props["wait_time"] = str(rng.randint(1, 9) / 2)
        if rng.random() < 0.7:
            s.conns.append(("timeout", None, None, "_on_timer_timeout"))
            s.conns[-1] = ("timeout", n, s.root, "_on_timer_timeout")
    parent.children.append(n)
    return n

def conns_paths(s):
    out = []
    for sig, f, t, m in s.conns:
        out.append((sig, s.path_of(f), s.path_of(t), m))
    return out

def subtree(n):
    out = [n]
    for c in n.children: out += subtree(c)
    return out

def op(s, rng, tag, log):
    nodes = [n for n, _ in s.nodes()]
    inner = nodes[1:]
    kind = rng.choice(["add", "add", "delete", "edit", "edit", "rename", "reorder", "reparent", "connect", "instance_child",
                       "duplicate", "edit_shape", "make_unique", "node_path"])
    if kind == "add":
        p = rng.choice(nodes); n = add_node(s, rng, p, f"Added{tag}{s.counter}"); s.counter += 1
        log.append(("add", n.name))
    elif kind == "delete" and inner:
        n = rng.choice(inner); p = s.parent_of(n)
        gone = {id(x) for x in subtree(n)}
        # the editor leaves a NodePath to a deleted node as it was written
        for x in nodes:
            if id(x) not in gone:
                x.refs = {k: s.node_path(x, t) if id(t) in gone else t for k, t in x.refs.items()}
        p.children.remove(n)
        s.conns = [c for c in s.conns if id(c[1]) not in gone and id(c[2]) not in gone]
        log.append(("delete", n.name))
    elif kind == "edit":
        n = rng.choice(nodes)
        n.props["position"] = f"Vector2({rng.randint(-999, 999)}, {rng.randint(-999, 999)})"
        log.append(("edit", n.name))
    elif kind == "rename" and inner:
        n = rng.choice(inner); p = s.parent_of(n)
        new = n.name + tag
        if not any(c.name == new for c in p.children): n.name = new; log.append(("rename", n.name))
    elif kind == "reorder":
        ps = [n for n in nodes if len(n.children) > 1]
        if ps: p = rng.choice(ps); rng.shuffle(p.children); log.append(("reorder", p.name))
    elif kind == "reparent" and inner:
        n = rng.choice(inner); sub = {id(x) for x in subtree(n)}
        ts = [t for t in nodes if id(t) not in sub and not any(c.name == n.name for c in t.children)]
        if ts:
            t = rng.choice(ts); s.parent_of(n).children.remove(n); t.children.append(n); log.append(("reparent", n.name, t.name))
    elif kind == "connect" and inner:
        f = rng.choice(inner)
        # Godot connects a signal to a method once: the editor refuses a second alike.
        if not any(c[0] == "ready" and c[1] is f and c[2] is s.root for c in s.conns):
            s.conns.append(("ready", f, s.root, f"_on_{f.name.lower()}_ready")); log.append(("connect", f.name))
    elif kind == "instance_child":
        # editable children of an instance: a node under an instanced scene's node
        ins = [n for n in nodes if n.instance]
        if ins:
            n = rng.choice(ins); c = N(f"Extra{tag}{s.counter}", "Node2D"); s.counter += 1; n.children.append(c); log.append(("instance_child", c.name))

    elif kind == "duplicate" and inner:
        n = rng.choice(inner); p = s.parent_of(n)
        # Godot names the copy as the next free name; the same on both sides for one node
        name = n.name + "2"
        if not any(c.name == name for c in p.children):
            copies = duplicate(n, name)
            p.children.insert(p.children.index(n) + 1, copies[id(n)])
            # its signals are copied with it
            s.conns += [(sig, copies.get(id(f), f), copies.get(id(t), t), m) for sig, f, t, m in s.conns if id(f) in copies]
            log.append(("duplicate", n.name, name))
    elif kind == "edit_shape":
        used = [x for x in s.sub if any(f'SubResource("{x[0]}")' in v for n in nodes for v in n.props.values())]
        if used:
            x = rng.choice(used); x[2]["size"] = f"Vector2({rng.randint(1, 90)}, {rng.randint(1, 90)})"; log.append(("edit_shape", x[0]))
    elif kind == "node_path":
        # an exported NodePath pointed at another node in the inspector, or cleared
        n = rng.choice(nodes)
        if rng.random() < 0.2 and n.refs:
            n.refs["target"] = ""; log.append(("clear_path", n.name))
        elif inner:
            t = rng.choice([x for x in nodes if x is not n]); n.refs["target"] = t; log.append(("node_path", n.name, t.name))
    elif kind == "make_unique":
        # the inspector's Make Unique: the node's own copy of a shared sub-resource
        users = [n for n in nodes if n.props.get("shape", "").startswith("SubResource")]
        if users:
            n = rng.choice(users); old = n.props["shape"].split('"')[1]
            _, typ, props = next(x for x in s.sub if x[0] == old)
            sid = f"{typ}_{rid(s.rng)}"
            s.sub.append((sid, typ, dict(props))); n.props["shape"] = f'SubResource("{sid}")'; log.append(("make_unique", n.name))


def duplicate(n, name):
    """A copy of node `n`'s subtree, the top one named `name`, its resources shared (as Godot's
    Duplicate leaves them): each copy by the id of its original."""
    copies = {}
    def copy(x, new_name):
        c = N(new_name, x.type, dict(x.props)); c.instance = x.instance; c.refs = dict(x.refs)
        copies[id(x)] = c
        c.children = [copy(k, k.name) for k in x.children]
        return c
    copy(n, name)
    # NodePaths within the copy lead to the copies
    for c in copies.values():
        c.refs = {k: copies.get(id(t), t) if not isinstance(t, str) else t for k, t in c.refs.items()}
    return copies


def scenario(seed):
    rng = random.Random(seed)
    return harness.two_sides(seed, rng, build(rng, rng.randint(3, 30)), op)


# What the runners check in a merged scene
def problems(text, inputs):
    """What scenecheck finds in a result that no input had, and connections naming no node."""
    data = text.encode()
    p = set(sc.validate_godot(data)) - set().union(*[set(sc.validate_godot(i.encode())) for i in inputs])
    secs, _ = sc.godot_sections(data)
    paths = set()
    for kind, attrs, hdr, body in secs:
        if kind == b"node":
            par = attrs.get(b"parent")
            name = sc._unq(attrs.get(b"name", b""))
            paths.add(b"." if par is None else (name if sc._unq(par) == b"." else sc._unq(par) + b"/" + name))
    for kind, attrs, hdr, body in secs:
        if kind == b"connection":
            for k in (b"from", b"to"):
                v = sc._unq(attrs.get(k, b""))
                if v not in paths: p.add(f"connection {k.decode()} {v.decode()} missing")
    return sorted(p)


def node_paths(text):
    """Each NodePath property: its node's name and property (rename tags left out), its text,
    and whether it leads to a node."""
    secs, _ = sc.godot_sections(text.encode())
    nodes = []
    for kind, attrs, hdr, body in secs:
        if kind == b"node":
            par, name = attrs.get(b"parent"), sc._unq(attrs.get(b"name", b"")).decode()
            path = "." if par is None else (name if sc._unq(par) == b"." else sc._unq(par).decode() + "/" + name)
            nodes.append((path, name, body.decode()))
    paths = {p for p, _, _ in nodes}
    return [((untagged(name), prop), target, resolve(path, target) in paths)
            for path, name, body in nodes for prop, target in re.findall(r'^(\S+) = NodePath\("([^"]+)"\)$', body, re.M)]


def rewritten_to_nowhere(text, inputs):
    """NodePaths the merge wrote anew (no input holds their text there) that lead nowhere
    though every input's path there leads somewhere. One left leading to a node the other side
    deleted is not counted: the editor leaves such paths as they were. Asked of clean results
    only: a conflict's view may keep a path one side wrote to a node the other side's view
    takes away, which is as harmless as a path left leading to a deleted node."""
    written = {}
    for i in inputs:
        for key, target, leads in node_paths(i):
            written.setdefault(key, []).append((target, leads))
    out = set()
    for key, target, leads in node_paths(text):
        before = written.get(key, [])
        if not leads and before and all(ok for _, ok in before) and target not in {t for t, _ in before}:
            out.add(f"NodePath {key[0]}.{key[1]} written anew as {target}, which leads nowhere")
    return sorted(out)


def facts(text):
    """Each node's properties by its path, but those naming resources (whose ids a save may
    give anew). A NodePath is its target's name (rename tags left out): a merge writes it anew
    where the other side moved either end; one that leads nowhere is left out."""
    out = {}
    secs, _ = sc.godot_sections(text.encode())
    nodes = []
    for kind, attrs, hdr, body in secs:
        if kind != b"node":
            continue
        par, name = attrs.get(b"parent"), sc._unq(attrs.get(b"name", b""))
        path = b"." if par is None else (name if sc._unq(par) == b"." else sc._unq(par) + b"/" + name)
        nodes.append((path.decode(), body))
    paths = {p for p, _ in nodes}
    for path, body in nodes:
        for m in re.finditer(rb"^(\S+) = (.*)$", body, re.M):
            value = m.group(2).decode()
            if "Resource(" in value:
                continue
            target = re.fullmatch(r'NodePath\("([^"]*)"\)', value)
            if target and target.group(1):
                at = resolve(path, target.group(1))
                if at not in paths:
                    continue  # left naming a deleted node: whatever the merge writes there
                value = ("NodePath", untagged(at.rsplit("/", 1)[-1]))
            out[(path, m.group(1).decode())] = value
    return out


def untagged(name):
    """A node's name without the tags renames append."""
    return re.sub(r"[OT]+$", "", name)


def resolve(owner, node_path):
    """The scene path `node_path`, written on the node at `owner`, leads to, or None."""
    at = [] if owner == "." else owner.split("/")
    for step in node_path.split("/"):
        if step == "..":
            if not at: return None
            at.pop()
        elif step not in ("", "."):
            at.append(step)
    return "/".join(at) or "."


def names(text):
    """Each node by name, parent and properties, a sub-resource it uses named by its content:
    which side's id a resource both sides made alike keeps (Make Unique on both) depends on
    which side is ours."""
    secs, _ = sc.godot_sections(text.encode())
    content = {sc._unq(a.get(b"id", b"")): body for k, a, h, body in secs if k == b"sub_resource"}
    def used(body):
        return re.sub(rb'SubResource\("([^"]+)"\)', lambda m: b"SubResource(" + content.get(m.group(1), m.group(1)) + b")", body)
    # Properties both sides added to one node are written ours' first: their order is no part
    # of the shape.
    def props(body):
        return b"\n".join(sorted(used(body).splitlines()))
    return collections.Counter((sc._unq(a.get(b"name", b"")), sc._unq(a.get(b"parent", b"-")), props(body)) for k, a, h, body in secs if k == b"node")
def added(text):
    return {n for (n, _, _) in names(text) if n.startswith(b"Added")}

