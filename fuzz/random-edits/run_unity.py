"""Merge random Unity scenes edited on both sides, both ways, and report broken results,
unresolvable conflict views, asymmetries and lost additions. Usage: run_unity.py FIRST_SEED COUNT"""
import collections
import re
import sys

import harness
import unity
import scenecheck as sc

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
def added(text):
    return {n for n in names(text) if n.startswith("Added")}


first, count = int(sys.argv[1]), int(sys.argv[2])
harness.run(range(first, first + count), unity.scenario, ".unity", problems, names, added)
