"""The GIL is released while mls evaluates; threads give the bytes one thread gives; Ctrl-C
(SIGINT) stops a 10^7-point sweep with KeyboardInterrupt within a second."""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import mls
from conftest import ROOT, THOUSAND

SERVING = os.path.join("scenarios", "serving_conventions.mls")

# Ten million points, each a fleet's MTBF: minutes of work, so only an interrupt ends it soon.
BIG = """sweep big over nodes in 1..10000, spares in 1..1000 {
  let f = fleet(DGX_H100, nodes, InfiniBand_NDR)
  show nodes, spares, mtbf_h = fleet_mtbf(f) * (1 + spares / 1000) -> h
}
"""


def test_four_threads_give_the_bytes_of_one():
    files = [THOUSAND, SERVING, THOUSAND, SERVING]
    alone = [mls.run(f).json for f in files]
    together = [None] * len(files)
    start = threading.Barrier(len(files))

    def work(i):
        start.wait()
        together[i] = mls.run(files[i]).json

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(files))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert together == alone


def test_the_gil_is_released_while_mls_evaluates():
    count = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        before = count[0]
        mls.run(THOUSAND)  # on this thread, ~0.1 s of evaluation
        during = count[0] - before
    finally:
        stop.set()
        t.join()
    # Holding the GIL, the spinning thread could not have run at all until the call returned.
    assert during > 1000, during


def test_ctrl_c_stops_a_ten_million_point_sweep_within_a_second():
    child = textwrap.dedent(
        """
        import sys, time, mls
        print("ready", flush=True)
        try:
            mls.run(sys.argv[1], max_points=10**7)
            print("finished", flush=True)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
        r = mls.run("show x = 2 h -> h\\n")  # the next call runs: the interrupt was served
        print("after", r.results["x"].text, flush=True)
        """
    )
    p = subprocess.Popen(
        [sys.executable, "-c", child, BIG], stdout=subprocess.PIPE, text=True, cwd=ROOT, env=dict(os.environ)
    )
    try:
        assert p.stdout.readline().strip() == "ready"
        time.sleep(1.5)  # well into the sweep
        assert p.poll() is None, "the sweep ended before Ctrl-C"
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        line = p.stdout.readline().strip()
        elapsed = time.monotonic() - sent
        assert line == "interrupted"
        assert elapsed < 1.0, "KeyboardInterrupt %.2f s after SIGINT" % elapsed
        assert p.stdout.readline().strip() == "after 2 h"
        assert p.wait(timeout=30) == 0
    finally:
        if p.poll() is None:
            p.kill()
