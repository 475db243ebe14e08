#!/usr/bin/env python3
"""layout.py: the layout checks of q4cts (ctest label `layout`, tests/layout/README.md).

  layout.py includes ROOT LAYERS   every #include "x" that resolves to a file of the
                                   tree must stay in its folder's layer or go lower
                                   (LAYERS: tests/layout/layers.txt), and the files of
                                   one folder must not include each other in a circle
  layout.py op-files ROOT DOC      every non-test source file that names an op must be
                                   on DOC's "adding an op" list (docs/ENGINEERING.md)
  layout.py selftest               plants a bad include, a circle and an unlisted file
                                   in a temporary tree and checks that each is caught

Exit status 0 when the tree is clean, 1 with one line per finding otherwise."""
import fnmatch
import os
import re
import sys
import tempfile

SKIP_DIRS = {".git", "node_modules", "__pycache__"}
INCLUDE_EXTS = (".c", ".h", ".comp", ".glsl")
# The source files whose op names count (what a change to an op must visit).
SOURCE_EXTS = (".c", ".h", ".comp", ".glsl", ".wgsl", ".js", ".mjs", ".cmake")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def walk(root, top):
    """Files under root/top (relative paths), build trees and hidden folders left out."""
    base = os.path.join(root, top)
    for d, dirs, files in os.walk(base):
        dirs[:] = sorted(x for x in dirs
                         if x not in SKIP_DIRS and not x.startswith(".") and not x.startswith("build"))
        for f in sorted(files):
            yield os.path.relpath(os.path.join(d, f), root)


# ---------------- include direction ----------------

def read_layers(path):
    """Layers bottom first; each a list of folders (a line may name several)."""
    layers = []
    for line in open(path, encoding="utf-8"):
        line = line.split("#", 1)[0].split()
        if line:
            layers.append([f.rstrip("/") for f in line])
    return layers


def layer_of(path, folder_layer):
    """The layer of the longest listed folder that holds path; None if unlisted."""
    best, best_len = None, -1
    for folder, layer in folder_layer.items():
        if (path == folder or path.startswith(folder + "/")) and len(folder) > best_len:
            best, best_len = layer, len(folder)
    return best


def folder_of(path, folder_layer):
    best = ""
    for folder in folder_layer:
        if (path.startswith(folder + "/")) and len(folder) > len(best):
            best = folder
    return best


def resolve(src, name, by_suffix, files):
    """The tree's file an include names: beside src first, else the one file whose path
    ends in /name (the include directories of the build); None for a system or
    generated header, or a name more than one file could be."""
    beside = os.path.normpath(os.path.join(os.path.dirname(src), name))
    if beside in files:
        return beside
    hits = by_suffix.get(os.path.basename(name), [])
    hits = [h for h in hits if h == name or h.endswith("/" + name)]
    return hits[0] if len(hits) == 1 else None


def node(path):
    """An object of a folder: x.c and x.h are one (the header declares what the file
    defines), so a circle of calls through headers is a circle of nodes."""
    return os.path.splitext(path)[0]


def find_cycle(graph):
    """One circle of graph (dict node -> set of nodes) as a list, or None."""
    WHITE, GREY, BLACK = 0, 1, 2
    color = {n: WHITE for n in graph}
    stack = []

    def visit(n):
        color[n] = GREY
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if color.get(m, WHITE) == GREY:
                return stack[stack.index(m):] + [m]
            if color.get(m, WHITE) == WHITE:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        color[n] = BLACK
        return None

    for n in sorted(graph):
        if color[n] == WHITE:
            found = visit(n)
            if found:
                return found
    return None


def check_includes(root, layers_path):
    layers = read_layers(layers_path)
    folder_layer = {f: i for i, line in enumerate(layers) for f in line}
    names = {i: " ".join(line) for i, line in enumerate(layers)}
    tops = sorted({f.split("/")[0] for f in folder_layer})
    files = set()
    for top in tops:
        if os.path.isdir(os.path.join(root, top)):
            files.update(p for p in walk(root, top) if p.endswith(INCLUDE_EXTS))
    by_suffix = {}
    for f in files:
        by_suffix.setdefault(os.path.basename(f), []).append(f)
    bad = []
    graphs = {}   # folder -> node graph of the includes between its own files
    for src in sorted(files):
        src_layer = layer_of(src, folder_layer)
        if src_layer is None:
            continue
        text = open(os.path.join(root, src), encoding="utf-8", errors="replace").read()
        for m in INCLUDE_RE.finditer(text):
            dst = resolve(src, m.group(1), by_suffix, files)
            if dst is None:
                continue
            dst_layer = layer_of(dst, folder_layer)
            line = text.count("\n", 0, m.start()) + 1
            if dst_layer is not None and dst_layer > src_layer:
                bad.append(f"{src}:{line}: includes {dst}, of layer '{names[dst_layer]}' above "
                           f"'{names[src_layer]}' (tests/layout/layers.txt: bottom first)")
            if os.path.dirname(src) == os.path.dirname(dst) and node(src) != node(dst):
                g = graphs.setdefault(os.path.dirname(src), {})
                g.setdefault(node(src), set()).add(node(dst))
                g.setdefault(node(dst), set())
    for folder in sorted(graphs):
        cycle = find_cycle(graphs[folder])
        if cycle:
            bad.append(f"{folder}/: include circle " +
                       " -> ".join(os.path.basename(n) for n in cycle) +
                       " (x.c and x.h count as one file)")
    return bad


