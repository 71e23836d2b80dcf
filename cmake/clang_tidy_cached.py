#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# lint.clang-tidy: clang-tidy over napkin's own translation units, in parallel
# (one job per core), skipping every unit whose preprocessed source, compile
# flags, .clang-tidy and clang-tidy version are those of a clean earlier run
# (a stamp per unit in the cache folder, keyed without the checkout's path, so
# a fresh clone on the same machine reuses them). A header change re-checks
# exactly the units that include it; an unchanged tree re-checks nothing.
#
#   clang_tidy_cached.py BUILD_DIR SOURCE_DIR REGEX CACHE_DIR [CLANG_TIDY]
import hashlib, json, os, re, shlex, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

build, source, pattern, cache = sys.argv[1:5]
tidy = sys.argv[5] if len(sys.argv) > 5 else "clang-tidy"
os.makedirs(cache, exist_ok=True)
with open(os.path.join(build, "compile_commands.json")) as f:
    units = [u for u in json.load(f) if re.search(pattern, u["file"])]
with open(os.path.join(source, ".clang-tidy"), "rb") as f:
    config = f.read()
version = subprocess.run([tidy, "--version"], capture_output=True).stdout


def key(unit):
    args = unit.get("arguments") or shlex.split(unit["command"])
    pre, skip = [], False
    for a in args:  # the compile command with -E to stdout instead of -c -o FILE
        if skip:
            skip = False
        elif a == "-o":
            skip = True
        elif a != "-c":
            pre.append(a)
    out = subprocess.run(pre + ["-E", "-P"], cwd=unit["directory"], capture_output=True)
    # The checkout's and build tree's paths (in the flags and in __FILE__) do
    # not change a finding: a clone elsewhere hits the same stamps.
    def neutral(text):
        for path, name in ((os.path.abspath(build), b"<build>"), (os.path.abspath(source), b"<source>")):
            text = text.replace(path.encode(), name)
        return text
    h = hashlib.sha256(config + version + neutral(" ".join(args).encode()) + neutral(out.stdout))
    return h.hexdigest() if out.returncode == 0 else None


def check(unit):
    k = key(unit)
    stamp = os.path.join(cache, k) if k else None
    if stamp and os.path.exists(stamp):
        return unit["file"], True, "", True
    run = subprocess.run([tidy, "-p", build, "--quiet", unit["file"]], capture_output=True, text=True)
    ok = run.returncode == 0 and "warning:" not in run.stdout and "error:" not in run.stdout
    if ok and stamp:
        open(stamp, "w").close()
    return unit["file"], ok, run.stdout + run.stderr, False


jobs = os.cpu_count() or 1
failed = cached = 0
with ThreadPoolExecutor(max_workers=jobs) as pool:
    for name, ok, text, hit in pool.map(check, units):
        cached += hit
        if not ok:
            failed += 1
            print(f"--- {name}\n{text}", flush=True)
print(f"clang-tidy: {len(units)} units, {cached} unchanged since a clean run, {failed} with findings, {jobs} jobs")
sys.exit(1 if failed else 0)
