#!/usr/bin/env python3
"""check_layers.py — the layers hold: every `#include "..."` in grammar/, interpreter/ and cli/
points into the including file's own layer or into a layer its row of the table allows.

The table is the one in interpreter/README.md with the header `| layer | folder | may include |`,
rows from the bottom layer up. A layer may only list layers of earlier rows (the table itself
cannot point up), and every C++ file under a layer's parent folder must belong to a layer.
Includes across folders are written from the repository root ("interpreter/semantics/check.hpp");
a bare name ("check.hpp") means the including file's folder; "../" is refused.

A second table (header `| facade header | offers |`) lists the headers of the top interpreter
layer (tooling) that front ends may include; cli may include no other header of that layer (the
facade's internals, which hand out the Program, the Checker and the tree walks).

A fourth table (header `| front-end vocabulary | offers |`) lists the headers of the layers a
front end may not include (semantics, runtime) that the facade may still show it: what a front end
fills in or holds (Selection, RunOptions, ...). Every include reached from a front-end file through
facade headers (following tooling and vocabulary headers, not results/report/grammar ones, which a
front end may include itself) must name a vocabulary header when it points into those layers: a
leak of the Program, the Checker or the evaluator into cli/ through a tooling header is reported
with the chain that reaches it.

A third table (header `| still on the driver | uses |`) lists the front-end files that still hold
the driver's `Session` and reach the `Program` and `Checker` inside it (issue #20's work left).
Every other front-end file may not name them (`Session`, `Program`, `Checker`, `.prog`, `.ck` in
code, comments aside): it goes through the facade. A listed file that no longer names them must
leave the table, so the list only shrinks.

The check proves itself in the same run: for every layer with one above it, it plants an include
of the upper layer's header into a copy of a lower layer's file (and one "../" include) and fails
unless each planted include is reported at its file and line; likewise for an include of every
earlier layer a row does not list (cli may not skip the facade into semantics or runtime), and
for an internal header of the facade's layer planted into a front-end file, for a `Session`
planted into a front-end file the driver table does not list, and for a non-vocabulary header of
semantics planted into a facade header and into a vocabulary header (the transitive leaks).

Usage: check_layers.py REPO_ROOT
"""
import os
import re
import sys

README = "interpreter/README.md"
SCANNED = ["grammar", "interpreter", "cli"]  # tests/ and bench/ may include any layer
EXTENSIONS = (".cpp", ".hpp", ".h", ".def")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def parse_table(text):
    """The layer table as [(name, folder, [allowed layer names])], bottom layer first."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        cells = [c.strip().lower() for c in line.strip().strip("|").split("|")]
        if cells == ["layer", "folder", "may include"]:
            break
    else:
        raise ValueError("%s has no table with the header | layer | folder | may include |" % README)
    layers = []
    for line in lines[i + 2:]:
        if not line.strip().startswith("|"):
            break
        name, folder, allowed = [c.strip() for c in line.strip().strip("|").split("|")]
        allowed = re.sub(r"\([^)]*\)", "", allowed)  # remarks in parentheses
        names = [a.strip(" `") for a in allowed.split(",")]
        names = [a for a in names if a and a not in ("-", "—", "nothing")]
        layers.append((name.strip("`"), folder.strip("`").rstrip("/") + "/", names))
    return layers


def first_column(text, header):
    """The first cells (paths, backquotes removed) of the README table whose header is `header`."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        cells = [c.strip().lower() for c in line.strip().strip("|").split("|")]
        if cells == header:
            break
    else:
        raise ValueError("%s has no table with the header | %s |" % (README, " | ".join(header)))
    paths = []
    for line in lines[i + 2:]:
        if not line.strip().startswith("|"):
            break
        paths.append(line.strip().strip("|").split("|")[0].strip().strip("`"))
    return paths


def parse_facade(text):
    """The facade table: header paths front ends may include from the layer they sit on."""
    return first_column(text, ["facade header", "offers"])


def parse_vocabulary(text):
    """Headers of the layers a front end may not include that facade headers may still show it."""
    return first_column(text, ["front-end vocabulary", "offers"])


def include_targets(path, text):
    """(line number, target path as in the tree) of every quoted include of a file."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        m = INCLUDE.match(line)
        if m:
            written = m.group(1)
            out.append((number, written if "/" in written else os.path.dirname(path) + "/" + written))
    return out


def leaks(files, layers, facade, vocabulary):
    """Semantics or runtime headers a front end reaches through the facade without their being
    vocabulary: 'file:line: ...' naming the chain from the front-end file."""
    front, below = layers[-1], layers[-2]
    hidden = {name for name, _, _ in layers[:-1]} - set(front[2])  # layers cli may not include
    problems = []
    # Breadth first from every front-end file, through facade/tooling headers and vocabulary.
    chains = {}
    queue = []
    for path in sorted(p for p in files if p.startswith(front[1])):
        for _, target in include_targets(path, files[path]):
            if target in facade and target not in chains:
                chains[target] = [path, target]
                queue.append(target)
    while queue:
        header = queue.pop(0)
        for number, target in include_targets(header, files.get(header, "")):
            if target not in files or target in chains:
                continue
            theirs = layer_of(target, layers)
            if theirs in hidden and target not in vocabulary:
                problems.append("%s:%d: #include \"%s\": reaches cli/ through %s; a front end may see only the "
                                "| front-end vocabulary | of layers %s (%s)" %
                                (header, number, target, " -> ".join(chains[header]), ", ".join(sorted(hidden)), README))
            elif theirs == below[0] or target in vocabulary:
                chains[target] = chains[header] + [target]
                queue.append(target)
    return problems


def parse_on_driver(text):
    """The front-end files still allowed to hold the driver's Session, Program and Checker."""
    return first_column(text, ["still on the driver", "uses"])