# ---------------- the op file list ----------------

def op_names(root):
    """The ops: one descriptor per op, cases/ops/<op>.c."""
    d = os.path.join(root, "cases", "ops")
    return sorted(f[:-2] for f in os.listdir(d) if f.endswith(".c"))


def strip_comments(text, path):
    """text without its comments (strings kept): C-like for C, GLSL, WGSL and JS,
    '#' to the end of the line for CMake."""
    if path.endswith(".cmake") or os.path.basename(path) == "CMakeLists.txt":
        out = []
        for line in text.split("\n"):
            q = False
            for i, ch in enumerate(line):
                if ch == '"':
                    q = not q
                elif ch == "#" and not q:
                    line = line[:i]
                    break
            out.append(line)
        return "\n".join(out)
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            out.append("\n" * text.count("\n", i, n if j < 0 else j))
            i = n if j < 0 else j + 2
        elif c in "\"'`":
            j = i + 1
            while j < n and text[j] != c and not (c != "`" and text[j] == "\n"):
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def is_test(path):
    parts = path.split("/")
    return ("tests" in parts[:-1] or parts[-1].startswith("test_") or
            parts[0] == "tests")


def is_source(path):
    return path.endswith(SOURCE_EXTS) or os.path.basename(path) == "CMakeLists.txt"


def read_op_list(doc_path):
    """The path patterns between the markers of DOC's "adding an op" list: every
    backquoted word with a '/' (or a file name at the top), `<op>` standing for the
    op, `*` for any name part, {a,b} for either."""
    text = open(doc_path, encoding="utf-8").read()
    m = re.search(r"<!-- op-files -->(.*?)<!-- /op-files -->", text, re.S)
    if not m:
        raise SystemExit(f"{doc_path}: no <!-- op-files --> ... <!-- /op-files --> block")
    pats = []
    for tok in re.findall(r"`([^`\s]+)`", m.group(1)):
        if "/" not in tok and "." not in tok:
            continue
        pats.extend(expand_braces(tok))
    return pats


def expand_braces(p):
    m = re.search(r"\{([^{}]*)\}", p)
    if not m:
        return [p]
    out = []
    for alt in m.group(1).split(","):
        out.extend(expand_braces(p[:m.start()] + alt + p[m.end():]))
    return out


def listed(path, op, pats):
    for p in pats:
        p = p.replace("<op>", op)
        if p.endswith("/"):
            if path.startswith(p):
                return True
        elif fnmatch.fnmatchcase(path, p):
            return True
    return False


def ops_in_path(path, ops):
    """The ops a file's path names: an op's name between separators (start, end, '/',
    '.', '_', '-'), unless it is part of a longer op's name there
    (q4vk_op_linear_q4gsw_backward.c names linear_q4gsw_backward only)."""
    spans = []
    for op in ops:
        for m in re.finditer(r"(?<![A-Za-z0-9])" + re.escape(op) + r"(?![A-Za-z0-9])", path):
            spans.append((m.start(), m.end(), op))
    return {op for a, b, op in spans
            if not any(a2 <= a and b <= b2 and (b2 - a2) > (b - a) for a2, b2, _ in spans)}


def files_naming_ops(root, ops):
    """(path, op) for every non-test source file of the tree that names an op: in its
    path (ops_in_path), or as a word of its text outside comments (strings count; a
    word is delimited by anything but letters, digits and '_', so the identifier
    q4vk_op_adamw_step and the kernel linear_q4gsw_tiled do not name an op). docs/
    (notes and the records of past runs) is not source."""
    words = {op: re.compile(r"(?<![A-Za-z0-9_])" + re.escape(op) + r"(?![A-Za-z0-9_])")
             for op in ops}
    for top in sorted(os.listdir(root)):
        if top.startswith(".") or top.startswith("build") or top in SKIP_DIRS or top == "docs":
            continue
        full = os.path.join(root, top)
        paths = walk(root, top) if os.path.isdir(full) else [top]
        for path in paths:
            if not is_source(path) or is_test(path):
                continue
            text = open(os.path.join(root, path), encoding="utf-8", errors="replace").read()
            code = strip_comments(text, path)
            in_path = ops_in_path(path, ops)
            for op in ops:
                if op in in_path or words[op].search(code):
                    yield path, op


def check_op_files(root, doc_path):
    ops = op_names(root)
    pats = read_op_list(doc_path)
    return [f"{path}: names op {op} but is not on the \"adding an op\" list of {doc_path}"
            for path, op in files_naming_ops(root, ops) if not listed(path, op, pats)]


