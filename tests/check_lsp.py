#!/usr/bin/env python3
"""check_lsp.py — drives `mls lsp` with a scripted client (issue #17): initialize, diagnostics with
their ranges (UTF-16 columns too), hover on a let, a shown value and a sweep column (value, unit,
assumptions), hover in a document with errors (what they do not reach is evaluated; a `set ` being
typed reaches nothing), a hover that refuses to evaluate a huge sweep, definition into stdlib/,
references, completion after `H100.`, document symbols, the did-you-mean code action, malformed
input of every kind (framing, JSON, ids, unknown methods, bad and out-of-range positions) and both
exit codes.

usage: check_lsp.py MLS_BINARY REPO_DIR
"""
import json
import os
import select
import subprocess
import sys
import tempfile
import time

MLS = os.path.abspath(sys.argv[1])
REPO = os.path.abspath(sys.argv[2])
TIMEOUT = 60.0  # seconds per reply; a hang fails the test
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return cond


class Client:
    def __init__(self, cwd, args=()):
        env = dict(os.environ)
        env.pop("MLS_STDLIB", None)
        self.p = subprocess.Popen([MLS, "lsp", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, cwd=cwd, env=env)
        self.buf = b""
        self.next_id = 1
        self.notes = []  # notifications received, in order

    def raw(self, data):
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def send(self, obj):
        body = json.dumps(obj).encode()
        self.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def _read_some(self, deadline):
        left = deadline - time.time()
        if left <= 0:
            raise TimeoutError("no reply from mls lsp")
        r, _, _ = select.select([self.p.stdout], [], [], left)
        if not r:
            raise TimeoutError("no reply from mls lsp")
        chunk = os.read(self.p.stdout.fileno(), 1 << 16)
        if not chunk:
            raise EOFError("mls lsp closed its output")
        self.buf += chunk

    def recv(self):
        deadline = time.time() + TIMEOUT
        while b"\r\n\r\n" not in self.buf:
            self._read_some(deadline)
        head, rest = self.buf.split(b"\r\n\r\n", 1)
        length = None
        for line in head.split(b"\r\n"):
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                length = int(v.strip())
        assert length is not None, head
        self.buf = rest
        while len(self.buf) < length:
            self._read_some(deadline)
        body, self.buf = self.buf[:length], self.buf[length:]
        return json.loads(body)

    def next_reply(self):
        """The next message that is not a notification (those are kept)."""
        while True:
            m = self.recv()
            if "method" in m and "id" not in m:
                self.notes.append(m)
                continue
            return m

    def reply(self, rid):
        """The response to request `rid`; notifications on the way are kept."""
        while True:
            m = self.recv()
            if "method" in m and "id" not in m:
                self.notes.append(m)
                continue
            if m.get("id") == rid:
                return m
            check(False, "unexpected message %r" % m)

    def request(self, method, params=None):
        rid = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return self.reply(rid)

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def diagnostics(self, uri):
        """The next publishDiagnostics for `uri` (earlier ones kept count as well)."""
        for i, n in enumerate(self.notes):
            if n["method"] == "textDocument/publishDiagnostics" and n["params"]["uri"] == uri:
                del self.notes[i]
                return n["params"]["diagnostics"]
        while True:
            m = self.recv()
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
                return m["params"]["diagnostics"]
            self.notes.append(m)

    def finish(self):
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        try:
            return self.p.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.p.kill()
            check(False, "mls lsp did not exit")
            return None


def pos(line, character):
    return {"line": line, "character": character}


def doc(uri):
    return {"textDocument": {"uri": uri}}


def at(uri, line, character):
    return {"textDocument": {"uri": uri}, "position": pos(line, character)}


GOOD = """# a small model for the editor test
let job = 30 day
let mem = H100.hbm.size
show per_gpu = mem / 2 -> GB
sweep grow over n in 1..4 {
  show n, total = mem * n -> GB
}
"""

BAD = """let x = H10
"""

UTF16 = """show s = "\U0001F600\u00e9", bad = nope
"""

# Typing `H100.` (the text does not parse) and a function with a dimension error: hover evaluates
# what neither reaches (issue 36).
ERRS = """let a = 2 * 3
let b = H100.
let c = b + 1
let f(x) = x + 1 s
let g(x) = x * 2
let p = f(3)
let q = g(3)
"""

HUGE_SWEEP = """sweep big over a in 1..2000000 {
  show a, b = a * 2
}
"""


def main():
    tmp = tempfile.mkdtemp(prefix="mls-lsp-")
    good = "file://" + os.path.join(tmp, "good.mls")
    bad = "file://" + os.path.join(tmp, "bad.mls")
    c = Client(tmp)

    # Before initialize: a request is refused, the server goes on.
    r = c.request("textDocument/hover", at(good, 0, 0))
    check(r.get("error", {}).get("code") == -32002, "request before initialize: %r" % r)

    r = c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    caps = r.get("result", {}).get("capabilities", {})
    check(caps.get("hoverProvider") and caps.get("definitionProvider") and caps.get("completionProvider"),
          "initialize capabilities: %r" % r)
    c.notify("initialized", {})

    # Diagnostics: the unknown name H10 at line 0, characters 8..11, with a did-you-mean.
    c.notify("textDocument/didOpen", {"textDocument": {"uri": bad, "languageId": "mls", "version": 1, "text": BAD}})
    ds = c.diagnostics(bad)
    check(len(ds) == 1, "one diagnostic for bad.mls: %r" % ds)
    if ds:
        d = ds[0]
        check(d["range"] == {"start": pos(0, 8), "end": pos(0, 11)}, "range of H10: %r" % d["range"])
        check(d.get("code") == "name.unknown" and d.get("severity") == 1, "code/severity: %r" % d)
        check("H100" in d.get("data", {}).get("suggestions", []), "suggestion H100: %r" % d)
        # The quick fix replaces exactly that word.
        r = c.request("textDocument/codeAction", {"textDocument": {"uri": bad}, "range": d["range"],
                                                   "context": {"diagnostics": [d]}})
        acts = r.get("result") or []
        edits = [a["edit"]["changes"][bad][0] for a in acts if "edit" in a]
        check(any(e["newText"] == "H100" and e["range"] == d["range"] for e in edits), "code action H10 -> H100: %r" % r)

    # A fixed text clears the diagnostics.
    c.notify("textDocument/didChange", {"textDocument": {"uri": bad, "version": 2},
                                        "contentChanges": [{"text": "let x = H100\n"}]})
    check(c.diagnostics(bad) == [], "diagnostics cleared after the fix")

    # UTF-16 columns: an emoji counts two, é one.
    u16 = "file://" + os.path.join(tmp, "utf16.mls")
    c.notify("textDocument/didOpen", {"textDocument": {"uri": u16, "languageId": "mls", "version": 1, "text": UTF16}})
    ds = c.diagnostics(u16)
    check(len(ds) >= 1 and ds[0]["range"] == {"start": pos(0, 22), "end": pos(0, 26)},
          "UTF-16 range of 'nope': %r" % ds)

    c.notify("textDocument/didOpen", {"textDocument": {"uri": good, "languageId": "mls", "version": 1, "text": GOOD}})
    check(c.diagnostics(good) == [], "good.mls has no diagnostics")

    def hover(line, ch):
        r = c.request("textDocument/hover", at(good, line, ch))
        res = r.get("result") or {}
        return res.get("contents", {}).get("value", "")

    h = hover(1, 5)  # let job = 30 day
    check("job" in h and "Time" in h and "30" in h and "assumption" in h, "hover on let job: %r" % h)
    h = hover(2, 5)  # let mem = H100.hbm.size: a registry value with its assumption
    check("Information" in h and "GB" in h and "H100" in h, "hover on mem: %r" % h)
    h = hover(3, 7)  # show per_gpu
    check("per_gpu" in h and "GB" in h and "assumption" in h, "hover on show per_gpu: %r" % h)
    h = hover(5, 11)  # the sweep column `total`
    check("column of sweep grow" in h and "4 rows" in h and "GB" in h and "n = 1" in h and "n = 4" in h
          and "assumption" in h, "hover on sweep column total: %r" % h)

    # Definition of H100 jumps into the repository's stdlib/.
    r = c.request("textDocument/definition", at(good, 2, 11))
    locs = r.get("result") or []
    ok = check(len(locs) == 1 and locs[0]["uri"].startswith("file://" + os.path.join(REPO, "stdlib") + "/"),
               "definition of H100 in stdlib/: %r" % r)
    if ok:
        path = locs[0]["uri"][len("file://"):]
        with open(path, encoding="utf-8") as f:
            line = f.read().split("\n")[locs[0]["range"]["start"]["line"]]
        s = locs[0]["range"]["start"]["character"]
        check(line[s:s + 4] == "H100", "the definition range names H100: %r" % line)
    # Definition of a local (the sweep variable n) and of a document name.
    r = c.request("textDocument/definition", at(good, 5, 24))
    check(r.get("result") == [{"uri": good, "range": {"start": pos(4, 16), "end": pos(4, 17)}}],
          "definition of n: %r" % r)
    r = c.request("textDocument/references", {**at(good, 2, 5), "context": {"includeDeclaration": True}})
    lines = sorted(l["range"]["start"]["line"] for l in r.get("result") or [])
    check(lines == [2, 3, 5], "references of mem: %r" % r)

    r = c.request("textDocument/documentSymbol", doc(good))
    names = sorted(s["name"] for s in r.get("result") or [])
    check(names == ["grow", "job", "mem"], "document symbols: %r" % r)

    # Completion after `H100.`: the text does not parse while typing, the prelude still answers.
    c.notify("textDocument/didChange", {"textDocument": {"uri": good, "version": 2},
                                        "contentChanges": [{"text": GOOD + "let y = H100.\n"}]})
    r = c.request("textDocument/completion", at(good, 7, 13))
    labels = [i["label"] for i in (r.get("result") or {}).get("items", [])]
    check("hbm" in labels, "completion after H100. lists its fields: %r" % labels[:20])
    r = c.request("textDocument/completion", at(good, 2, 12))  # `let mem = H1|`
    labels = [i["label"] for i in (r.get("result") or {}).get("items", [])]
    check("H100" in labels, "completion of H1: %r" % labels[:20])

    # While the document has errors, hover evaluates what they do not reach, and says which error
    # reaches the rest.
    errs = "file://" + os.path.join(tmp, "errs.mls")
    c.notify("textDocument/didOpen", {"textDocument": {"uri": errs, "languageId": "mls", "version": 1, "text": ERRS}})
    ds = c.diagnostics(errs)
    check(len(ds) == 2, "errs.mls: a parse error and a dimension error: %r" % ds)

    def hover_in(uri, line, ch):
        r = c.request("textDocument/hover", at(uri, line, ch))
        return (r.get("result") or {}).get("contents", {}).get("value", "")

    h = hover_in(errs, 0, 4)
    check("`6`" in h and "not evaluated" not in h, "hover on a clean let in a document with errors: %r" % h)
    h = hover_in(errs, 2, 4)
    check("not evaluated: depends on `b` (line 2), which has an error" in h, "hover on a let reading `b`: %r" % h)
    h = hover_in(errs, 6, 4)
    check("`6`" in h, "hover on a let calling a clean function: %r" % h)
    h = hover_in(errs, 5, 4)
    check("not evaluated: depends on `f` (line 4), which has an error" in h,
          "hover on a let calling the erroneous function: %r" % h)

    # A `set ` with no target yet (being typed) names nothing it could set: the rest is evaluated.
    typing = "file://" + os.path.join(tmp, "typing.mls")
    c.notify("textDocument/didOpen", {"textDocument": {"uri": typing, "languageId": "mls", "version": 1,
                                                       "text": "let a = 2 * 3\nset \nlet q = a + 1\n"}})
    ds = c.diagnostics(typing)
    check(len(ds) == 1, "typing.mls: one parse error: %r" % ds)
    h = hover_in(typing, 0, 4)
    check("`6`" in h and "not evaluated" not in h, "hover above a `set ` being typed: %r" % h)
    h = hover_in(typing, 2, 4)
    check("`7`" in h and "not evaluated" not in h, "hover below a `set ` being typed: %r" % h)

    # A huge sweep is not evaluated on hover.
    big = "file://" + os.path.join(tmp, "big.mls")
    c.notify("textDocument/didOpen", {"textDocument": {"uri": big, "languageId": "mls", "version": 1, "text": HUGE_SWEEP}})
    t0 = time.time()
    r = c.request("textDocument/hover", at(big, 1, 10))
    h = (r.get("result") or {}).get("contents", {}).get("value", "")
    check("not evaluated (too large" in h and time.time() - t0 < 10, "hover on a 2M-point sweep: %r" % h)

    # A slow hover (2^40 calls, stopped by the step budget long after 10 ms) is cancelled by the
    # next message: the client's next keystroke arrives in the same write.
    slow = "file://" + os.path.join(tmp, "slow.mls")
    text = "let f(n) = if n <= 0 then 1 else f(n - 1) + f(n - 1)\nlet big = f(40)\n"
    c.notify("textDocument/didOpen", {"textDocument": {"uri": slow, "languageId": "mls", "version": 1, "text": text}})
    rid = c.next_id
    c.next_id += 1
    hov = json.dumps({"jsonrpc": "2.0", "id": rid, "method": "textDocument/hover", "params": at(slow, 1, 5)}).encode()
    chg = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didChange",
                      "params": {"textDocument": {"uri": slow, "version": 2},
                                 "contentChanges": [{"text": text + "# edited\n"}]}}).encode()
    t0 = time.time()
    c.raw(b"Content-Length: %d\r\n\r\n" % len(hov) + hov + b"Content-Length: %d\r\n\r\n" % len(chg) + chg)
    h = (c.reply(rid).get("result") or {}).get("contents", {}).get("value", "")
    check("not evaluated (cancelled" in h and time.time() - t0 < 5, "a slow hover is cancelled by the next message: %r" % h)
    print("slow hover answered in %.2f s" % (time.time() - t0))

    # Malformed input: each gets an error reply (or nothing, for notifications) and the server goes on.
    c.raw(b"Content-Length: abc\r\n\r\n")
    m = c.next_reply()
    check(m.get("id") is None and m.get("error", {}).get("code") == -32700, "bad Content-Length: %r" % m)
    c.raw(b"Content-Length: 5\r\n\r\n{oops")
    m = c.next_reply()
    check(m.get("error", {}).get("code") == -32700, "bad JSON: %r" % m)
    c.raw(b"Content-Length: 2\r\n\r\n[]")
    m = c.next_reply()
    check(m.get("error", {}).get("code") == -32600, "a batch/array: %r" % m)
    r = c.request("textDocument/formatting", doc(good))
    check(r.get("error", {}).get("code") == -32601, "unknown method: %r" % r)
    c.notify("$/unknownNotification", {"x": 1})
    c.notify("textDocument/didOpen", {"textDocument": 7})  # malformed notification: dropped
    r = c.request("textDocument/hover", at(good, 99999, 99999))
    check("result" in r, "out-of-range position: %r" % r)
    r = c.request("textDocument/hover", at(good, -1, 0))
    check(r.get("error", {}).get("code") == -32602, "negative position: %r" % r)
    r = c.request("textDocument/hover", {"textDocument": {"uri": "file:///nowhere.mls"}, "position": pos(0, 0)})
    check(r.get("error", {}).get("code") == -32602, "document not open: %r" % r)
    r = c.request("textDocument/definition", {"position": "x"})
    check(r.get("error", {}).get("code") == -32602, "missing textDocument: %r" % r)
    # A large file that does not parse: diagnostics come back, bounded in number.
    huge = "file://" + os.path.join(tmp, "huge.mls")
    text = "".join("let v%d = %d GB\n" % (i, i) for i in range(20000)) + "let broken = (\n"
    t0 = time.time()
    c.notify("textDocument/didOpen", {"textDocument": {"uri": huge, "languageId": "mls", "version": 1, "text": text}})
    ds = c.diagnostics(huge)
    check(len(ds) >= 1 and ds[0]["code"].startswith("parse."), "diagnostics of a huge unparsable file: %r" % ds[:2])
    print("huge file (%d bytes) checked in %.2f s" % (len(text), time.time() - t0))
    c.notify("textDocument/didClose", doc(huge))
    check(c.diagnostics(huge) == [], "didClose clears the diagnostics")

    r = c.request("shutdown")
    check("result" in r and r["result"] is None, "shutdown: %r" % r)
    r = c.request("textDocument/hover", at(good, 0, 0))
    check(r.get("error", {}).get("code") == -32600, "request after shutdown: %r" % r)
    c.notify("exit", None)
    check(c.finish() == 0, "exit after shutdown: code 0")

    # Exit without shutdown: 1; end of input without exit: 1.
    c = Client(tmp)
    c.request("initialize", {"capabilities": {}})
    c.notify("exit", None)
    check(c.finish() == 1, "exit without shutdown: code 1")
    c = Client(tmp)
    c.raw(b"Content-Length: 10\r\n\r\n{")  # truncated message, then end of input
    check(c.finish() == 1, "end of input mid-message: code 1")
    c = Client(tmp, ["--bogus"])
    check(c.finish() == 64, "unknown option: usage exit code 64")

    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("lsp protocol: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
