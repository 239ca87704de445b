"""Merge random Unity scenes edited on both sides, both ways, and report broken results,
unresolvable conflict views, asymmetries and lost additions. Usage: run_unity.py FIRST_SEED COUNT"""
import sys, os, re, subprocess, tempfile, shutil, collections
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.environ.get("LEVELMERGE_SHARED_TOOLS", os.path.join(ROOT, "..", "shared", "tools")))
LM = os.environ.get("LM", os.path.join(ROOT, "target", "release", "levelmerge"))
import unity, scenecheck as sc
def problems(text, inputs):
    p = set(sc.validate_unity(text.encode())) - set().union(*[set(sc.validate_unity(i.encode())) for i in inputs])
    # parent cycles
    father = {int(m.group(1)): int(m.group(2)) for m in re.finditer(r"--- !u!4 &(\d+)\n(?:.*\n)*?  m_Father: \{fileID: (\d+)\}", text)}
    for t in father:
        seen, at = set(), t
        while at and at not in seen: seen.add(at); at = father.get(at, 0)
        if at: p.add("cycle"); break
    return sorted(p)
def names(text):
    return collections.Counter(re.findall(r"m_Name: (\S+)", text))
def merge(d, b, o, t):
    paths = [os.path.join(d, n + ".unity") for n in ("base", "ours", "theirs")]
    for p, x in zip(paths, (b, o, t)): open(p, "w").write(x)
    out = os.path.join(d, "out.unity")
    if os.path.exists(out): os.remove(out)
    r = subprocess.run([LM, "merge", *paths, "-o", out], capture_output=True, text=True, timeout=60)
    text = open(out).read() if os.path.exists(out) else None
    views = {}
    if r.returncode == 1 and text is not None and "merged as lines" not in r.stderr:
        for s in ("ours", "theirs"):
            v = os.path.join(d, f"view-{s}.unity"); shutil.copy(out, v)
            rr = subprocess.run([LM, "resolve", v, "--take", s], capture_output=True, text=True)
            views[s] = (rr.returncode, open(v).read())
    return r.returncode, text, r.stderr, views
stats = collections.Counter(); d = tempfile.mkdtemp()
for seed in range(int(sys.argv[1]), int(sys.argv[1]) + int(sys.argv[2])):
    (b, o, t), logs = unity.scenario(seed)
    res = []
    for swap in (False, True):
        oo, tt = (t, o) if swap else (o, t)
        code, text, err, views = merge(d, b, oo, tt); res.append((code, text))
        tag = f"seed {seed}{' swapped' if swap else ''}"
        if code == 0:
            p = problems(text, (b, o, t))
            if p: print(tag, "BROKEN", p[:3], logs); stats["BROKEN"] += 1
            added = {n for side in (o, t) for n in names(side) if n.startswith("Added")}
            lost = [n for n in added if n not in names(text)]
            if lost: print(tag, "LOST", lost, logs); stats["lost"] += 1
        elif code == 1:
            if "merged as lines" in err: stats["lines"] += 1; print(tag, "LINES", err.strip().splitlines()[0][-220:], logs)
            for s, (rc, v) in views.items():
                p = problems(v, (b, o, t)) if rc == 0 else [f"resolve exit {rc}: {v[:0]}"]
                if p: print(tag, "VIEW", s, p[:3], logs); stats["badview"] += 1
        else:
            print(tag, "ERROR", code, err[:300]); stats["error"] += 1
        stats[f"exit{code}"] += 1
    (c1, t1), (c2, t2) = res
    if c1 != c2: print(f"seed {seed} ASYM exit {c1} vs {c2}", logs); stats["asym"] += 1
    elif c1 == 0 and names(t1) != names(t2): print(f"seed {seed} ASYM content", logs); stats["asym"] += 1
print(dict(stats))
