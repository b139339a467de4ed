#!/usr/bin/env python3
"""Checks pipec's SARIF output against the SARIF 2.1.0 required fields.

usage: check_sarif.py PIPEC CASES_DIR CASE[:ARG,ARG...] ...

For each case, runs `pipec check CASE.pipe --diagnostics-format=sarif [ARGS]`
(or another command, when the first ARG is `graph` or `build`)
in CASES_DIR, parses the output with json and checks the fields a SARIF
consumer (GitHub code scanning, VS Code's SARIF viewer) relies on. The same
run with --diagnostics-format=json must report the same diagnostics, in the
same order, at the same positions.
"""
import json
import os
import re
import subprocess
import sys

failures = []


def fail(case, msg):
    failures.append(f"{case}: {msg}")


def expect(case, cond, msg):
    if not cond:
        fail(case, msg)
    return cond


def is_pos_int(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 1


def run(pipec, name, fmt, extra):
    cmd = "check"
    if extra and extra[0] in ("check", "graph", "build"):
        cmd, extra = extra[0], extra[1:]
    proc = subprocess.run([pipec, cmd, name + ".pipe", "--diagnostics-format=" + fmt] + extra,
                          capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def check_location(case, where, loc):
    phys = loc.get("physicalLocation")
    if not expect(case, isinstance(phys, dict), f"{where}: no physicalLocation"):
        return None
    art = phys.get("artifactLocation", {})
    uri = art.get("uri")
    if expect(case, isinstance(uri, str) and uri, f"{where}: no artifactLocation.uri"):
        expect(case, os.path.isfile(uri), f"{where}: uri {uri!r} names no file")
    region = phys.get("region")
    if not expect(case, isinstance(region, dict), f"{where}: no region"):
        return None
    sl, sc = region.get("startLine"), region.get("startColumn")
    expect(case, is_pos_int(sl), f"{where}: startLine {sl!r} is not an integer >= 1")
    expect(case, is_pos_int(sc), f"{where}: startColumn {sc!r} is not an integer >= 1")
    el, ec = region.get("endLine", sl), region.get("endColumn")
    if is_pos_int(sl) and is_pos_int(sc):
        expect(case, is_pos_int(el) and el >= sl, f"{where}: endLine {el!r} before startLine {sl}")
        if ec is not None:
            expect(case, is_pos_int(ec) and (el > sl or ec > sc),
                   f"{where}: endColumn {ec!r} does not follow startColumn {sc} (SARIF end columns are exclusive)")
    return uri, sl, sc


def check_case(pipec, spec):
    name, _, args = spec.partition(":")
    extra = [a for a in args.split(",") if a]
    werror = "-Werror" in extra
    rc, out, err = run(pipec, name, "sarif", extra)
    if not expect(name, rc in (0, 1), f"exit status {rc}: {err.strip()}"):
        return
    try:
        log = json.loads(out)
    except json.JSONDecodeError as e:
        fail(name, f"output is not JSON: {e}")
        return
    expect(name, log.get("version") == "2.1.0", f"version is {log.get('version')!r}, not \"2.1.0\"")
    schema = log.get("$schema")
    expect(name, isinstance(schema, str) and "sarif" in schema and "2.1.0" in schema, f"$schema is {schema!r}")
    runs = log.get("runs")
    if not expect(name, isinstance(runs, list) and len(runs) == 1, "runs must be a list of one run"):
        return
    run0 = runs[0]
    driver = run0.get("tool", {}).get("driver", {})
    expect(name, driver.get("name") == "pipec", f"tool.driver.name is {driver.get('name')!r}")
    rules = driver.get("rules", [])
    expect(name, isinstance(rules, list), "tool.driver.rules is not a list")
    ids = [r.get("id") for r in rules]
    expect(name, len(ids) == len(set(ids)), f"rule ids repeat: {ids}")
    for r in rules:
        expect(name, isinstance(r.get("id"), str) and re.fullmatch(r"[EW]\d{4}", r["id"]), f"rule id {r.get('id')!r}")
        text = r.get("shortDescription", {}).get("text")
        expect(name, isinstance(text, str) and text, f"rule {r.get('id')}: no shortDescription.text")
    results = run0.get("results")
    if not expect(name, isinstance(results, list), "results is not a list"):
        return
    got = []
    levels = set()
    for i, res in enumerate(results):
        where = f"results[{i}]"
        rule_id = res.get("ruleId")
        expect(name, isinstance(rule_id, str) and re.fullmatch(r"[EW]\d{4}", rule_id), f"{where}: ruleId {rule_id!r}")
        idx = res.get("ruleIndex")
        if expect(name, isinstance(idx, int) and 0 <= idx < len(rules), f"{where}: ruleIndex {idx!r} out of range"):
            expect(name, rules[idx].get("id") == rule_id,
                   f"{where}: ruleIndex {idx} names rule {rules[idx].get('id')!r}, not {rule_id!r}")
        level = res.get("level")
        levels.add(level)
        expect(name, level in ("error", "warning", "note"), f"{where}: level {level!r}")
        if rule_id and rule_id.startswith("E"):
            expect(name, level == "error", f"{where}: {rule_id} has level {level!r}")
        if werror:
            expect(name, level == "error", f"{where}: -Werror but level {level!r}")
        text = res.get("message", {}).get("text")
        expect(name, isinstance(text, str) and text, f"{where}: no message.text")
        locs = res.get("locations")
        if expect(name, isinstance(locs, list) and len(locs) >= 1, f"{where}: no locations"):
            pos = check_location(name, f"{where}.locations[0]", locs[0])
            got.append((rule_id, level) + (pos or (None, None, None)))
        for k, rel in enumerate(res.get("relatedLocations", [])):
            check_location(name, f"{where}.relatedLocations[{k}]", rel)
            expect(name, isinstance(rel.get("id"), int), f"{where}.relatedLocations[{k}]: no integer id")
            expect(name, isinstance(rel.get("message", {}).get("text"), str),
                   f"{where}.relatedLocations[{k}]: no message.text")
    expect(name, (rc == 1) == ("error" in levels), f"exit status {rc} but levels {sorted(levels)}")
    # The same diagnostics as the JSON format, in the same order.
    rc2, out2, _ = run(pipec, name, "json", extra)
    expect(name, rc2 == rc, f"exit status {rc} with SARIF but {rc2} with JSON")
    want = []
    for line in out2.splitlines():
        d = json.loads(line)
        want.append((d["code"], d["severity"], d["file"], d["line"], d["column"]))
    expect(name, got == want, f"SARIF results {got} differ from the JSON diagnostics {want}")


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    pipec, cases_dir, specs = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3:]
    os.chdir(cases_dir)
    for spec in specs:
        check_case(pipec, spec)
    for f in failures:
        print("FAIL:", f)
    print(f"{len(specs)} cases, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
