"""Merge random Godot 4 scenes edited on both sides, both ways, and report broken results,
unresolvable conflict views, asymmetries and lost additions. Usage: run_godot4.py FIRST_SEED COUNT"""
import sys, os, re, subprocess, tempfile, shutil, collections
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.environ.get("LEVELMERGE_SHARED_TOOLS", os.path.join(ROOT, "..", "shared", "tools")))
LM = os.environ.get("LM", os.path.join(ROOT, "target", "release", "levelmerge"))
import godot4, scenecheck as sc
def problems(text, inputs):
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
def names(text):
    secs, _ = sc.godot_sections(text.encode())
    return collections.Counter((sc._unq(a.get(b"name", b"")), sc._unq(a.get(b"parent", b"-")), body) for k, a, h, body in secs if k == b"node")
def merge(d, b, o, t):
    paths = [os.path.join(d, n + ".tscn") for n in ("base", "ours", "theirs")]
    for p, x in zip(paths, (b, o, t)): open(p, "w").write(x)
    out = os.path.join(d, "out.tscn")
    if os.path.exists(out): os.remove(out)
    r = subprocess.run([LM, "merge", *paths, "-o", out], capture_output=True, text=True, timeout=60)
    text = open(out).read() if os.path.exists(out) else None
    views = {}
    if r.returncode == 1 and text is not None and "merged as lines" not in r.stderr:
        for s in ("ours", "theirs"):
            v = os.path.join(d, f"view-{s}.tscn"); shutil.copy(out, v)
            rr = subprocess.run([LM, "resolve", v, "--take", s], capture_output=True, text=True)
            views[s] = (rr.returncode, open(v).read())
    return r.returncode, text, r.stderr, views
stats = collections.Counter(); d = tempfile.mkdtemp()
for seed in range(int(sys.argv[1]), int(sys.argv[1]) + int(sys.argv[2])):
    (b, o, t), logs = godot4.scenario(seed)
    res = []
    for swap in (False, True):
        oo, tt = (t, o) if swap else (o, t)
        code, text, err, views = merge(d, b, oo, tt); res.append((code, text))
        tag = f"seed {seed}{' swapped' if swap else ''}"
        if code == 0:
            p = problems(text, (b, o, t))
            if p: print(tag, "BROKEN", p[:3], logs); stats["BROKEN"] += 1
            bn = {n for (n, _, _) in names(b)}
            lost = [n for side in (o, t) for (n, _, _) in names(side) if n not in bn and n.startswith(b"Added") and n not in {x for (x, _, _) in names(text)}]
            if lost: print(tag, "LOST", lost, logs); stats["lost"] += 1
        elif code == 1:
            if "merged as lines" in err: stats["lines"] += 1; print(tag, "LINES", err.strip().splitlines()[0][-200:], logs)
            for s, (rc, v) in views.items():
                p = problems(v, (b, o, t)) if rc == 0 else [f"resolve exit {rc}"]
                if p: print(tag, "VIEW", s, p[:3], logs); stats["badview"] += 1
        else:
            print(tag, "ERROR", code, err[:300]); stats["error"] += 1
        stats[f"exit{code}"] += 1
    (c1, t1), (c2, t2) = res
    if c1 != c2: print(f"seed {seed} ASYM exit {c1} vs {c2}", logs); stats["asym"] += 1
    elif c1 == 0 and names(t1) != names(t2): print(f"seed {seed} ASYM content", logs); stats["asym"] += 1
print(dict(stats))
