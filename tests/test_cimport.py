"""The kernels' C API (guandan_core/_kernels.pxd) as another compiled module uses it: a
small Cython module that cimports the kernels is built against the package and its
return codes and records checked against the Python layer (RULES sec. 4 and 5 through
the kernels; the status codes of the .pxd)."""

import random
import subprocess
import sys

import numpy as np
import pytest

from cli_process import PACKAGES
from guandan_core import MOVE_DTYPE, Hand, Move, Rules, classify, legal_moves, moves_array
from guandan_core.moves import MoveError
from guandan_core.hand import to_counts
from reference import RANKS, card_order, is_bomb

Cython = pytest.importorskip("Cython", reason="building a module that cimports the "
                                              "kernels needs Cython (a test extra)")

PROBE = r'''
# cython: language_level=3
from libc.stdlib cimport malloc, free
from guandan_core._kernels cimport (gd_move_t, gd_rules_t, gd_enumerate, gd_classify,
                                    gd_abi_version, gd_card_order, gd_is_bomb,
                                    GD_ABI_VERSION)


def abi():
    return gd_abi_version(), GD_ABI_VERSION


def card_order(int rank, int level):
    return gd_card_order(rank, level)


def is_bomb(const unsigned char[::1] record):
    return gd_is_bomb(<const gd_move_t*> &record[0])


cdef int _call(bint classify, const unsigned char[::1] cards, int level, beat, rules,
               int capacity, gd_move_t* out):
    cdef gd_rules_t r
    cdef gd_rules_t* rp = NULL
    cdef const unsigned char[::1] beat_bytes
    cdef const gd_move_t* bp = NULL
    cdef int n
    if rules is not None:
        r.sf_is_bomb, r.sf_wild_any_suit, r.long_sequences = rules
        rp = &r
    if beat is not None:
        beat_bytes = beat
        bp = <const gd_move_t*> &beat_bytes[0]
    with nogil:
        if classify:
            n = gd_classify(&cards[0], level, rp, out, capacity)
        else:
            n = gd_enumerate(&cards[0], level, bp, rp, out, capacity)
    return n


def call(bint classify, cards, int level, beat, rules, int capacity):
    """(status or count, the records written as bytes); rules None passes NULL."""
    # one record more than the capacity, filled with a canary the kernel must not touch
    cdef gd_move_t* out = <gd_move_t*> malloc((capacity + 1) * sizeof(gd_move_t))
    cdef int n
    try:
        for i in range((capacity + 1) * sizeof(gd_move_t)):
            (<unsigned char*> out)[i] = 0xA5
        n = _call(classify, cards, level, beat, rules, capacity, out)
        canary = (<unsigned char*> &out[capacity])[:sizeof(gd_move_t)]
        return n, (<unsigned char*> out)[:max(n, 0) * sizeof(gd_move_t)], canary
    finally:
        free(out)
'''