DRIVER_WORDS = re.compile(r"\b(Session|Program|Checker)\b|\.(prog|ck)\b")


def driver_problems(files, layers, on_driver):
    """Front-end files off the driver table that name its types; listed files that no longer do."""
    problems = []
    folder = layers[-1][1]
    for path in sorted(p for p in files if p.startswith(folder)):
        hits = []
        for n, line in enumerate(files[path].splitlines(), 1):
            code = re.sub(r'"(\\.|[^"\\])*"', '""', line).split("//")[0]
            if DRIVER_WORDS.search(code):
                hits.append(n)
        if path in on_driver and not hits:
            problems.append("%s: names no Session, Program or Checker any more: take it off the "
                            "| still on the driver | table (%s)" % (path, README))
        elif path not in on_driver:
            problems += ["%s:%d: names the driver's Session, Program or Checker; front ends go through the "
                         "facade (or list the file in | still on the driver |, %s)" % (path, n, README) for n in hits]
    for path in on_driver:
        if path not in files:
            problems.append("%s: %s is listed as still on the driver but does not exist" % (README, path))
    return problems


def table_problems(layers):
    """The table must point down only: a layer lists layers of earlier rows, by known names."""
    problems, below = [], []
    for name, _, allowed in layers:
        for a in allowed:
            if a not in below:
                what = "a layer above it" if a in [n for n, _, _ in layers] else "no such layer"
                problems.append("%s: layer %s may include '%s': %s (the table must point down)" % (README, name, a, what))
        below.append(name)
    return problems


def layer_of(path, layers):
    """The layer whose folder holds `path` (the longest folder wins), or None."""
    best = None
    for name, folder, _ in layers:
        if path.startswith(folder) and (best is None or len(folder) > len(best[1])):
            best = (name, folder)
    return best[0] if best else None


