"""The batch entry points: moves_array_batch (Cython) and the numba layer (guandan_core.batch)."""

import re
import warnings

import numpy as np
import pytest

from guandan_core import _kernels as kernels
from guandan_core import MOVE_DTYPE, CardError, Hand, Move, moves_array, moves_array_batch
from guandan_core.cards import LevelError, parse_cards
from guandan_core.hand import to_counts
from guandan_core.moves import MoveError
from guandan_core.batch import (apply_moves, bomb_features, contains_moves, deal, rank_counts,
                                wild_counts)
from reference import ref_legal_moves


def test_deal_is_a_full_deck_and_deterministic():
    """RULES sec. 1: 108 cards, every kind twice, 27 to each of 4 players."""
    games = deal(seed=5, games=20)
    assert games.shape == (20, 4, 54)
    assert (games.sum(axis=2) == 27).all()
    assert (games.sum(axis=1) == 2).all()
    assert np.array_equal(games, deal(seed=5, games=20))
    assert not np.array_equal(games, deal(seed=6, games=20))


def test_batch_equals_one_by_one():
    hands = deal(seed=1, games=10).reshape(-1, 54)
    levels = np.arange(len(hands)) % 13
    moves, offsets = moves_array_batch(hands, levels)
    assert len(offsets) == len(hands) + 1 and offsets[-1] == len(moves)
    for i in range(len(hands)):
        single = moves_array(hands[i], int(levels[i]))
        assert single.tobytes() == moves[offsets[i]:offsets[i + 1]].tobytes()


def test_batch_with_reused_and_too_small_out_buffer():
    hands = deal(seed=2, games=3).reshape(-1, 54)
    expected, exp_offsets = moves_array_batch(hands, 0)
    big = np.empty(len(expected) + 10, dtype=MOVE_DTYPE)
    moves, offsets = moves_array_batch(hands, 0, out=big)
    assert moves.tobytes() == expected.tobytes() and np.shares_memory(moves, big)
    small = np.empty(5, dtype=MOVE_DTYPE)
    moves, offsets = moves_array_batch(hands, 0, out=small)
    assert moves.tobytes() == expected.tobytes() and np.array_equal(offsets, exp_offsets)
    # an empty out is too small like any other (it took the address of its first record:
    # an IndexError in checked builds, found by a helper's sanitizer run)
    moves, offsets = moves_array_batch(hands, 0, out=np.empty(0, dtype=MOVE_DTYPE))
    assert moves.tobytes() == expected.tobytes() and np.array_equal(offsets, exp_offsets)
    # records hold an int16: an out at an odd address (numpy calls the 1-aligned dtype
    # aligned) would be misaligned access, undefined behaviour in C
    odd = np.zeros(MOVE_DTYPE.itemsize * 100 + 1, np.uint8)[1:].view(MOVE_DTYPE)
    with pytest.raises(ValueError, match="even address"):
        moves_array_batch(hands, 0, out=odd)
    # (the record dtype named MOVE_DTYPE, not spelt out field by field)
    for bad, words in ((np.empty((9, 1), MOVE_DTYPE), "not a 2-d MOVE_DTYPE array$"), ([], "list"),
                       (np.empty(9, np.uint8), "uint8")):
        with pytest.raises(ValueError, match=f"out must be a one-dimensional .*{words}"):
            moves_array_batch(hands, 0, out=bad)
    frozen = np.empty(100, MOVE_DTYPE)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="writable MOVE_DTYPE array, not a read-only one"):
        moves_array_batch(hands, 0, out=frozen)
    strided = np.empty(200, MOVE_DTYPE)[::2]     # (the message says which check failed)
    with pytest.raises(ValueError, match="contiguous MOVE_DTYPE array, not a strided view"):
        moves_array_batch(hands, 0, out=strided)