# ---------------- self-test ----------------

def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


def selftest():
    """Each check on a clean made-up tree (no finding), then with one planted fault
    each (exactly that finding)."""
    fails = []

    def expect(what, findings, want):
        if want is None and findings:
            fails.append(f"{what}: expected no finding, got {findings}")
        if want is not None and not any(want in f for f in findings):
            fails.append(f"{what}: expected a finding with '{want}', got {findings}")

    with tempfile.TemporaryDirectory() as root:
        write(root, "layers.txt", "# bottom first\nlow\nhigh\nhigh/top\n")
        write(root, "low/a.h", "/* a */\n#include <stdio.h>\n#include \"b.h\"\n")
        write(root, "low/a.c", "#include \"a.h\"\n")
        write(root, "low/b.h", "/* b */\n")
        write(root, "low/b.c", "#include \"b.h\"\n")
        write(root, "high/h.c", "#include \"a.h\"\n#include \"gen.h\"\n")
        write(root, "high/top/t.c", "#include \"h.c\"\n#include \"../h.c\"\n")
        layers = os.path.join(root, "layers.txt")
        expect("includes, clean", check_includes(root, layers), None)
        write(root, "low/b.c", "#include \"b.h\"\n#include \"x.h\"\n")   # upward
        write(root, "high/x.h", "/* x */\n")
        expect("includes, upward", check_includes(root, layers),
               "low/b.c:2: includes high/x.h, of layer 'high' above 'low'")
        write(root, "high/x.h", "")
        write(root, "low/b.c", "#include \"b.h\"\n#include \"../high/top/t.c\"\n")
        expect("includes, upward to a sub-layer", check_includes(root, layers),
               "includes high/top/t.c, of layer 'high/top' above 'low'")
        write(root, "low/b.c", "#include \"b.h\"\n#include \"a.h\"\n")   # a -> b -> a
        expect("includes, circle", check_includes(root, layers),
               "low/: include circle")

    with tempfile.TemporaryDirectory() as root:
        write(root, "cases/ops/op_one.c", "/* op_one */\n")
        write(root, "cases/ops/op_two.c", "")
        write(root, "docs/E.md", "# notes\n<!-- op-files -->\n- `cases/ops/<op>.c`, "
              "`gpu/k_<op>*.comp` and `gpu/{a,b}.h`\n- `gpu/dir/`\n<!-- /op-files -->\n")
        write(root, "gpu/k_op_one_fast.comp", "// op_one\nconst char *s = \"op_one\";\n")
        write(root, "gpu/a.h", "#define N \"op_one\"\n")
        write(root, "gpu/dir/deep/x.js", "export const op = 'op_two';\n")
        write(root, "gpu/other.c", "/* op_one in a comment, op_one_plus, xop_one */\n"
              "// \"op_two\"\nint op_one_fast;\n")
        write(root, "gpu/tests/test_x.c", "const char *s = \"op_one\";\n")
        write(root, "CMakeLists.txt", "# op_two\nset(X \"a#b\")\n")
        doc = os.path.join(root, "docs/E.md")
        expect("op files, clean", check_op_files(root, doc), None)
        write(root, "gpu/other.c", "const char *s = \"q4cts.op_two.custom\";\n")
        expect("op files, unlisted C file", check_op_files(root, doc),
               "gpu/other.c: names op op_two but is not on")
        write(root, "gpu/other.c", "")
        write(root, "CMakeLists.txt", "set(X op_one) # fine\n")
        expect("op files, unlisted CMake file", check_op_files(root, doc),
               "CMakeLists.txt: names op op_one but is not on")
        write(root, "CMakeLists.txt", "")
        write(root, "gpu/wgsl/op_two_loss.wgsl", "// a kernel with no name in it\n")
        expect("op files, a path that names an op", check_op_files(root, doc),
               "gpu/wgsl/op_two_loss.wgsl: names op op_two but is not on")
        os.remove(os.path.join(root, "gpu/wgsl/op_two_loss.wgsl"))
        write(root, "cases/ops/op_two_back.c", "")   # a longer op covers op_two in a path
        write(root, "gpu/q_op_two_back.c", "")
        found = check_op_files(root, doc)
        expect("op files, the longer op's path", found,
               "gpu/q_op_two_back.c: names op op_two_back but is not on")
        if any("names op op_two " in f for f in found):
            fails.append(f"op files, the longer op's path: op_two reported too: {found}")
    for f in fails:
        print(f)
    print(f"layout self-test: {'FAILED' if fails else 'every planted fault caught'}")
    return 1 if fails else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "selftest":
        return selftest()
    if len(argv) != 4 or argv[1] not in ("includes", "op-files"):
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[2]
    bad = (check_includes(root, argv[3]) if argv[1] == "includes"
           else check_op_files(root, argv[3]))
    for b in bad:
        print(b)
    print(f"layout {argv[1]}: {len(bad)} finding(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
