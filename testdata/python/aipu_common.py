"""Helpers shared by the checkers of generated Compass AIPU plugins."""

import ast
import os
import subprocess
import sys


def ir_value(text):
    """A param (a Python literal) as the Parser's PluginOp.write_attrs writes it
    into the IR: lists without spaces, everything else with str()."""
    value = ast.literal_eval(text)
    if isinstance(value, list):
        return str(value).replace(" ", "")
    return str(value)


def per_package(script, plan, run_package, plugin_dir):
    """Runs run_package for every package of the plan in a process of its own,
    with the package's plugin_dir alone on AIPUPLUGIN_PATH, the way a Compass
    stage runs; `script PLAN.json INDEX` is the child's command line."""
    if len(sys.argv) > 2:
        sys.exit(run_package(plan[int(sys.argv[2])]))
    status = 0
    for i, pkg in enumerate(plan):
        env = dict(os.environ, AIPUPLUGIN_PATH=os.path.join(pkg["dir"], plugin_dir))
        r = subprocess.run([sys.executable, os.path.abspath(script), sys.argv[1], str(i)], env=env)
        status = status or r.returncode
    if status:
        sys.exit("%s plugin checks failed" % plugin_dir)