SETUP = '''
from setuptools import Extension, setup
from Cython.Build import cythonize
setup(name="probe", ext_modules=cythonize(
    [Extension("gd_probe", ["gd_probe.pyx"])], include_path=[{packages!r}], quiet=True),
    script_args=["build_ext", "--inplace", "-q"])
'''


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    where = tmp_path_factory.mktemp("cimport")
    (where / "gd_probe.pyx").write_text(PROBE)
    (where / "setup.py").write_text(SETUP.format(packages=str(PACKAGES)))
    done = subprocess.run([sys.executable, "setup.py"], cwd=where, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    sys.path.insert(0, str(where))
    try:
        import gd_probe
    finally:
        sys.path.remove(str(where))
    return gd_probe


STANDARD = (1, 1, 0)
LONG = (1, 1, 1)
CANARY = b"\xa5" * MOVE_DTYPE.itemsize


def _records(moves) -> bytes:
    return b"".join(m.record().tobytes() for m in moves)


def test_the_abi_version_is_the_one_compiled_against(probe):
    """The ABI version the compiled core reports at run time (gd_abi_version()) is the one
    the probe module was compiled against (GD_ABI_VERSION of the .pxd): 1 today; a change
    to the C API must change both, and this test with them."""
    run_time, compiled_against = probe.abi()
    assert run_time == compiled_against == 1


def test_sec2_card_order(probe):
    """RULES 2 through gd_card_order: at every level, 2..A in natural order with the level
    rank taken out and put above the ace, then the small joker, then the big joker, as the
    reference orders them (rank arguments 0..12 for 2..A, 13 and 14 for the jokers)."""
    for level in range(13):
        got = [probe.card_order(rank, level) for rank in range(15)]
        assert got == [card_order(label, level) for label in RANKS + "BR"], level
        assert sorted(got) == sorted(set(got)), level        # a strict order
        assert got[level] == 13 and got[13] == 14 and got[14] == 15


def test_sec5_is_bomb(probe):
    """RULES 5 through gd_is_bomb: the straight flush and the bombs (of a rank, of the
    jokers) are bombs, as the reference says; every other type, and a pass, is not."""
    plays = [["Single", "5", ["S5"]], ["Pair", "5", ["S5", "H5"]],
             ["Trips", "5", ["S5", "H5", "C5"]],
             ["ThreeWithTwo", "5", ["S5", "H5", "C5", "S9", "H9"]],
             ["Straight", "3", ["S3", "H4", "S5", "S6", "S7"]],
             ["ThreePair", "3", ["S3", "H3", "S4", "H4", "S5", "H5"]],
             ["TwoTrips", "3", ["S3", "H3", "C3", "S4", "H4", "C4"]],
             ["StraightFlush", "3", ["S3", "S4", "S5", "S6", "S7"]],
             ["StraightFlush", "A", ["HA", "H2", "H3", "H4", "H5"]],
             ["Bomb", "9", ["S9", "H9", "C9", "D9"]],
             ["Bomb", "9", ["S9", "H9", "C9", "D9", "S9", "H9", "C9", "D9"]],
             ["Bomb", "JOKER", ["SB", "SB", "HR", "HR"]]]
    got = [probe.is_bomb(Move.from_platform(t, "T").record().tobytes()) for t in plays]
    assert got == [is_bomb(t) for t in plays], list(zip(plays, got))
    assert sum(got) == 5
    assert not probe.is_bomb(Move.PASS.record().tobytes())


def test_sec4_classify_needs_room_for_the_readings_only(probe):
    """RULES 4 through gd_classify: a buffer of exactly the readings' number gets them all,
    as the Python layer lists them; one record less is GD_EOVERFLOW; nothing is written
    past the capacity. Cards that are no move (none, or more than 10) have no reading."""
    rng = random.Random(4)
    deck = [k for k in range(54) for _ in range(2)]
    sets = [(cards, 0) for cards in ("S2 S2", "S9 C9 D9 H2 H2",
                                     "S3 S3 C3 C3 D3 D3 H3 H3 H2 H2")]
    sets += [(rng.sample(deck, rng.randint(1, 10)), rng.randrange(13)) for _ in range(200)]
    for _ in range(300):         # the cards of a random move of a random hand
        hand = Hand.from_counts(to_counts(rng.sample(deck, rng.randint(5, 27))))
        level = rng.randrange(13)
        move = rng.choice(list(legal_moves(hand, level, rules=Rules.by_name(
            "long-sequences"))))
        record = move.record().view(MOVE_DTYPE)[0]
        sets.append(([int(k) for k in record["cards"][:record["ncards"]]], level))
    readings = 0
    for cards, level in sets:
        for flags, rules in ((STANDARD, Rules.standard()), (LONG, Rules.by_name("long-sequences"))):
            counts = to_counts(cards)
            try:
                want = classify(Hand.from_counts(counts), level, rules)
            except ValueError:
                continue
            n, records, canary = probe.call(True, counts, level, None, flags, len(want))
            assert (n, records, canary) == (len(want), _records(want), CANARY), cards
            readings += n
            if want:
                # (one record less: the overflow, and still nothing past the capacity)
                n, _, canary = probe.call(True, counts, level, None, flags, len(want) - 1)
                assert (n, canary) == (-1, CANARY), cards
    assert readings > 600
    hand = to_counts("S3 S4 S5 S6 S7 S8 S9 ST SJ SQ SK")
    assert probe.call(True, hand, 0, None, STANDARD, 0)[0] == 0          # 11 cards
    assert probe.call(True, np.zeros(54, np.uint8), 0, None, STANDARD, 0)[0] == 0
    hand[6] = 3
    assert probe.call(True, hand, 0, None, STANDARD, 4)[0] == -3         # GD_EBADHAND
    assert probe.call(True, to_counts("S2"), 13, None, STANDARD, 4)[0] == -2  # GD_EBADLEVEL


def test_sec9_null_rules_are_the_standard_rules(probe):
    """RULES 9: rules NULL in gd_enumerate and gd_classify read as the standard rules,
    as rules=None does in Python."""
    hand = to_counts("S3 S4 S5 S6 S7 H7 H7 C9 C9 D9 SB HR")
    want = moves_array(Hand.from_counts(hand), 5, rules=Rules.standard()).tobytes()
    other = moves_array(Hand.from_counts(hand), 5, rules=Rules.by_name("no-sf-bomb")).tobytes()
    assert want != other
    assert probe.call(False, hand, 5, None, None, 4096)[1] == want
    cards = to_counts("S3 S4 S5 S6 H7")
    assert probe.call(True, cards, 5, None, None, 8)[1] == \
        _records(classify(Hand.from_counts(cards), 5, Rules.standard()))


def test_sec5_a_move_to_beat_its_type_cannot_be_is_refused(probe):
    """RULES 5 through gd_enumerate: a move to beat of an unknown type, or with a number of
    cards (or wild cards) its type cannot have, is GD_EBADMOVE; the true move is beaten
    as legal_moves beats it."""
    hand = to_counts("S2 S2 H3 C4 D5 S6 H7 SB HR HR")
    pair = Move.from_platform(["Pair", "9", ["S9", "C9"]], "2")
    n, records, _ = probe.call(False, hand, 0, pair.record().tobytes(), STANDARD, 4096)
    want = list(legal_moves(Hand.from_counts(hand), 0, pair))       # (no pass in either)
    assert n == len(want) == 2 and records == _records(want)
    bad = []
    for field, value in (("ncards", 0), ("ncards", 1), ("ncards", 3), ("ncards", 200),
                         ("type", 11), ("type", 255), ("nwild", 3)):
        record = pair.record().copy().view(MOVE_DTYPE)
        record[field] = value
        bad.append(record.view(np.uint8).tobytes())
    for record in bad:
        assert probe.call(False, hand, 0, record, STANDARD, 4096)[0] == -4
    # a tube of two pairs is a move under long sequences only
    tube = to_counts("S3 C3 S4 C4")
    (short,) = classify(Hand.from_counts(tube), 0, Rules.by_name("long-sequences"))
    beat = short.record().tobytes()
    higher = to_counts("S5 C5 S6 C6 D9")
    assert probe.call(False, higher, 0, beat, STANDARD, 4096)[0] == -4
    want = list(legal_moves(Hand.from_counts(higher), 0, short,
                            Rules.by_name("long-sequences")))
    assert probe.call(False, higher, 0, beat, LONG, 4096)[:2] == (1, _records(want))


def test_sec5_a_move_to_beat_of_type_11_is_refused_with_any_number_of_cards(probe):
    """RULES 5 through gd_enumerate: type 11, one past the last type (GD_NUM_TYPES), is no
    move whatever its number of cards, none included: GD_EBADMOVE (-4), not the bombs that
    beat any move (its card counts are looked up in no row of the table of types)."""
    hand = to_counts("S9 C9 D9 H9 SB SB HR HR")
    for rules in (STANDARD, LONG):
        for ncards in range(11):
            record = np.zeros(1, MOVE_DTYPE)
            record["type"] = 11
            record["ncards"] = ncards
            beat = record.view(np.uint8).tobytes()
            assert probe.call(False, hand, 0, beat, rules, 4096)[0] == -4


def test_sec4_a_joker_bomb_to_beat_has_exactly_four_cards(probe):
    """RULES 4: the joker bomb is exactly SB SB HR HR, so a joker-bomb record to beat with
    three or five cards is GD_EBADMOVE (-4) under either sequence rule; the true one
    is beaten by nothing (RULES 5: it beats everything)."""
    hand = to_counts("S9 H9 C9 D9 S9 H9 C9 D9 SB SB HR")
    joker_bomb = Move.from_platform(["Bomb", "JOKER", ["SB", "SB", "HR", "HR"]], "2")
    for flags in (STANDARD, LONG):
        assert probe.call(False, hand, 0, joker_bomb.record().tobytes(), flags, 4096)[0] == 0
        for ncards in (3, 5):
            record = joker_bomb.record().copy().view(MOVE_DTYPE)
            record["ncards"] = ncards
            assert probe.call(False, hand, 0, record.view(np.uint8).tobytes(), flags,
                              4096)[0] == -4, (flags, ncards)


def test_sec9_any_nonzero_rule_flag_is_on(probe):
    """RULES 9 through gd_rules_t: a flag is on when nonzero (the .pxd), so 2 and 255 read
    as 1 everywhere, beats included: long_sequences 2 once indexed the table of card counts
    by its value, past the table's end, and refused a true joker bomb, tube or plate to
    beat as GD_EBADMOVE."""
    hand = to_counts("S5 C5 S6 C6 S7 C7 S9 H9 C9 D9 SB SB HR HR H2")
    long_rules = Rules.by_name("long-sequences")
    beats = [Move.from_platform(["Bomb", "JOKER", ["SB", "SB", "HR", "HR"]], "2"),
             *classify(Hand.from_counts(to_counts("S3 C3 S4 C4")), 0, long_rules),
             *[m for m in classify(Hand.from_counts(to_counts("S3 C3 D3 S4 C4 D4 S5 C5 D5")),
                                   0, long_rules) if m.type == "TwoTrips"],
             *[m for m in classify(Hand.from_counts(to_counts("S3 S4 S5 S6 S7")), 0)
               if m.type == "StraightFlush"]]
    assert len(beats) == 4
    for beat in [None, *beats]:
        record = None if beat is None else beat.record().tobytes()
        want = probe.call(False, hand, 0, record, LONG, 8192)[:2]
        assert want[0] >= 0
        for flag in (2, 255):
            assert probe.call(False, hand, 0, record, (flag, flag, flag), 8192)[:2] == want
    assert probe.call(False, hand, 0, beats[0].record().tobytes(), (1, 1, 2), 8192)[0] == 0


def test_sec4_a_joker_bomb_or_straight_flush_the_rules_cannot_have_is_refused(probe):
    """RULES 3, 4, 9: a joker-bomb record to beat that claims wild cards (jokers are never
    wild), and a straight flush to beat under rules without straight flushes (no-sf-bomb,
    where classify gives the cards no such reading and legal_moves refuses it), are
    GD_EBADMOVE (-4)."""
    hand = to_counts("S9 H9 C9 D9 S8 S8 SB SB HR HR")
    joker_bomb = Move.from_platform(["Bomb", "JOKER", ["SB", "SB", "HR", "HR"]], "2")
    for nwild in (1, 2):
        record = joker_bomb.record().copy().view(MOVE_DTYPE)
        record["nwild"] = nwild
        assert probe.call(False, hand, 0, record.view(np.uint8).tobytes(), STANDARD,
                          4096)[0] == -4
    (flush,) = [m for m in classify(Hand.from_counts(to_counts("S3 S4 S5 S6 S7")), 0)
                if m.type == "StraightFlush"]
    assert probe.call(False, hand, 0, flush.record().tobytes(), STANDARD, 4096)[0] > 0
    assert probe.call(False, hand, 0, flush.record().tobytes(), (0, 1, 0), 4096)[0] == -4
    with pytest.raises(MoveError, match="not a reading of its cards"):
        legal_moves(Hand.from_counts(hand), 0, flush, Rules.by_name("no-sf-bomb"))
