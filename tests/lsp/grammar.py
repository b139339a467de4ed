#!/usr/bin/env python3
"""editors/pipe.tmLanguage.json read by a small TextMate engine (the
earliest match wins, ties go to the first rule; begin/end rules scan their
own patterns until their end, on one line): every regex compiles, and a
.pipe text gets the scopes an editor shows (declarations, decorators,
types, strings with their placeholders and escapes, comments, numbers).
usage: grammar.py GRAMMAR.json"""
import json
import re
import sys

grammar = json.load(open(sys.argv[1]))
repo = grammar["repository"]


def expand(patterns):
    out = []
    for p in patterns:
        if "include" in p:
            r = repo[p["include"][1:]]
            out += expand(r["patterns"]) if "patterns" in r and "match" not in r and "begin" not in r else [r]
        else:
            out += expand(p["patterns"]) if "patterns" in p and "match" not in p and "begin" not in p else [p]
    return out


def compiled(rule, key):
    rule.setdefault("_" + key, re.compile(rule[key]))
    return rule["_" + key]


def scan(line, pos, end, patterns, scopes, out, stop=None):
    """Tokens of line[pos:end) as (text, scopes); returns where it stopped."""
    while pos < end:
        stop_m = stop.search(line, pos) if stop else None
        best, best_rule = None, None
        for rule in patterns:
            m = compiled(rule, "match" if "match" in rule else "begin").search(line, pos)
            if m and (best is None or m.start() < best.start()):
                best, best_rule = m, rule
        if stop_m and (best is None or stop_m.start() <= best.start()):
            best = None
        if best is None:
            cut = stop_m.start() if stop_m else end
            if cut > pos:
                out.append((line[pos:cut], tuple(scopes)))
            return stop_m.end() if stop_m else end
        if best.start() > pos:
            out.append((line[pos:best.start()], tuple(scopes)))
        inner = scopes + [best_rule["name"]] if "name" in best_rule else list(scopes)
        if "match" in best_rule:
            caps = best_rule.get("captures", {})
            at = best.start()
            for g in range(1, (best.re.groups or 0) + 1):
                if best.group(g) is None or str(g) not in caps:
                    continue
                if best.start(g) > at:
                    out.append((line[at:best.start(g)], tuple(inner)))
                out.append((best.group(g), tuple(inner + [caps[str(g)]["name"]])))
                at = best.end(g)
            if best.end() > at:
                out.append((line[at:best.end()], tuple(inner)))
            pos = max(best.end(), pos + 1)
        else:
            out.append((best.group(), tuple(inner)))
            tokens = []
            pos = scan(line, best.end(), end, expand(best_rule.get("patterns", [])), inner, tokens,
                       compiled(best_rule, "end"))
            out += tokens
    return pos


def tokenize(text):
    top = expand(grammar["patterns"])
    result = []
    for line in text.split("\n"):
        scan(line, 0, len(line), top, [grammar["scopeName"]], result)
    return result


failures = []


def has(tokens, text, scope):
    if not any(t == text and scope in s for t, s in tokens):
        failures.append(f"{text!r} has no scope {scope} (got {[s for t, s in tokens if t == text]})")


assert grammar["scopeName"] == "source.pipe" and "pipe" in grammar["fileTypes"]
src = '''# a comment with "quotes"
@resources(cpu = 2, memory = "8GB")
step train(data: dataset, epochs: int = 3) -> model: model {
    command = ["python3", "t.py", "--epochs={epochs}", "{{literal}}", "a\\\\"b"]
}

pipeline p(flag: bool = true) {
    m = train(data = d, epochs = -1.5e3)
}'''
toks = tokenize(src)
has(toks, "# a comment with \"quotes\"", "comment.line.number-sign.pipe")
has(toks, "resources", "entity.name.function.decorator.pipe")
has(toks, "step", "keyword.other.declaration.pipe")
has(toks, "train", "entity.name.function.pipe")
has(toks, "pipeline", "keyword.other.declaration.pipe")
has(toks, "dataset", "entity.name.type.pipe")
has(toks, "epochs", "variable.parameter.placeholder.pipe")
has(toks, "{{", "constant.character.escape.pipe")
has(toks, "\\\\", "constant.character.escape.pipe")
has(toks, "8GB", "string.quoted.double.pipe")
has(toks, "true", "constant.language.boolean.pipe")
has(toks, "-1.5e3", "constant.numeric.pipe")
has(toks, "train", "entity.name.function.call.pipe")
has(toks, "->", "keyword.operator.arrow.pipe")
# Nothing inside a comment or a string is a keyword.
if any("keyword.other.declaration.pipe" in s for t, s in toks if t in ("quotes",)):
    failures.append("a keyword inside a comment")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
