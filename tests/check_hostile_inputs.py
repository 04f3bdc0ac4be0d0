#!/usr/bin/env python3
"""check_hostile_inputs.py — inputs built to crash mls or make it leak a file, each under the
documented size limits (issue 38, items 1, 2 and 16); the huge ones are generated here, never
committed.

- `mls lsp`: a 12 MB message whose params nest 6 million levels, before and after `initialize`:
  an error reply each time, and the server goes on to a clean shutdown (it segfaulted copying
  the params).
- model_from_hf on a config.json `{"model_type": [[[...]]]}` nested 3 million deep (6 MB): an
  hf.parse error in `run` and `check`, and as diagnostics of an open LSP document, the server
  alive after (it segfaulted printing the value); a config.json whose values are a million-element
  array and a 4 MB string: hf.bad_value messages that stay short (flat, bounded excerpts).
- No file's text is echoed when the file is not what it claims to be: a scenario `x.mls` (and an
  import) that is a symbolic link to a secret file, a JSON file without a model_type read by
  model_from_hf. The secret's text appears nowhere in the output.
- CSV with control characters in strings loads in Python's csv module and holds none raw.
- A diagnostic echoing a megabyte identifier stays short (its message cut in the middle), and no
  error message writes a control character raw to the terminal (C1 included).
- A sweep binding one name 5000 times (found by the structured fuzz mode: an error per earlier
  binding, 4.8 GB and minutes): errors at once, within a hang guard (like check_no_hang.py).

usage: check_hostile_inputs.py MLS
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

SECRET = "SECRET_LINE_1 password=hunter2"
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def run(mls, args, cwd, stdin=b"", timeout=300):
    return subprocess.run([mls] + args, cwd=cwd, input=stdin, capture_output=True, timeout=timeout)


def frame(obj_or_text):
    body = obj_or_text if isinstance(obj_or_text, bytes) else json.dumps(obj_or_text).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def replies(out):
    """The JSON bodies of a server's output, in order."""
    bodies = []
    while out:
        head, sep, rest = out.partition(b"\r\n\r\n")
        if not sep or not head.startswith(b"Content-Length: "):
            raise ValueError("bad framing: %r" % out[:80])
        n = int(head[len(b"Content-Length: "):])
        bodies.append(json.loads(rest[:n]))
        out = rest[n:]
    return bodies


def lsp(mls, cwd, messages):
    stream = b"".join(frame(m) for m in messages)
    p = run(mls, ["lsp"], cwd, stdin=stream)
    try:
        return p.returncode, replies(p.stdout)
    except ValueError as e:
        return p.returncode, [{"unparsed": str(e)}]


