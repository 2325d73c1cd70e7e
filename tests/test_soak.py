# amaranth: UnusedElaboratable=no
"""The soak: random queries on the CXXRTL model against the golden model."""

import argparse
import dataclasses
import shutil
import time

import pytest

from axon.hdl.word import unpack_word
from axon.sim.model import golden
from axon.sim.cli.soak import register
from axon.sim.verify.soak import IMAGE_KINDS, make_batch, random_image, soak
from axon.hdl.params import DetectorConfig


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "soaks"


needs_gxx = pytest.mark.skipif(shutil.which("g++") is None,
                               reason="the soak runs the CXXRTL backend, which compiles with g++, "
                                      "not on PATH")


def run_soak(queries, **options):
    began = time.perf_counter()
    report = soak(queries, **options)
    print(f"\n{report.summary()}\n  test wall time {time.perf_counter() - began:.1f} s")
    return report


@needs_gxx
def test_soak_30k_queries():
    report = run_soak(30_000, seed=1)
    assert report.queries >= 30_000
    assert report.mismatches == 0, report.summary()
    # Every way a scan ends, equal positions, both scanner paths, every source.
    assert set(report.stops) == {"barrier", "bottom", "limit", "overflow"}
    assert report.repetitions > 300
    # Draws for the search, and repetitions the root holds back.
    assert 150 < report.draws < report.repetitions
    assert report.upcoming > 300
    assert 0 < report.refetched < report.queries
    # Queries that start from the words just written: every one of a
    # search's, and now and then an image's first.
    assert report.kinds["search"] < report.fresh < report.queries
    assert set(report.kinds) == {"game", "search", *IMAGE_KINDS}


@needs_gxx
# The paper rules at 24 chains are one more model to compile: a sweep.
@pytest.mark.parametrize("rules, chains", [
    pytest.param("paper", 24, marks=pytest.mark.slow), ("exact", 4), ("paper", 4)])
def test_soak_other_configurations(rules, chains):
    report = run_soak(20_000, seed=2, config=DetectorConfig(rules=rules, chains=chains))
    assert report.mismatches == 0, report.summary()
    assert "overflow" in report.stops


@needs_gxx
@pytest.mark.slow
def test_soak_10m_queries():
    report = run_soak(10_000_000, seed=3)
    assert report.queries >= 10_000_000
    assert report.mismatches == 0, report.summary()


@needs_gxx
def test_soak_fails_when_the_golden_model_lies(monkeypatch):
    honest = golden.perpetual

    def lying(words, top, **options):
        result = honest(words, top, **options)
        if top == 7:
            return dataclasses.replace(result, count=result.count + 1)
        return result

    monkeypatch.setattr(golden, "perpetual", lying)
    report = soak(2000, seed=4, workers=1, batch_queries=1000, keep=3)
    assert report.mismatches > 0
    assert len(report.first_mismatches) == 3
    first = report.first_mismatches[0]
    assert first.top == 7 and first.expected.count == first.got.result.count + 1
    assert "top=7" in first.describe() and "expected" in report.summary()


@needs_gxx
def test_soak_checks_the_clock_count():
    class SlowerOnPaper(DetectorConfig):
        """The shipped detector, said to take one clock more a query."""
        def latency(self, plies_scanned, **after):
            return super().latency(plies_scanned, **after) + 1

    report = soak(1000, seed=5, config=SlowerOnPaper(), workers=1, batch_queries=1000)
    # Every game query now expects one clock too many, whether or not it
    # starts from the words just written.
    assert report.mismatches >= report.kinds["game"] + report.kinds["search"]
    assert report.kinds["game"] > 0 and report.kinds["search"] > 0


@needs_gxx
def test_soak_command(monkeypatch, capsys):
    parser = argparse.ArgumentParser(prog="axon")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["soak", "--queries", "500", "--seed", "6", "--workers", "1",
                              "--chains", "4", "--rules", "paper", "-q"])
    assert args.func(args) == 0
    output = capsys.readouterr().out
    assert "rules paper, 4 chains" in output and "mismatches: 0" in output

    monkeypatch.setattr(golden, "perpetual", lambda words, top, **options: golden.Result(
        repetition=False, distance=None, count=0, overflow=False, plies_scanned=0,
        stop=golden.Stop.BARRIER))
    assert args.func(args) == 1
    assert "mismatches: 0" not in capsys.readouterr().out


