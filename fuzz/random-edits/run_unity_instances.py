"""Merge random Unity scenes holding prefab instances, edited on both sides, both ways, and
report broken results, unresolvable conflict views, asymmetries and lost additions.
Usage: run_unity_instances.py FIRST_SEED COUNT"""
import sys

import harness
import unity
import unity_instances

first, count = int(sys.argv[1]), int(sys.argv[2])
harness.run(range(first, first + count), unity_instances.scenario, ".unity", unity_instances.problems,
            unity_instances.names, unity_instances.added, unity.facts)