def test_batch_with_too_small_an_out_goes_on_from_the_hands_that_fit(monkeypatch):
    """When out holds only some hands' moves, the kernel goes on from the first hand that
    did not fit (those before were enumerated again), the new array starting with out's
    records; and when malloc refuses room for 1,024 moves a hand (1.4 million one-card
    hands asked for 24 GiB: a MemoryError, made here by the test), a bounded first array
    serves."""
    import guandan_core.moves as moves_module
    hands = deal(seed=4, games=3).reshape(-1, 54)
    expected, exp_offsets = moves_array_batch(hands, 3)
    real, starts, rooms = kernels.py_enumerate_batch, [], []

    def spy(batch, levels, *rest):
        starts.append(len(hands) - len(batch))
        rooms.append(len(rest[-2]) // MOVE_DTYPE.itemsize)
        return real(batch, levels, *rest)

    monkeypatch.setattr(moves_module._kernels, "py_enumerate_batch", spy)
    fit = int(exp_offsets[5]) + 3                # five hands and part of the sixth
    moves, offsets = moves_array_batch(hands, 3, out=np.empty(fit, MOVE_DTYPE))
    assert moves.tobytes() == expected.tobytes() and np.array_equal(offsets, exp_offsets)
    assert starts == [0, 5]
    ones = np.zeros((100_000, 54), np.uint8)
    ones[:, 7] = 1                               # one card a hand, one move each
    real_new = moves_module._new_records

    def refusing(count):                         # (as malloc refuses 24 GiB here)
        if count > 10 ** 7:
            raise MemoryError(f"Unable to allocate {count} records")
        return real_new(count)

    monkeypatch.setattr(moves_module, "_new_records", refusing)
    starts.clear(), rooms.clear()
    moves, offsets = moves_array_batch(ones, 0)
    assert len(moves) == 100_000 and offsets[-1] == 100_000
    assert rooms == [moves_module._BATCH_FIRST]
    # a bound so small that the array doubles many times: the same records
    monkeypatch.setattr(moves_module, "_BATCH_GUESS", 10 ** 7)
    monkeypatch.setattr(moves_module, "_BATCH_FIRST", 7)
    rooms.clear()
    moves, offsets = moves_array_batch(hands, 3)
    assert moves.tobytes() == expected.tobytes() and np.array_equal(offsets, exp_offsets)
    assert len(rooms) > 10 and moves.flags.owndata


def test_batch_out_overlapping_the_hands_is_refused():
    """Records written over hands not yet read changed the caller's hands and gave wrong
    moves (a helper's finding: hand 1, S2 H2, came back with nine moves and a bomb)."""
    buf = np.zeros(MOVE_DTYPE.itemsize * 200, np.uint8)
    hands = buf[:108].reshape(2, 54)
    hands[:, [0, 1]] = 1                                      # S2 H2 each
    before = hands.copy()
    with pytest.raises(ValueError, match="overlaps hands"):
        moves_array_batch(hands, 1, out=buf[18:18 + 1800].view(MOVE_DTYPE))
    assert np.array_equal(hands, before)
    moves, offsets = moves_array_batch(hands, 1)
    assert offsets.tolist() == [0, 3, 6]                      # S2, H2, the pair


def test_batch_without_out_grows_and_trims_its_result():
    """Without out the result starts with room for 1,024 moves a hand, grows when hands
    hold more, and is trimmed to the moves found: same records as hand by hand."""
    import guandan_core.moves as moves_module
    rich = np.full((3, 54), 2, np.uint8)                      # 108 cards: far over 1,024
    rich[1] = 0                                               # an empty hand in between
    rich[1, :4] = 1
    moves, offsets = moves_array_batch(rich, 5)
    assert offsets[1] > moves_module._BATCH_GUESS * 3 and len(moves) == offsets[-1]
    for i in range(3):
        assert moves[offsets[i]:offsets[i + 1]].tobytes() == \
            moves_array(rich[i], 5).tobytes()
    assert moves.flags.owndata and moves.base is None
    empty, offsets = moves_array_batch(np.zeros((0, 54), np.uint8), 5)
    assert len(empty) == 0 and offsets.tolist() == [0]


def test_kernel_wrappers_refuse_what_would_go_out_of_bounds():
    """The typed wrappers behind moves.py (which validates first) still check lengths and
    record alignment, so a wrong call is a ValueError and not a read past a buffer."""
    out = np.zeros(MOVE_DTYPE.itemsize * 10, np.uint8)
    hand = np.zeros(54, np.uint8)
    record = np.zeros(MOVE_DTYPE.itemsize, np.uint8)
    for call, named in (
            (lambda: kernels.py_enumerate(hand[:10], 0, None, 1, 1, 0, out), "54 card counts"),
            (lambda: kernels.py_enumerate(hand, 0, record[:5], 1, 1, 0, out), "18 bytes"),
            (lambda: kernels.py_classify(hand[:53], 0, 1, 1, 0, out), "54 card counts"),
            (lambda: kernels.py_beats(record[:3], record), "18 bytes"),
            (lambda: kernels.py_beats(record, np.zeros(19, np.uint8)[1:]), "even address"),
            (lambda: kernels.py_enumerate(hand, 0, None, 1, 1, 0, np.zeros(37, np.uint8)[1:]),
             "even address"),
            (lambda: kernels.py_enumerate_batch(np.zeros((2, 54), np.uint8),
                                                np.zeros(1, np.int32), 1, 1, 0, out,
                                                np.zeros(3, np.int64)), "2 levels"),
            (lambda: kernels.py_enumerate_batch(np.zeros((2, 54), np.uint8),
                                                np.zeros(2, np.int32), 1, 1, 0, out,
                                                np.zeros(2, np.int64)), "3 offsets")):
        with pytest.raises(ValueError, match=named):
            call()
    assert kernels.py_classify(hand, 0, 1, 1, 0, np.zeros(0, np.uint8)) == 0   # nothing to write


def test_the_enumeration_wrapper_reads_a_beat_record_it_holds():
    """py_enumerate copies its beat record before the kernel reads it without the GIL: it
    read through a buffer it had already released, so another thread resizing a bytearray
    given as beat freed the memory being read: a use after free that the sanitizer build
    (ctest) reports, in 5 runs of 6 with the old wrapper. Here every call still gives the
    moves that beat a single 5."""
    import sys
    import threading
    import time
    beat = bytearray(Move.parse("Single 5: S5", 0).record().tobytes())
    hand = np.zeros(54, np.uint8)
    hand[:27] = 1
    want = len(moves_array(hand, 0, Move.parse("Single 5: S5", 0)))
    out = np.zeros(4096 * MOVE_DTYPE.itemsize, np.uint8)
    done = threading.Event()

    def resize():
        while not done.is_set():
            try:
                beat.extend(bytes(4096))
                del beat[MOVE_DTYPE.itemsize:]
            except BufferError:         # (the wrapper holds it just then: not resizable)
                pass

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    resizer = threading.Thread(target=resize)
    resizer.start()
    counts = []
    deadline = time.monotonic() + 20
    try:
        while len(counts) < 3000 and time.monotonic() < deadline:
            try:
                counts.append(kernels.py_enumerate(hand, 0, beat, 1, 1, 0, out))
            except (ValueError, BufferError):  # (caught mid-resize: another length)
                time.sleep(0)                   # (the resizer's turn to shorten it)
    finally:
        done.set()
        resizer.join()
        sys.setswitchinterval(interval)
    assert len(counts) >= 100 and set(counts) == {want}


def test_kernel_wrappers_write_no_more_records_than_fit():
    """RULES 4: S5 S6 H7 S8 S9 at level 7 has two readings, a straight and a straight
    flush. Given room for one record (a slice of a larger buffer), py_classify and
    py_enumerate report GD_EOVERFLOW (-1) and write nothing past the slice; with room
    for both, py_classify writes the two readings. A lone wild's single finding no room
    is GD_EOVERFLOW too."""
    cards = to_counts("S5 S6 H7 S8 S9")
    size = MOVE_DTYPE.itemsize
    for call in (lambda out: kernels.py_classify(cards, 5, 1, 1, 0, out),
                 lambda out: kernels.py_enumerate(cards, 5, None, 1, 1, 0, out)):
        buf = np.zeros(size * 40, np.uint8)
        assert call(buf[:size]) == -1
        assert not buf[size:].any()
    buf = np.zeros(size * 3, np.uint8)
    assert kernels.py_classify(cards, 5, 1, 1, 0, buf[:2 * size]) == 2
    assert not buf[2 * size:].any()
    types = buf[:2 * size].view(MOVE_DTYPE)["type"]
    assert sorted(types.tolist()) == [5, 8]            # GD_STRAIGHT, GD_STRAIGHT_FLUSH
    # RULES 3: at level 2 the heart 2 is wild, and alone it is one move, a single
    wild = to_counts("H2")
    buf = np.zeros(size * 2, np.uint8)
    assert kernels.py_enumerate(wild, 0, None, 1, 1, 0, buf[:0]) == -1
    assert kernels.py_enumerate(wild, 0, None, 1, 1, 0, buf[:size]) == 1
    assert not buf[size:].any()


def test_kernel_wrappers_report_an_overflow_wherever_the_room_runs_out():
    """RULES 3, 4: the hands have moves of every kind (the two wilds alone as a pair of the
    level rank, joker pairs, full houses whose pair is two wilds or two jokers, sequences,
    bombs, the joker bomb, straight flushes), as many as the reference finds. Given room
    for any smaller number of records, py_enumerate reports GD_EOVERFLOW (-1) and writes
    nothing past the room, so each kind of move is once the first to find no room (a
    generator that went on after finding none wrote through a null record)."""
    size = MOVE_DTYPE.itemsize
    for text, level in (("H7 H7 SB SB HR HR S8 C8 D8 S9 C9 S5 S6", 5),
                        ("H2 H2 SB SB HR HR S3 C3 D3 S4 S5 S6", 0)):
        cards = to_counts(text)
        total = len(ref_legal_moves(parse_cards(text), level))
        buf = np.zeros(size * (total + 1), np.uint8)
        assert kernels.py_enumerate(cards, level, None, 1, 1, 0, buf[:total * size]) == total
        for room in range(total):
            buf[:] = 0
            assert kernels.py_enumerate(cards, level, None, 1, 1, 0, buf[:room * size]) == -1, \
                (text, room)
            assert not buf[room * size:].any(), (text, room)


def test_kernel_wrappers_take_an_empty_out_at_any_address():
    """An empty out is no records (the kernels write nothing), wherever numpy put it: it is
    not refused for its alignment as a buffer of records would be. S2 is one move and
    finds no room (GD_EOVERFLOW, -1); cards that are no move have no reading."""
    empty = np.zeros(3, np.uint8)[1:][:0]
    assert empty.ctypes.data % 2                             # (an odd address)
    assert kernels.py_enumerate(to_counts("S2"), 0, None, 1, 1, 0, empty) == -1
    assert kernels.py_classify(to_counts("S2 H3"), 0, 1, 1, 0, empty) == 0
    hands = np.zeros((1, 54), np.uint8)
    offsets = np.zeros(2, np.int64)
    assert kernels.py_enumerate_batch(hands, np.zeros(1, np.int32), 1, 1, 0, empty, offsets) == 1


def test_kernel_batch_wrapper_writes_every_offset():
    """The batch wrapper's docstring: ``offsets[i]:offsets[i+1]`` are hand i's moves, so it
    writes every offset itself, the first (0) included, whatever the array held before;
    the moves are those of moves_array one hand at a time."""
    hands = deal(seed=3, games=1).reshape(-1, 54)[:2]
    levels = np.array([0, 7], np.int32)
    one = [moves_array(Hand.from_counts(h), int(lv)) for h, lv in zip(hands, levels)]
    out = np.zeros(sum(map(len, one)) + 5, MOVE_DTYPE)
    offsets = np.full(3, -7, np.int64)
    assert kernels.py_enumerate_batch(hands, levels, 1, 1, 0, out.view(np.uint8), offsets) == 2
    assert offsets.tolist() == [0, len(one[0]), len(one[0]) + len(one[1])]
    assert out[:offsets[2]].tobytes() == b"".join(m.tobytes() for m in one)


def test_kernel_batch_wrapper_ends_at_a_bad_hand_with_its_status():
    """The batch wrapper's docstring: a bad hand ends the batch with its status (< 0), a
    card three times GD_EBADHAND (-3), a level out of range GD_EBADLEVEL (-2), even when
    good hands follow; nothing is written for them, in out or before it (the wrapper
    went on from a negative record count and wrote the next hand's moves ahead of out)."""
    size = MOVE_DTYPE.itemsize
    good = to_counts("S3 S4 S5 S6 S7 H9 H9 C9 SB")
    bad = good.copy()
    bad[0] = 3
    for hands, levels, status in (([bad, good, good], [0, 0, 0], -3),
                                  ([good, good], [13, 0], -2)):
        buf = np.zeros(size * 100, np.uint8)
        offsets = np.zeros(len(hands) + 1, np.int64)
        assert kernels.py_enumerate_batch(np.array(hands), np.array(levels, np.int32), 1, 1, 0,
                                          buf[50 * size:], offsets) == status
        assert not buf.any()


def test_batch_takes_hands_in_any_memory_layout():
    """API (moves_array_batch): hands are an (N, 54) array of counts, whatever its memory
    layout: a strided view or a Fortran-ordered array gives each hand's own moves, as
    moves_array gives them one hand at a time."""
    hands = deal(seed=5, games=2).reshape(-1, 54)
    for view in (hands[::2], np.asfortranarray(hands), np.asfortranarray(hands)[1::3]):
        assert not view.flags.c_contiguous
        moves, offsets = moves_array_batch(view, 3)
        assert len(offsets) == len(view) + 1
        for i, row in enumerate(view):
            one = moves_array(Hand.from_counts(np.array(row)), 3)
            assert moves[offsets[i]:offsets[i + 1]].tobytes() == one.tobytes()


def test_batch_rejects_bad_input():
    bad = np.zeros((2, 54), np.uint8)
    bad[1, 7] = 3
    with pytest.raises(CardError, match="row 1"):
        moves_array_batch(bad, 0)
    with pytest.raises(ValueError, match="levels"):
        moves_array_batch(np.zeros((1, 54), np.uint8), 13)
    with pytest.raises(CardError, match=r"\(3, 5\)"):
        moves_array_batch(np.zeros((3, 5), np.uint8), 0)


def test_numba_layer_refuses_moves_that_are_not_a_record_array():
    """API: the moves of apply_moves / contains_moves are a MOVE_DTYPE array of one record a
    hand; a list of records, or an array of another shape or dtype, is refused by name."""
    hands, move = _one_hand_and_move()
    for kernel in (apply_moves, contains_moves):
        for bad, words in ((move.tolist(), "not a list"), (tuple(move), "not a tuple"),
                           (np.concatenate([move, move]), r"not MOVE_DTYPE \(2,\)"),
                           (move.view(np.uint8), "not uint8")):
            with pytest.raises(ValueError, match=f"MOVE_DTYPE array of 1 records, {words}"):
                kernel(hands, bad)
        assert kernel(hands, move).shape[0] == 1


def _one_hand_and_move():
    hand = Hand("S5 S6 H7 S8 S9 D9")
    return hand.counts[None].copy(), moves_array(hand, 5)[:1].copy()


def _with(record, field, value):
    bad = record.copy()
    if field == "cards":
        bad["cards"][0, 0] = value
    else:
        bad[field][0] = value
    return bad


@pytest.mark.parametrize("field,value,words", [("cards", 200, "card kind 200"),
                                               ("cards", 54, "card kind 54"),
                                               ("ncards", 255, "255 cards"),
                                               ("ncards", 11, "11 cards")])
def test_numba_kernels_refuse_move_records_they_would_index_out_of_bounds(field, value,
                                                                          words):
    """RULES sec. 1: kinds are 0..53 and a move holds at most 10 cards; a record that says
    otherwise is refused before the kernel (which has no bounds checks) reads or writes
    outside its arrays."""
    hands, move = _one_hand_and_move()
    for kernel in (apply_moves, contains_moves):
        with pytest.raises(MoveError, match=f"row 0 .*{words}|row 0 has {words}"):
            kernel(hands, _with(move, field, value))


def test_numba_kernels_read_only_the_cards_a_move_uses():
    """A record's card slots past its ``ncards`` are not its cards: what they hold is
    neither refused nor named (row 0's 200 there), the first used slot out of range is
    (row 1's kind 99)."""
    hands, move = _one_hand_and_move()
    assert move["ncards"][0] < 10
    padded = move.copy()
    padded["cards"][0, -1] = 200
    assert np.array_equal(apply_moves(hands, padded), apply_moves(hands, move))
    two = np.concatenate([padded, _with(move, "cards", 99)])
    for kernel in (apply_moves, contains_moves):
        with pytest.raises(MoveError, match="row 1 holds card kind 99"):
            kernel(np.concatenate([hands, hands]), two)


@pytest.mark.parametrize("values,words", [([256], "S2 256 times"), ([3], "S2 3 times"),
                                          ([-1], "S2 -1 times"), ([0.5], "S2 0.5 times"),
                                          ([np.nan], "S2 nan times"), (None, "bool"),
                                          ([np.inf], "S2 inf times"),
                                          ([1e300], r"S2 1e\+300 times"),
                                          ([2**70], f"S2 {2**70} times")])
def test_numba_layer_refuses_impossible_counts(values, words):
    """RULES sec. 1: a count is 0, 1 or 2; 256 used to wrap to 0, 3 was used as given.
    An int too large for int64 makes an object array, checked item by item; inf raised
    numpy's RuntimeWarning first (an error under -W error)."""
    hands = np.ones((1, 54), bool) if values is None else np.array([values + [0] * 53])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for call in (rank_counts, lambda h: wild_counts(h, 5), lambda h: bomb_features(h, 5),
                     lambda h: moves_array_batch(h, 5),
                     lambda h: apply_moves(h, np.zeros(1, MOVE_DTYPE)),
                     lambda h: contains_moves(h, np.zeros(1, MOVE_DTYPE))):
            with pytest.raises(CardError, match=words):
                call(hands)


def test_numba_layer_names_counts_that_are_no_numbers_and_ragged_rows():
    """RULES sec. 1: an object array's entry that is no whole number is named as that (it
    was said to be a card held too often), and rows of different lengths are refused as
    the batch's shape, not by numpy alone."""
    for entry in (True, "1", 1.5):
        hands = np.array([[entry] + [0] * 53], dtype=object)
        with pytest.raises(CardError, match=re.escape(f"S2 {entry!r} times (counts are "
                                                      "whole numbers)")):
            rank_counts(hands)
    # a whole float: not "no whole number" (a float array's 1.0 is taken), but an int is
    # what an object array holds
    for entry in (1.0, np.float32(3.0)):
        hands = np.array([[entry] + [0] * 53], dtype=object)
        with pytest.raises(CardError, match=re.escape(f"S2 {float(entry)!r} times (an "
                                                      "object array's counts are ints)")):
            rank_counts(hands)
    # numpy's True among listed counts is refused as Python's is (it was read as a 1)
    for row in ([np.True_] + [0] * 53, [True] + [0] * 53, [np.array(True)] + [0] * 53):
        with pytest.raises(CardError, match="hands: True/False is not a card count"):
            rank_counts([row])
        with pytest.raises(CardError, match="counts: True/False is not a card count"):
            Hand.from_counts(row)
    # and a row that is a bool array among int rows (alone its dtype is refused; with an
    # int row beside it, numpy made its Trues 1s)
    bools = np.zeros(54, dtype=bool)
    bools[:5] = True
    for call in (rank_counts, lambda hands: moves_array_batch(hands, 0)):
        with pytest.raises(CardError, match="hands: True/False is not a card count"):
            call([[0] * 54, bools])
        with pytest.raises(CardError, match="hands: True/False is not a card count"):
            call([np.zeros(54, dtype=np.int64), bools])
    # what is no array at all is quoted (it was "must have shape (N, 54), not ()")
    for bad in (None, "S3 S4 H5", {"S3": 1}, 7, {1, 2}):
        with pytest.raises(CardError, match=re.escape(f"hands must be an (N, 54) array of "
                                                      f"card counts, not {bad!r}")):
            moves_array_batch(bad, 0)
    with pytest.raises(CardError, match=re.escape("S2 3 times (each card exists twice)")):
        rank_counts(np.array([[3] + [0] * 53], dtype=object))
    with pytest.raises(CardError, match=re.escape("hands must be an (N, 54) array")):
        rank_counts([[0] * 54, [0] * 53])


def test_batch_levels_read_like_parse_level():
    """A level as text means that rank ("7" is the rank 7, index 5), as everywhere else;
    other values are named."""
    hands = deal(seed=8, games=2).reshape(-1, 54)
    assert wild_counts(hands, "7").tolist() == wild_counts(hands, 5).tolist()
    assert wild_counts(hands, ["7", "A", 0, np.int64(3)] * 2).tolist() == \
        wild_counts(hands, [5, 12, 0, 3] * 2).tolist()
    moves, _ = moves_array_batch(hands, "7")
    assert moves.tobytes() == moves_array_batch(hands, 5)[0].tobytes()
    for bad, words in ((13, "13"), (-1, "-1"), (5.9, "5.9"), (np.uint64(2**64 - 1), "2**64")
                       , ([1, 2], "shape (2,)"), ("Z", "'Z'"), (None, "None")):
        words = str(2**64 - 1) if words == "2**64" else words
        for call in (wild_counts, bomb_features, moves_array_batch):
            with pytest.raises(LevelError, match=re.escape(words)):
                call(hands, bad)
    # level text is named as parse_level names it, after what was given (all the levels)
    for bad in ("Z", ["7"] * (len(hands) - 1) + ["Z"]):
        with pytest.raises(LevelError, match=re.escape(
                "levels: level must be a rank from 2 to A, not 'Z'")):
            moves_array_batch(hands, bad)
    # one level per hand: the first that is no rank index is named, not the first level
    levels = np.array([5, 0, 13, -1, 12, 3, 4, 7])
    assert len(levels) == len(hands)
    for call in (wild_counts, bomb_features, moves_array_batch):
        with pytest.raises(LevelError, match=re.escape("levels: 13 is not a level")):
            call(hands, levels)


def test_deal_seeds_and_game_counts_are_checked():
    """Seeds 0..2**64-1 (the generator's whole state; numba's took 32 bits, so 2**32 once
    dealt what 0 deals); seeds and counts that are not whole numbers are named, and so
    are games that no memory holds."""
    assert deal(2**64 - 1).shape == (1, 4, 54)
    assert len({deal(seed).tobytes() for seed in (0, 1, 2**32, 2**63, 2**64 - 1)}) == 5
    assert deal(0, games=0).shape == (0, 4, 54)
    for seed, games, words in ((2**64, 1, str(2**64)), (-1, 1, "-1"), (1.7, 1, "1.7"),
                               ("1", 1, "'1'"), (1, 2.5, "2.5"), (1, True, "True"),
                               (1, "2", "'2'"), (1, -1, "-1"), (1, 2**32, "4294967296"),
                               (1, 2**63, str(2**63))):
        with pytest.raises(ValueError, match=re.escape(words)):
            deal(seed, games)
    with pytest.raises(MemoryError, match="deal: 4,294,967,295 games need 927,712,935,720 "
                                          "bytes"):
        deal(1, 2**32 - 1)


def test_deal_is_uniform():
    """RULES sec. 1 (a shuffled deck dealt 27 to each player): how many copies of a kind a
    seat gets, over 20,000 deals, is as likely as a fair deal makes it (none 81 * 80 /
    (108 * 107), both 27 * 26 / (108 * 107)), within 5 standard deviations."""
    counts = deal(seed=12, games=20_000)
    n = counts.size
    for copies, chance in ((0, 81 * 80 / (108 * 107)), (2, 27 * 26 / (108 * 107))):
        seen = np.count_nonzero(counts == copies) / n
        assert abs(seen - chance) < 5 * (chance * (1 - chance) / n) ** 0.5, (copies, seen)
    # every seat alike, every kind alike: half a card on average (a standard deviation of
    # 0.0043 for each of the 216 means)
    assert np.abs(counts.mean(axis=0) - 0.5).max() < 0.03
    assert len({game.tobytes() for game in counts}) == len(counts)


def test_deal_leaves_numbas_random_stream_alone():
    """deal() has a generator of its own: a program's own numba random stream in the same
    thread goes on as if deal() had not been called (it used to seed numba's)."""
    import numba

    @numba.njit
    def draw(seed):
        if seed >= 0:
            np.random.seed(seed)
        return np.random.random()

    draw(11)
    second = draw(-1)
    draw(11)
    deal(3, games=2)
    assert draw(-1) == second


def test_rank_counts_and_wilds_match_plain_numpy():
    hands = deal(seed=3, games=5).reshape(-1, 54)
    expected = np.concatenate([hands[:, :52].reshape(-1, 13, 4).sum(axis=2), hands[:, 52:]], axis=1)
    assert np.array_equal(rank_counts(hands), expected)
    levels = np.arange(len(hands)) % 13
    assert wild_counts(hands, levels).tolist() == [int(h[l * 4 + 1]) for h, l in zip(hands, levels)]


def test_bomb_features_plain():
    """RULES sec. 3-4: wilds complete same-rank bombs; the joker bomb is SB SB HR HR."""
    hands = np.stack([Hand("S9 C9 D9 H7 H7 SB SB HR HR").counts, Hand("S9 C9 D9 H7 D3").counts,
                      Hand("S9 H7 H7 C2").counts])
    feats = bomb_features(hands, 5)  # level 7: H7 is wild
    assert feats.tolist() == [[1, 5, 1], [1, 4, 0], [0, 0, 0]]


def test_numba_kernels_do_not_read_the_slot_just_past_a_moves_cards():
    """The first unused card slot (index ``ncards``) is no card of the move either."""
    hands, move = _one_hand_and_move()
    padded = move.copy()
    padded["cards"][0, move["ncards"][0]] = 200
    assert np.array_equal(apply_moves(hands, padded), apply_moves(hands, move))
    assert contains_moves(hands, padded).tolist() == [True]


def test_numba_kernels_get_the_records_they_were_checked_on(monkeypatch):
    """The kernels run without the GIL and trust the card kinds and counts they are given
    as indices: they get private copies of what was checked, so a caller's thread that
    changes its records meanwhile cannot make them write past a hand (a review: 36 wrong
    results in 20 s of flipping a kind between 5 and 250 during apply_moves)."""
    from guandan_core import batch
    hands, move = _one_hand_and_move()
    given = []
    kernel = batch._apply_kernel

    def spy(hands_arg, ncards, cards, out):
        given.append((ncards, cards))
        return kernel(hands_arg, ncards, cards, out)

    monkeypatch.setattr(batch, "_apply_kernel", spy)
    for call in (apply_moves, contains_moves):
        call(hands, move)
        ncards, cards = given.pop()
        assert not np.shares_memory(ncards, move) and not np.shares_memory(cards, move)
        assert ncards.tolist() == move["ncards"].tolist()
        assert cards.tolist() == move["cards"].tolist()


def test_numba_kernels_name_the_first_row_with_too_many_cards():
    """The first bad row is named, whatever is wrong with it and with the rows after it."""
    hands, move = _one_hand_and_move()
    rows = np.concatenate([move, _with(move, "ncards", 11), _with(move, "ncards", 12)])
    for kernel in (apply_moves, contains_moves):
        with pytest.raises(MoveError, match=re.escape("move of row 1 has 11 cards (at most 10)")):
            kernel(np.concatenate([hands] * 3), rows)
        mixed = np.concatenate([move, _with(move, "cards", 60), _with(move, "ncards", 11)])
        with pytest.raises(MoveError, match=re.escape("move of row 1 holds card kind 60 ")):
            kernel(np.concatenate([hands] * 3), mixed)


def test_deal_names_the_range_of_seeds_and_game_counts():
    """docs/API.md: seed 0 to 2**64 - 1 and games 0 to 2**32 - 1, and the message says so."""
    with pytest.raises(ValueError, match=re.escape(
            "seed must be a whole number 0..18446744073709551615, not -1")):
        deal(-1)
    with pytest.raises(ValueError, match=re.escape(
            "games must be a whole number 0..4294967295, not -1")):
        deal(1, games=-1)


def test_bomb_features_two_naturals_and_two_wilds_are_a_bomb():
    """RULES sec. 3: both wilds stand for 9s, S9 C9 H7 H7 at level 7 is a bomb of four."""
    assert bomb_features(Hand("S9 C9 H7 H7").counts[None], "7").tolist() == [[1, 4, 0]]


def test_bomb_features_count_aces():
    assert bomb_features(Hand("SA HA CA DA").counts[None], "2").tolist() == [[1, 4, 0]]


def test_bomb_features_largest_bombs_are_ten_cards_and_eight_of_the_level():
    """RULES sec. 4: a bomb has up to 10 cards (eight 9s and both wilds), at most 8 of L."""
    tens = Hand("S9 S9 H9 H9 C9 C9 D9 D9 H7 H7").counts
    level = Hand("S7 S7 C7 C7 D7 D7 H7 H7").counts
    assert bomb_features(np.stack([tens, level]), "7").tolist() == [[1, 10, 0], [1, 8, 0]]


def test_bomb_features_joker_bomb_needs_all_four_jokers():
    """RULES sec. 4: the joker bomb is exactly SB SB HR HR; three jokers are none."""
    hands = np.stack([Hand("SB SB HR").counts, Hand("SB HR HR").counts])
    assert bomb_features(hands, "2").tolist() == [[0, 0, 0], [0, 0, 0]]


def test_a_ten_card_bomb_is_applied():
    """A move holds at most 10 cards: 10 is still a move (the largest bomb)."""
    hand = Hand("S9 S9 H9 H9 C9 C9 D9 D9 H7 H7")
    records = moves_array(hand, 5)
    ten = records[records["ncards"] == 10][:1]
    assert len(ten) == 1
    assert contains_moves(hand.counts[None], ten).tolist() == [True]
    assert apply_moves(hand.counts[None], ten).tolist() == [[0] * 54]


def test_apply_moves_names_the_cards_of_a_move_not_in_its_hand():
    hand = Hand("S9 D9")
    records = moves_array(hand, 0)
    pair = records[records["ncards"] == 2][:1]
    with pytest.raises(MoveError, match=re.escape("move of row 0 (S9 D9) is not in its hand")):
        apply_moves(np.zeros((1, 54), np.uint8), pair)


def test_apply_and_contains_moves():
    hands = deal(seed=4, games=1).reshape(-1, 54)
    moves = np.stack([moves_array(h, 0)[-1] for h in hands])
    after = apply_moves(hands, moves)
    for i in range(4):
        assert after[i].sum() == 27 - moves[i]["ncards"]
        assert Hand.from_counts(after[i]) + Hand(list(moves[i]["cards"][:moves[i]["ncards"]])) \
            == Hand.from_counts(hands[i])
    assert contains_moves(hands, moves).all()
    empty = np.zeros_like(hands)
    assert not contains_moves(empty, moves).any()
    with pytest.raises(ValueError, match="row 0"):
        apply_moves(empty, moves)
    # any integer counts in, uint8 out (as documented), Hand objects refused by the
    # batch's shape; and an empty batch is no error
    wide = apply_moves(hands.astype(np.int64), moves)
    assert wide.dtype == np.uint8 and np.array_equal(wide, after)
    with pytest.raises(CardError, match=re.escape("shape (N, 54), not (4,)")):
        apply_moves([Hand.from_counts(h) for h in hands], moves)
    none = np.zeros((0, 54), np.uint8)
    assert apply_moves(none, moves[:0]).shape == (0, 54)
    assert contains_moves(none, moves[:0]).shape == (0,)


def test_long_sequences_stop_at_ten_cards():
    """RULES sec. 9 long-sequences, with the engine's documented limit (docs/API.md):
    a move holds at most 10 cards, so a 12-card plate is not a play, a 10-card tube is."""
    from guandan_core import Rules, classify
    long_rules = Rules(long_sequences=True)
    assert classify("S3 H3 C3 S4 H4 C4 S5 H5 C5 S6 H6 C6", "9", long_rules) == []
    tube = classify("S3 H3 S4 H4 S5 H5 S6 H6 S7 H7", "9", long_rules)
    assert [(m.type, m.rank, len(m)) for m in tube] == [("ThreePair", "3", 10)]


def test_enumeration_from_two_threads_at_once():
    """The kernel runs without the GIL: each thread must enumerate into its own buffer
    (Position and moves_array both use the per-thread scratch)."""
    from concurrency import run_at_once
    from guandan_core.position import Position
    games = deal(seed=9, games=4)
    positions = [Position("2", [Hand.from_counts(h) for h in g]) for g in games]
    expected = [p.moves_array().tobytes() for p in positions]
    failures = []

    def work(k):
        for _ in range(300):
            for i in (k, k + 2):
                if positions[i].moves_array().tobytes() != expected[i]:
                    failures.append(i)

    run_at_once(work)
    assert failures == []
