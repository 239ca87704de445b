"""Merge random Godot 4 scenes edited on both sides, both ways, and report broken results,
unresolvable conflict views, asymmetries and lost additions. Usage: run_godot4.py FIRST_SEED COUNT"""
import sys

import harness
import godot4

first, count = int(sys.argv[1]), int(sys.argv[2])
harness.run(range(first, first + count), godot4.scenario, ".tscn", godot4.problems, godot4.names, godot4.added, godot4.facts, godot4.rewritten_to_nowhere)
