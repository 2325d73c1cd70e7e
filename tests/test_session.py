"""The detector-session contract: what a backend must give, and what it gets.

:class:`~axon.sim.backends.session.Session` is abstract. A backend gives
``load``, ``write`` and ``query``; ``run_batch`` is made of them. A backend
that leaves one out cannot be made, so it never recurses or half-works when
asked.
"""

import pytest

from axon.hdl.params import SHIPPED, Written
from axon.hdl.word import pack_word
from axon.sim.backends.session import (Answer, GoldenSession, HostWrites, Session,
                                       answer_games, written_before)


# What this module pays for, in `pytest --budget N`.
CAPABILITY = "session contract"


# Every test here is quick: all of it is in the edit loop's tier.
pytestmark = pytest.mark.quick


class ListSession(Session):
    """The smallest whole backend: the golden model's answers, kept in a list."""

    def __init__(self):
        self.config = SHIPPED
        self.golden = GoldenSession(SHIPPED)
        self.queries = 0

    def load(self, words):
        self.golden.load(words)

    def write(self, address, word):
        self.golden.write(address, word)

    def query(self, top, count_limit, occupancy=None, root_address=-1):
        self.queries += 1
        return self.golden.query(top, count_limit, occupancy, root_address)


KNIGHTS = [pack_word(6, 21, 2), pack_word(62, 45, 10), pack_word(21, 6, 2), pack_word(45, 62, 10)]


def test_run_batch_is_made_of_load_and_query():
    session = ListSession()
    seen = []
    found = session.run_batch([(KNIGHTS * 2, [(7, 1), (3, 1, None, -1)])],
                              on_answer=lambda *step: seen.append(step[:2]))
    assert session.queries == 2 and seen == [(0, 0), (0, 1)]
    assert all(isinstance(answer, Answer) for answer in found[0])
    assert found[0][0].result.draw and not found[0][1].result.draw
    assert found == GoldenSession(SHIPPED).run_batch([(KNIGHTS * 2, [(7, 1), (3, 1)])])


@pytest.mark.parametrize("missing", ["load", "write", "query"])
def test_a_backend_that_leaves_out_a_method_cannot_be_made(missing):
    # The broken variants: each of the three left out. Before the contract was
    # abstract, a backend without query or run_batch recursed forever.
    methods = {name: getattr(ListSession, name) for name in ("__init__", "load", "write", "query")
               if name != missing}
    broken = type(f"Without_{missing}", (Session,), methods)
    with pytest.raises(TypeError, match=missing):
        broken()


def test_every_shipped_backend_is_whole():
    from axon.sim.backends.cxxrtl import CxxrtlSession
    from axon.sim.backends.export import VerilogSession
    from axon.sim.backends.link import DetectorSession
    from axon.sim.backends.netlist import NetlistSession
    from axon.sim.backends.pysim import PysimSession
    for backend in (GoldenSession, PysimSession, CxxrtlSession, NetlistSession, VerilogSession,
                    DetectorSession):
        assert issubclass(backend, Session) and not backend.__abstractmethods__, backend


def test_host_writes_follow_the_detector():
    writes = HostWrites()
    assert writes.starts(3) is Written.NOTHING
    writes.loaded(KNIGHTS)                  # from address 0 up: 3 last
    assert writes.starts(3) is Written.TOP
    assert writes.starts(3) is Written.NOTHING     # a query forgets the write
    writes.wrote(5)
    writes.wrote(2)
    assert writes.starts(5) is Written.ELSEWHERE  # the last write counts
    writes.wrote(5)
    writes.reset()
    assert writes.starts(5) is Written.NOTHING
    writes.loaded([])                        # an empty load writes nothing
    assert writes.starts(0) is Written.NOTHING


def test_written_before_a_batchs_queries():
    # Only a job's first query follows its load; an empty load writes nothing.
    jobs = [(KNIGHTS, [(3, 1), (3, 1)]), (KNIGHTS * 2, [(3, 1), (7, 1)]), ([], [(7, 1)])]
    assert written_before(jobs) == [[Written.TOP, Written.NOTHING],
                                    [Written.ELSEWHERE, Written.NOTHING], [Written.NOTHING]]


def test_a_slid_windows_ply_follows_the_write_of_its_word():
    # A game longer than the move list slides its window a ply at a time:
    # each such load ends with the word of the ply it asks about.
    from axon.sim.model.games import read_games
    game = read_games("1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 *").games[0]

    class Batched(GoldenSession):
        batch_plies = 0         # as a simulation: all in one run_batch

    for session in (GoldenSession(SHIPPED.replace(depth=4)), Batched(SHIPPED.replace(depth=4))):
        plies = [ply for _, found in answer_games([game], session, count_limit=1)
                 for ply in found]
        assert [ply.written for ply in plies] == \
            [Written.ELSEWHERE] + [Written.NOTHING] * 3 + [Written.TOP] * 2


@pytest.mark.quick
def test_the_old_keyword_root_is_taken_with_a_warning():
    # `root` was the name of `root_address` until this release; it stays until 0.5.
    from axon.sim.backends.session import Query
    from axon.sim.model.golden import perpetual
    session = GoldenSession()
    session.load(KNIGHTS * 2)
    with pytest.warns(DeprecationWarning, match="root_address"):
        old = session.query(7, 1, root=3)
    assert old == session.query(7, 1, root_address=3)
    with pytest.warns(DeprecationWarning, match="root_address"):
        assert session.write_and_query([], 7, 1, root=3) == old
    with pytest.warns(DeprecationWarning, match="root_address"):
        query = Query(7, 1, root=3)
    assert query == Query(7, 1, root_address=3)
    with pytest.warns(DeprecationWarning, match="root_address"):
        assert query.root == 3
    with pytest.warns(DeprecationWarning, match="root_address"):
        assert perpetual(KNIGHTS * 2, 7, root=3) == perpetual(KNIGHTS * 2, 7, root_address=3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'roots'"):
        session.query(7, 1, roots=3)
