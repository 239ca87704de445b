"""Merge random Cocos Creator 3.x scenes or prefabs edited on both sides, both ways, and report
broken results, unresolvable conflict views, asymmetries and lost additions.
Usage: run_cocos3.py FIRST_SEED COUNT scene|prefab"""
import sys, os, json, subprocess, tempfile, shutil, collections
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.environ.get("LEVELMERGE_SHARED_TOOLS", os.path.join(ROOT, "..", "shared", "tools")))
LM = os.environ.get("LM", os.path.join(ROOT, "target", "release", "levelmerge"))
import cocos3

def structure_problems(text):
    if "<<<<<<<" in text or ">>>>>>>" in text: return ["markers"]
    try: a = json.loads(text)
    except Exception as e: return [f"json: {e}"]
    probs = []
    def refs(v, out):
        if isinstance(v, dict):
            if set(v) == {"__id__"}: out.append(v["__id__"]); return
            for x in v.values(): refs(x, out)
        elif isinstance(v, list):
            for x in v: refs(x, out)
    for i, e in enumerate(a):
        r = []; refs(e, r)
        for n in r:
            if not (isinstance(n, int) and 0 <= n < len(a)): probs.append(f"dangling {i}->{n}")
    if probs: return probs
    listed = collections.Counter()
    for i, e in enumerate(a):
        if e.get("__type__") in ("cc.Node", "cc.Scene"):
            for c in e.get("_children", []):
                listed[c["__id__"]] += 1
                if (a[c["__id__"]].get("_parent") or {}).get("__id__") != i: probs.append(f"child {c['__id__']} of {i} has another parent")
            seen = set()
            for c in e.get("_components", []):
                if c["__id__"] in seen: probs.append(f"component {c['__id__']} twice")
                seen.add(c["__id__"])
                if (a[c["__id__"]].get("node") or {}).get("__id__") != i: probs.append(f"component {c['__id__']} of {i} names another node")
    for i, e in enumerate(a):
        if e.get("__type__") == "cc.Node":
            p = e.get("_parent")
            if p is not None and listed[i] != 1: probs.append(f"node {i} listed {listed[i]} times")
            if p is not None and a[p["__id__"]].get("__type__") not in ("cc.Node", "cc.Scene"): probs.append(f"node {i} parent not a node")
        if e.get("__type__", "").startswith("cc.") is False or "node" in e:
            n = e.get("node")
            if n and not any(c["__id__"] == i for c in a[n["__id__"]].get("_components", [])): probs.append(f"component {i} not listed by its node")
    ids = collections.Counter(e.get("_id") for e in a if e.get("_id"))
    probs += [f"_id {k} x{v}" for k, v in ids.items() if v > 1]
    fids = collections.Counter(e.get("fileId") for e in a if e.get("fileId"))
    probs += [f"fileId {k} x{v}" for k, v in fids.items() if v > 1]
    # reachability from element 0
    seen, stack = {0}, [0]
    while stack:
        r = []; refs(a[stack.pop()], r)
        for n in r:
            if n not in seen: seen.add(n); stack.append(n)
    # components/prefab infos are referenced from their nodes; unreachable elements are lost
    un = [i for i in range(len(a)) if i not in seen]
    if un: probs.append(f"unreachable {un[:5]}")
    return probs

def names(text):
    a = json.loads(text)
    return collections.Counter((e.get("_name"), a[e["_parent"]["__id__"]].get("_name") if e.get("_parent") else None, len(e.get("_components", [])))
                               for e in a if e.get("__type__") == "cc.Node")

def merge(d, b, o, t, ext):
    paths = [os.path.join(d, n + ext) for n in ("base", "ours", "theirs")]
    for p, x in zip(paths, (b, o, t)): open(p, "w").write(x)
    out = os.path.join(d, "out" + ext)
    if os.path.exists(out): os.remove(out)
    r = subprocess.run([LM, "merge", *paths, "-o", out], capture_output=True, text=True, timeout=60)
    text = open(out).read() if os.path.exists(out) else None
    views = {}
    if r.returncode == 1 and text is not None:
        for s in ("ours", "theirs"):
            v = os.path.join(d, f"view-{s}" + ext); shutil.copy(out, v)
            rr = subprocess.run([LM, "resolve", v, "--take", s], capture_output=True, text=True)
            views[s] = (rr.returncode, open(v).read())
    return r.returncode, text, r.stderr, views

def main(start, count, prefab):
    ext = ".prefab" if prefab else ".scene"
    stats = collections.Counter()
    d = tempfile.mkdtemp()
    for seed in range(start, start + count):
        (b, o, t), logs = cocos3.scenario(seed, prefab)
        res = []
        for swap in (False, True):
            oo, tt = (t, o) if swap else (o, t)
            code, text, err, views = merge(d, b, oo, tt, ext)
            res.append((code, text, err, views))
            tag = f"seed {seed}{' swapped' if swap else ''}"
            if code == 0:
                p = structure_problems(text)
                if p: print(tag, "BROKEN", p[:3], logs); stats["BROKEN"] += 1
                else:
                    bn = {n for (n, _, _) in names(b)}
                    added = [n for side in (o, t) for (n, _, _) in names(side) if n not in bn and n.startswith("Added")]
                    have = {n for (n, _, _) in names(text)}
                    # an added node is kept unless a deleted node took it (the other side's deletion wins only with a conflict)
                    lost = [n for n in added if n not in have]
                    if lost: print(tag, "LOST", lost, logs); stats["lost"] += 1
            elif code == 1:
                if "merged as lines" in err: stats["lines"] += 1; print(tag, "LINES", err.strip().splitlines()[0][:200], logs)
                for s, (rc, v) in views.items():
                    p = structure_problems(v) if rc == 0 else [f"resolve exit {rc}"]
                    if p: print(tag, "VIEW", s, p[:3], logs); stats["badview"] += 1
            else:
                print(tag, "ERROR", code, err[:300]); stats["error"] += 1
            stats[f"exit{code}"] += 1
        (c1, t1, _, _), (c2, t2, _, _) = res
        if c1 != c2: print(f"seed {seed} ASYM exit {c1} vs {c2}", logs); stats["asym"] += 1
        elif c1 == 0 and names(t1) != names(t2): print(f"seed {seed} ASYM content", logs); stats["asym"] += 1
    print(dict(stats))

if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "prefab")
