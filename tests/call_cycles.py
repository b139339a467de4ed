#!/usr/bin/env python3
"""Call cycles between source files: file A calls (or takes the address of) a
function defined in file B, and B, directly or through others, reaches A.
Reads the object files given (CMake's $<TARGET_OBJECTS:...> lists, each a
';'-separated argument) with nm, and prints each strongly connected group
of more than one file. Exit 1 when there is one: the parts of pipec and the
runtime depend on each other one way (docs/architecture.md)."""
import collections
import subprocess
import sys


def source_of(obj):
    # .../CMakeFiles/TARGET.dir/path/to/file.c.o -> path/to/file.c
    path = obj.split('.dir/', 1)[-1]
    return path[:-2] if path.endswith('.o') else path


def main(args):
    objects = [o for arg in args for o in arg.split(';') if o]
    if not objects:
        print('call_cycles.py: no object files given', file=sys.stderr)
        return 2
    defined, used = {}, collections.defaultdict(set)
    for obj in objects:
        out = subprocess.run(['nm', obj], capture_output=True, text=True, check=True).stdout
        src = source_of(obj)
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in 'TDBR':
                defined[parts[2]] = src
            elif len(parts) == 2 and parts[0] == 'U':
                used[src].add(parts[1])
    calls = collections.defaultdict(set)
    for src, symbols in used.items():
        for sym in symbols:
            target = defined.get(sym)
            if target and target != src:
                calls[src].add(target)
    # Tarjan's strongly connected components, iteratively.
    index, low, on_stack, stack, groups, counter = {}, {}, set(), [], [], [0]
    for root in sorted(set(calls) | {t for ts in calls.values() for t in ts}):
        if root in index:
            continue
        work = [(root, iter(sorted(calls[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))
            elif child not in index:
                index[child] = low[child] = counter[0]
                counter[0] += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(calls[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    for group in groups:
        edges = ['%s -> %s' % (a, b) for a in group for b in sorted(calls[a]) if b in group]
        print('cycle: ' + ', '.join(edges))
    print('%d call cycles among %d files' % (len(groups), len(set(source_of(o) for o in objects))))
    return 1 if groups else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
