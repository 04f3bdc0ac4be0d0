#!/usr/bin/env python3
"""run_notebook.py NOTEBOOK [--out EXECUTED.ipynb] — executes the example notebook headless
(Debian's python3-nbclient, an ipykernel kernel of this interpreter, from the repository root)
and checks what its cells output, read from the executed notebook:

- the committed notebook has no outputs (they are made here, never stored);
- each `%%mls` cell's output is HTML (text/html) in the report's frame with an SVG chart;
- the cell tagged `raises-exception` raised mls.Error's subclass with its code and `<cell>:L:C`;
- the DataFrame cell printed units from df.attrs; the diff cell shows the report's diff view; the
  sensitivity cell the tornado chart.

Exit 0 when all hold; 1 listing what did not.
"""

import os
import sys

import nbclient
import nbformat

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def html_of(cell):
    return "".join(o.get("data", {}).get("text/html", "") for o in cell.get("outputs", []))


def text_of(cell):
    out = []
    for o in cell.get("outputs", []):
        out.append(o.get("text", ""))
        out.append(o.get("data", {}).get("text/plain", ""))
    return "".join(out)


def main():
    path = sys.argv[1]
    nb = nbformat.read(path, as_version=4)
    problems = []
    if any(c.get("outputs") for c in nb.cells if c.cell_type == "code"):
        problems.append("the committed notebook holds outputs: clear them (outputs are made by this test)")
    client = nbclient.NotebookClient(nb, timeout=240, kernel_name="python3", resources={"metadata": {"path": ROOT}})
    client.execute()
    if "--out" in sys.argv:
        nbformat.write(nb, sys.argv[sys.argv.index("--out") + 1])

    code = [c for c in nb.cells if c.cell_type == "code"]
    magic = [c for c in code if c.source.startswith("%%mls")]
    if len(magic) < 2:
        problems.append("expected at least two %%mls cells, found %d" % len(magic))
    for c in magic:
        h = html_of(c)
        tags = c.get("metadata", {}).get("tags", [])
        if "raises-exception" in tags:
            errors = [o for o in c.outputs if o.output_type == "error"]
            if not errors:
                problems.append("the cell tagged raises-exception raised nothing")
            elif not (errors[0].ename.endswith("Error") and "dim.mismatch" in errors[0].evalue and "<cell>:" in errors[0].evalue):
                problems.append("the error cell raised %s: %s" % (errors[0].ename, errors[0].evalue[:200]))
            continue
        if '<div class="mls-report">' not in h or "<svg" not in h:
            problems.append("a %%%%mls cell rendered no HTML with an SVG chart: %s" % c.source.splitlines()[0])
    pandas_cells = [c for c in code if "to_pandas" in c.source]
    if not pandas_cells or "units" not in text_of(pandas_cells[0]):
        problems.append("the DataFrame cell printed no units")
    diff_cells = [c for c in code if "mls.diff(" in c.source]
    if not diff_cells or "<svg" not in html_of(diff_cells[0]) or "because" not in html_of(diff_cells[0]):
        problems.append("the diff cell shows no diff view (what moved, because ..., both sides charted)")
    sens_cells = [c for c in code if "sensitivity(" in c.source]
    if not sens_cells or "<svg" not in html_of(sens_cells[0]):
        problems.append("the sensitivity cell shows no tornado chart")
    for p in problems:
        print("notebook:", p)
    print("%s: %d cells executed, %d problems" % (os.path.basename(path), len(code), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
