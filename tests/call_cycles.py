#!/usr/bin/env python3
"""Call cycles between source files and between folders, and calls that
go up a layer.

A file calls another when it calls (or takes the address of) a function,
or reads a variable, defined there. Reads the object files given (CMake's
$<TARGET_OBJECTS:...> lists, each a ';'-separated argument) with nm, and
fails (exit 1) on:

- a call cycle between files: file A calls B and B, directly or through
  others, reaches A (each strongly connected group is printed);
- a cycle between folders: the same over folders, a file's folder being
  the first folder of its path under compiler/ or runtime/src/, or
  runtime/base (a folder's subfolders are part of it; a generated file,
  such as front/'s lexer.c and parser.c, is in the folder of the library
  that compiles it). Each two-way pair of folders is printed with symbols
  that each calls in the other;
- with --layers FILE (pipec_layers.txt, written by compiler/CMakeLists.txt,
  and the runtime's pipe_layers.txt, by runtime/CMakeLists.txt: "LAYER:
  LIBRARY..." per layer; the option repeats): a file of a layer that calls
  into another layer that its library does not link, directly or through
  the layers it links.

--folders PREFIX checks only the cycles between folders whose path starts
with PREFIX (e.g. "compiler/"); the other checks cover every file.
The parts of pipec and the runtime depend on each other one way
(docs/architecture.md)."""
import argparse
import collections
import os
import re
import subprocess
import sys


def locate(obj):
    """(path in the repository, library) of an object file:
    BUILD/compiler/CMakeFiles/pipec_front.dir/front/ast.c.o gives
    ("compiler/front/ast.c", "pipec_front")."""
    bindir, rest = obj.split('/CMakeFiles/', 1)
    library, rel = rest.split('.dir/', 1)
    if rel.endswith('.o'):
        rel = rel[:-2]
    rel = rel.replace('__/', '../')
    # The source folder mirrors the build folder: find which one it is.
    parts = bindir.split('/')
    for n in (2, 1):
        if len(parts) >= n and '/'.join(parts[-n:]) in ('compiler', 'runtime', 'runtime/base'):
            path = os.path.normpath('/'.join(parts[-n:]) + '/' + rel)
            return path, library
    return os.path.normpath(rel), library


def folder_of(path, library):
    parts = path.split(' (')[0].split('/')
    if parts[:2] == ['runtime', 'base']:
        return 'runtime/base'
    if parts[:2] == ['runtime', 'src'] and len(parts) > 3:
        return 'runtime/src/' + parts[2]
    if parts[0] == 'compiler' and len(parts) > 2:
        return 'compiler/' + parts[1]
    # A generated file (in the build folder): its library's folder.
    layer = re.match(r'pipec_(\w+)$', library)
    if parts[0] == 'compiler' and layer:
        return 'compiler/' + layer.group(1)
    return '/'.join(parts[:-1]) or path


def strongly_connected(nodes, edges):
    """Tarjan's strongly connected components of more than one node, iteratively."""
    index, low, on_stack, stack, groups, counter = {}, {}, set(), [], [], [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
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
                work.append((child, iter(sorted(edges[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return groups


def read_layers(paths):
    """LAYER -> every layer it reaches through its links, itself included."""
    links = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                if ':' in line:
                    name, deps = line.split(':', 1)
                    links[name.strip()] = deps.split()
    reach = {}
    for name in links:
        seen, todo = {name}, [name]
        while todo:
            for dep in links.get(todo.pop(), []):
                if dep in links and dep not in seen:
                    seen.add(dep)
                    todo.append(dep)
        reach[name] = seen
    return reach


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--layers', action='append', default=[], help="pipec_layers.txt, pipe_layers.txt: each layer's links")
    ap.add_argument('--folders', default='', help='check only the cycles between folders under this prefix')
    ap.add_argument('objects', nargs='*')
    args = ap.parse_args(argv)
    objects = [o for arg in args.objects for o in arg.split(';') if o]
    if not objects:
        print('call_cycles.py: no object files given', file=sys.stderr)
        return 2
    defined, used, library = collections.defaultdict(list), collections.defaultdict(set), {}
    for obj in objects:
        out = subprocess.run(['nm', obj], capture_output=True, text=True, check=True).stdout
        src, lib = locate(obj)
        if library.get(src, lib) != lib:
            # One file compiled into two libraries (the runtime's JSON
            # reader is also pipec_lsp's): each copy is a file of its own.
            src = '%s (%s)' % (src, lib)
        library[src] = lib
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in 'TDBR':
                defined[parts[2]].append(src)
            elif len(parts) == 2 and parts[0] == 'U':
                used[src].add(parts[1])
    calls = collections.defaultdict(set)
    why = collections.defaultdict(set)  # (caller, callee) -> symbols
    for src, symbols in used.items():
        for sym in symbols:
            # A symbol defined twice is the caller's own library's.
            where = defined.get(sym, [])
            target = next((t for t in where if library[t] == library[src]), where[-1] if where else None)
            if target and target != src:
                calls[src].add(target)
                why[src, target].add(sym)

    files = set(library)
    file_groups = strongly_connected(files, calls)
    for group in file_groups:
        edges = ['%s -> %s' % (a, b) for a in group for b in sorted(calls[a]) if b in group]
        print('cycle: ' + ', '.join(edges))

    folder = {src: folder_of(src, library[src]) for src in files}
    folder_calls = collections.defaultdict(set)
    folder_why = collections.defaultdict(list)  # (folder, folder) -> "file: symbol (file)"
    for (a, b), symbols in sorted(why.items()):
        fa, fb = folder[a], folder[b]
        if fa == fb or not fa.startswith(args.folders) or not fb.startswith(args.folders):
            continue
        folder_calls[fa].add(fb)
        for sym in sorted(symbols):
            folder_why[fa, fb].append('%s calls %s (%s)' % (a, sym, b))
    folders = {f for f in folder.values() if f.startswith(args.folders)}
    folder_groups = strongly_connected(folders, folder_calls)
    for group in folder_groups:
        print('folder cycle: ' + ', '.join(group))
        for a in group:
            for b in sorted(folder_calls[a]):
                if b in group and a < b and a in folder_calls[b]:
                    print('  %s <-> %s' % (a, b))
                    for line in folder_why[a, b][:3] + folder_why[b, a][:3]:
                        print('    ' + line)

    up = []
    if args.layers:
        reach = read_layers(args.layers)
        for (a, b), symbols in sorted(why.items()):
            la, lb = library[a], library[b]
            if la in reach and lb in reach and lb not in reach[la]:
                up.append('%s (%s) calls %s in %s (%s), a layer it does not link'
                          % (a, la, ', '.join(sorted(symbols)), b, lb))
        for line in up:
            print('layer: ' + line)

    print('%d call cycles among %d files' % (len(file_groups), len(files)))
    print('%d cycles among %d folders%s' % (len(folder_groups), len(folders),
                                            ' under ' + args.folders if args.folders else ''))
    if args.layers:
        print('%d calls into a layer not linked' % len(up))
    return 1 if file_groups or folder_groups or up else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