def check(files, layers, facade):
    """Violations as 'file:line: message' for a tree given as {relative path: text}. The top
    layer (the front ends) reaches the layer below it only through the `facade` headers."""
    allowed = {name: set(names) | {name} for name, _, names in layers}
    front, below = layers[-1][0], layers[-2][0]
    problems, count = [], 0
    for path in sorted(files):
        own = layer_of(path, layers)
        if own is None:
            problems.append("%s: in no layer of the table in %s" % (path, README))
            continue
        for number, line in enumerate(files[path].splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            count += 1
            written = m.group(1)
            where = "%s:%d: #include \"%s\"" % (path, number, written)
            if written.startswith("../") or "/../" in written or written.startswith("./"):
                problems.append("%s: write includes across folders from the repository root" % where)
                continue
            target = written if "/" in written else os.path.dirname(path) + "/" + written
            if target not in files:
                problems.append("%s: no such file in grammar/, interpreter/ or cli/" % where)
                continue
            theirs = layer_of(target, layers)
            if theirs not in allowed[own]:
                rule = ", ".join(sorted(allowed[own] - {own})) or "nothing"
                problems.append("%s: layer %s includes layer %s; %s may include only %s (%s)" %
                                (where, own, theirs, own, rule, README))
            elif own == front and theirs == below and target not in facade:
                problems.append("%s: %s is internal to layer %s; %s may include only its facade headers (%s)" %
                                (where, target, below, own, README))
    return problems, count


def load(root):
    files = {}
    for top in SCANNED:
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if n.endswith(EXTENSIONS):
                    full = os.path.join(dirpath, n)
                    with open(full, encoding="utf-8") as f:
                        files[os.path.relpath(full, root).replace(os.sep, "/")] = f.read()
    return files


def self_test(files, layers, facade, on_driver=(), vocabulary=()):
    """Plants upward includes into copies of the tree; returns what the check failed to catch."""
    missed = []

    def expect(path, planted, why):
        tree = dict(files)
        line = len(tree[path].splitlines()) + 1
        tree[path] = tree[path].rstrip("\n") + "\n#include \"%s\"\n" % planted
        problems, _ = check(tree, layers, facade)
        if not any(p.startswith("%s:%d:" % (path, line)) for p in problems):
            missed.append("%s:%d: planted #include \"%s\" (%s) was not reported" % (path, line, planted, why))

    def first(folder, ext):
        found = sorted(p for p in files if p.startswith(folder) and p.endswith(ext) and "/" not in p[len(folder):])
        return found[0] if found else None

    pairs = 0
    for (lower, lfolder, _), (upper, ufolder, _) in zip(layers, layers[1:]):
        src, header = first(lfolder, ".cpp"), first(ufolder, ".hpp")
        if src and header:
            expect(src, header, "layer %s including layer %s" % (lower, upper))
            pairs += 1
    if pairs < len(layers) - 1:
        missed.append("self-test: only %d of %d layer boundaries could be tested" % (pairs, len(layers) - 1))
    # Reaching past the layers a row lists, into an earlier row it does not (cli into semantics
    # or runtime, which it uses only through tooling; runtime into report): refused as well.
    for i, (name, folder, names) in enumerate(layers):
        for lower, lfolder, _ in layers[:i]:
            src, header = first(folder, ".cpp"), first(lfolder, ".hpp")
            if lower not in names and src and header:
                expect(src, header, "layer %s including layer %s, which its row does not list" % (name, lower))
                pairs += 1
    # A front end including a header of the facade's layer that the facade table does not list.
    src = first(layers[-1][1], ".cpp")
    internal = sorted(p for p in files if p.startswith(layers[-2][1]) and p.endswith(".hpp") and p not in facade)
    if src and internal:
        expect(src, internal[0], "layer %s including %s, internal to layer %s" % (layers[-1][0], internal[0], layers[-2][0]))
        pairs += 1
    else:
        missed.append("self-test: no internal header of layer %s to plant" % layers[-2][0])
    # A front-end file off the driver table that holds a Session.
    folder = layers[-1][1]
    off = sorted(p for p in files if p.startswith(folder) and p.endswith(".cpp") and p not in on_driver)
    if off:
        tree = dict(files)
        line = len(tree[off[0]].splitlines()) + 1
        tree[off[0]] = tree[off[0]].rstrip("\n") + "\nSession planted;  // Program\n"
        if not any(p.startswith("%s:%d:" % (off[0], line)) for p in driver_problems(tree, layers, on_driver)):
            missed.append("%s:%d: a planted Session was not reported" % (off[0], line))
        pairs += 1
    else:
        missed.append("self-test: every front-end file is on the driver table; nothing to plant into")
    # A transitive leak: a non-vocabulary semantics header planted into a facade header that a
    # front end includes, and into a vocabulary header (a leak one step further down).
    hidden = [n for n, _, _ in layers[:-1] if n not in layers[-1][2]]
    hidden_folders = [f for n, f, _ in layers if n in hidden]
    leaked = sorted(p for p in files if p.endswith(".hpp") and any(p.startswith(f) for f in hidden_folders)
                    and p not in vocabulary)
    used = sorted(h for h in facade if h in files and any(
        t == h for p in files if p.startswith(layers[-1][1]) for _, t in include_targets(p, files[p])))
    hosts = used[:1] + sorted(v for v in vocabulary if v in files)[:1]
    for host in hosts if leaked else []:
        tree = dict(files)
        line = len(tree[host].splitlines()) + 1
        tree[host] = tree[host].rstrip("\n") + "\n#include \"%s\"\n" % leaked[0]
        if not any(p.startswith("%s:%d:" % (host, line)) for p in leaks(tree, layers, facade, vocabulary)):
            missed.append("%s:%d: planted #include \"%s\" (a leak into cli/ through the facade) was not reported" %
                          (host, line, leaked[0]))
        pairs += 1
    if len(hosts) < 2 or not leaked:
        missed.append("self-test: no facade header in use, no vocabulary header or no hidden header to plant a leak")
    # A relative include reaching across folders, and the same upward edge written into the table.
    src = first(layers[1][1], ".cpp")
    if src:
        expect(src, "../" + os.path.basename(layers[2][1].rstrip("/")) + "/x.hpp", "a ../ include")
    bad_table = [(n, f, a + ([layers[-1][0]] if i == 1 else [])) for i, (n, f, a) in enumerate(layers)]
    if not table_problems(bad_table):
        missed.append("self-test: a table row listing a higher layer was not reported")
    return missed, pairs


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root = sys.argv[1]
    with open(os.path.join(root, README), encoding="utf-8") as f:
        text = f.read()
    layers, facade, on_driver = parse_table(text), parse_facade(text), parse_on_driver(text)
    vocabulary = parse_vocabulary(text)
    problems = table_problems(layers)
    if len(layers) < 2:
        problems.append("%s: the layer table has %d rows" % (README, len(layers)))
    files = load(root)
    for h in facade:
        if h not in files:
            problems.append("%s: facade header %s does not exist" % (README, h))
    found, count = check(files, layers, facade)
    found += driver_problems(files, layers, on_driver)
    for h in vocabulary:
        if h not in files:
            problems.append("%s: vocabulary header %s does not exist" % (README, h))
    found += leaks(files, layers, facade, vocabulary)
    problems += found
    missed, pairs = self_test(files, layers, facade, on_driver, vocabulary) if len(layers) >= 2 else ([], 0)
    for p in problems + missed:
        print(p)
    print("%d includes in %d files against %d layers: %d violations; self-test: %d layer boundaries, %d missed" %
          (count, len(files), len(layers), len(found), pairs, len(missed)))
    return 1 if problems or missed else 0


if __name__ == "__main__":
    sys.exit(main())