@needs_gxx
def test_soak_runs_what_its_help_says(tmp_path):
    # Through the installed script, to its end: --queries 2000 runs the one
    # batch that the help's range gives (a model the soak command's test
    # compiles too).
    import os
    import re
    import subprocess
    import sys
    axon = os.path.join(os.path.dirname(sys.executable), "axon")
    done = subprocess.run([axon, "soak", "--help"], capture_output=True, text=True, timeout=120)
    text = " ".join(done.stdout.split())
    low, high = (int(n.replace(",", "")) for n in re.search(
        r"--queries 2000 runs one batch, ([\d,]+) to ([\d,]+) queries", text).groups())
    done = subprocess.run([axon, "soak", "--queries", "2000", "--seed", "6", "--workers", "1",
                           "--chains", "4", "--rules", "paper", "-q"], capture_output=True,
                          text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    ran = int(re.match(r"soak: (\d+) queries", done.stdout).group(1))
    assert low <= ran <= high and "mismatches: 0" in done.stdout, done.stdout


@needs_gxx
def test_soak_command_bad_options(capsys):
    parser = argparse.ArgumentParser(prog="axon")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["soak", "--chains", "3", "-q"])
    assert args.func(args) == 2
    assert "axon soak: error: --chains must be even for the exact rules (half the slots serve each side), not 3" in \
        capsys.readouterr().err
    with pytest.raises(SystemExit):
        parser.parse_args(["soak", "--queries", "0"])


@pytest.mark.quick
def test_batches_are_reproducible():
    first = make_batch(7, 3, queries=600, depth=256)
    assert first == make_batch(7, 3, queries=600, depth=256)
    assert first != make_batch(7, 4, queries=600, depth=256)
    assert first != make_batch(8, 3, queries=600, depth=256)
    assert sum(len(job.queries) for job in first) >= 600
    for job in first:
        assert all(0 <= top < len(job.words) and 0 <= limit <= 15 and 0 <= occupancy < 1 << 64
                   and -1 <= root < len(job.words)
                   for top, limit, occupancy, root in job.queries)
    # The occupancies vary: empty boards, game positions, random blockers;
    # so do the roots: below, at and above the query.
    assert len({occupancy for job in first for _, _, occupancy, _ in job.queries}) > 300
    places = {(root > top) - (root < top) for job in first for top, _, _, root in job.queries}
    assert places == {-1, 0, 1}


@pytest.mark.quick
def test_image_kinds():
    import random
    rng = random.Random(8)
    for kind in IMAGE_KINDS:
        words = random_image(rng, 64, kind)
        assert len(words) == 64 and all(0 <= word < 1 << 17 for word in words)
        fields = [unpack_word(word) for word in words]
        if kind == "barriers":
            assert all(barrier for _, _, _, barrier in fields)
        if kind == "still":
            assert all(from_sq == to_sq for from_sq, to_sq, _, _ in fields)
        if kind == "alternating":
            colours = {(address + (piece >> 3)) & 1
                       for address, (_, _, piece, _) in enumerate(fields)}
            assert len(colours) == 1
    with pytest.raises(ValueError, match=r"image kind must be one of wild, near, "
                                         r"alternating, barriers, still, mixed, not 'odd'"):
        random_image(rng, 8, "odd")


@pytest.mark.quick
def test_soak_parameters_are_checked():
    with pytest.raises(ValueError, match=r"query count must be a positive integer, not 0"):
        soak(0)
    with pytest.raises(ValueError, match=r"worker count must be a positive integer, not 0"):
        soak(10, workers=0)


class _Stream:
    def __init__(self, tty):
        self.tty, self.text = tty, ""

    def isatty(self):
        return self.tty

    def write(self, text):
        self.text += text

    def flush(self):
        pass


@pytest.mark.quick
def test_soak_progress_in_a_log_is_lines():
    from axon.sim.cli.soak import SoakProgress
    now = [0.0]
    log = _Stream(tty=False)
    progress = SoakProgress(log, interval=30.0, clock=lambda: now[0])
    for done in range(1, 5):
        now[0] += 20.0
        progress(done * 1000, 4000, 0)
    progress.end()
    # A line each 30 s, whole lines, and no carriage return.
    assert log.text == "soak: 2000/4000 queries, 0 mismatches\n" \
                       "soak: 4000/4000 queries, 0 mismatches\n"
    # A terminal rewrites one line in place, ended once.
    terminal = _Stream(tty=True)
    progress = SoakProgress(terminal)
    progress(1, 2, 0)
    progress(2, 2, 0)
    progress.end()
    assert terminal.text == "\rsoak: 1/2 queries, 0 mismatches\rsoak: 2/2 queries, 0 mismatches\n"