def deep_lsp(mls, d):
    n = 6_000_000
    deep = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":' + b"[" * n + b"]" * n + b"}"
    check(len(deep) < 64 << 20, "the deep message (%d bytes) is under the 64 MiB message cap" % len(deep))
    init = {"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"capabilities": {}}}
    deep_hover = (b'{"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":' + b"{\"a\":" * n + b"1" +
                  b"}" * n + b"}")
    rc, got = lsp(mls, d, [deep, init, deep_hover,
                           {"jsonrpc": "2.0", "id": 4, "method": "shutdown"}, {"jsonrpc": "2.0", "method": "exit"}])
    check(rc == 0, "lsp: params nested %d deep, before and after initialize: the server exits 0 (got %d)" % (n, rc))
    errors = [r for r in got if "error" in r]
    check(len(errors) == 2 and all("deeper than" in r["error"]["message"] for r in errors),
          "... each deep message gets an error reply saying it nests too deep")
    check(any(r.get("id") == 2 and "result" in r for r in got) and any(r.get("id") == 4 for r in got),
          "... and initialize and shutdown are answered")


def deep_config(mls, d):
    n = 3_000_000
    with open(os.path.join(d, "deep.json"), "w") as f:
        f.write('{"model_type": ' + "[" * n + "]" * n + "}")
    with open(os.path.join(d, "deep.mls"), "w") as f:
        f.write('let m = model_from_hf("deep.json")\nshow m.params\n')
    for cmd in ("run", "check"):
        p = run(mls, [cmd, "deep.mls"], d)
        err = p.stderr.decode(errors="replace")
        check(p.returncode == 65 and "error[hf.parse]" in err and "deeper than 64" in err and len(err) < 2000,
              "%s of a config.json nested %d deep: hf.parse, exit 65, a short message (exit %d, %d bytes)" % (
                  cmd, n, p.returncode, len(err)))
    # The same config behind an open document: diagnostics, and the server lives on.
    uri = "file://" + os.path.join(d, "deep.mls")
    text = open(os.path.join(d, "deep.mls")).read()
    p = subprocess.Popen([mls, "lsp"], cwd=d, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    for m in ({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
              {"jsonrpc": "2.0", "method": "initialized", "params": {}},
              {"jsonrpc": "2.0", "method": "textDocument/didOpen",
               "params": {"textDocument": {"uri": uri, "languageId": "mls", "version": 1, "text": text}}}):
        p.stdin.write(frame(m))
    p.stdin.flush()
    # The diagnostics are published once the server has no input waiting: read until they come.
    out, diags = b"", []
    while not diags:
        chunk = os.read(p.stdout.fileno(), 1 << 16)
        if not chunk:
            break
        out += chunk
        try:
            diags = [r for r in replies(out) if r.get("method") == "textDocument/publishDiagnostics"]
        except (ValueError, json.JSONDecodeError):
            continue  # a message cut in the middle: read on
    rest, _ = p.communicate(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}) +
                            frame({"jsonrpc": "2.0", "method": "exit"}), timeout=300)
    check(p.returncode == 0 and any(x["code"] == "hf.parse" for r in diags for x in r["params"]["diagnostics"]),
          "lsp: a document reading that config gets an hf.parse diagnostic and the server exits 0 (got %s)" %
          p.returncode)
    # Flat values, huge: the message shows their kind and size, or a cut string.
    with open(os.path.join(d, "wide.json"), "w") as f:
        json.dump({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": list(range(1_000_000)),
                   "num_attention_heads": "h" * 4_000_000, "vocab_size": 10, "intermediate_size": 10}, f)
    with open(os.path.join(d, "wide.mls"), "w") as f:
        f.write('let m = model_from_hf("wide.json")\nshow m.params\n')
    p = run(mls, ["check", "wide.mls"], d)
    err = p.stderr.decode(errors="replace")
    check(p.returncode == 65 and err.count("error[hf.bad_value]") == 2 and "an array of 1000000 values" in err and
          len(err) < 4000, "a million-element array and a 4 MB string as values: two short hf.bad_value messages "
          "(%d bytes)" % len(err))
    # Three million values (past the 2,000,000 a config or an LSP message may hold): refused before
    # the value is built, one short hf.parse message.
    with open(os.path.join(d, "flood.json"), "w") as f:
        f.write('{"model_type": "llama", "hidden_size": [' + ",".join(["0"] * 3_000_000) + "]}")
    with open(os.path.join(d, "flood.mls"), "w") as f:
        f.write('let m = model_from_hf("flood.json")\nshow m.params\n')
    p = run(mls, ["check", "flood.mls"], d)
    err = p.stderr.decode(errors="replace")
    check(p.returncode == 65 and "error[hf.parse]" in err and "more than 2000000 JSON values" in err and
          len(err) < 2000, "three million values in a config.json: one short hf.parse message (%d bytes)" % len(err))


def secrets(mls, d):
    with open(os.path.join(d, "secret.txt"), "w") as f:
        f.write(SECRET + "\nsecond line\n")
    with open(os.path.join(d, "secret.json"), "w") as f:
        f.write('{"password": "%s"}\n' % SECRET)
    os.symlink("secret.txt", os.path.join(d, "x.mls"))
    with open(os.path.join(d, "imports.mls"), "w") as f:
        f.write('import "x.mls"\nshow a = 1\n')
    with open(os.path.join(d, "json_secret.mls"), "w") as f:
        f.write('let m = model_from_hf("secret.json")\nshow m.params\n')
    for args, kind in ((["run", "x.mls"], "load.not_mls"), (["check", "x.mls"], "load.not_mls"),
                       (["run", "imports.mls"], "load.not_mls"), (["run", "json_secret.mls"], "hf.missing_key")):
        p = run(mls, args, d)
        out = (p.stdout + p.stderr).decode(errors="replace")
        check(p.returncode == 65 and "error[%s]" % kind in out and "SECRET" not in out and "hunter2" not in out,
              "%s: error[%s] without a byte of the secret it points at" % (" ".join(args), kind))


def control_characters_in_csv(mls, d):
    with open(os.path.join(d, "ctl.mls"), "w") as f:
        f.write('show s = "a\x1b[31mred\x07, \u009b\\"q\\""\n')
    p = run(mls, ["run", "ctl.mls", "--format", "csv", "--table", "show"], d)
    text = p.stdout.decode()
    raw = [c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0]
    rows = list(csv.reader(io.StringIO(text)))
    check(p.returncode == 0 and not raw and rows == [["name", "value", "unit"],
                                                     ["s", 'a\\x1B[31mred\\x07, \\u009B"q"', ""]],
          "CSV: control characters escaped as text, and Python's csv module reads the row back (%r)" % rows)


def bounded_messages(mls, d):
    with open(os.path.join(d, "ident.mls"), "w") as f:
        f.write("show " + "a" * 1_000_000 + "\n")
    p = run(mls, ["check", "ident.mls"], d)
    err = p.stderr.decode(errors="replace")
    check(p.returncode == 65 and "error[name.unknown]" in err and len(err) < 4000,
          "an unknown name of a million bytes: one short message (%d bytes)" % len(err))
    with open(os.path.join(d, "c1.mls"), "w") as f:
        f.write('show x = error("bad \u009b31m \x1b[2J \x07")\n')
    p = run(mls, ["run", "c1.mls"], d)
    err = p.stderr.decode()
    raw = [c for c in err if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0]
    check(p.returncode == 65 and "error[runtime.error]" in err and not raw,
          "error() with ESC, BEL and U+009B: none of them reaches stderr raw (%r)" % raw)


def many_bindings(mls, d):
    with open(os.path.join(d, "bindings.mls"), "w") as f:
        f.write("sweep t over " + "a in [1], " * 5000 + "b in [1, 2] {\n  show b\n}\n")
    try:
        p = run(mls, ["check", "bindings.mls"], d, timeout=60)
        err = p.stderr.decode(errors="replace")
        check(p.returncode == 65 and ("error[sweep.decl]" in err or "error[name.duplicate]" in err),
              "a sweep binding one name 5000 times: an error, exit 65 (got %d)" % p.returncode)
    except subprocess.TimeoutExpired:
        check(False, "a sweep binding one name 5000 times: no answer within 60 s")


def main():
    mls = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as d:
        deep_lsp(mls, d)
        deep_config(mls, d)
        secrets(mls, d)
        control_characters_in_csv(mls, d)
        bounded_messages(mls, d)
        many_bindings(mls, d)
    print("%d check(s) failed" % len(failures) if failures else "all ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
