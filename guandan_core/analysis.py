"""Hand analysis: the best split of a hand, its bombs, and which plays are control.

>>> res = best_split("S9 C9 D9 H7 H7 SB SB", "7")
>>> res.plays, [str(m) for m in res.split]
(2, ['Pair B: SB SB', 'Bomb 9: H7 H7 S9 C9 D9'])
>>> [str(m) for m in res.runners_up[0]]
['Pair 7: H7 H7', 'ThreeWithTwo 9: S9 C9 D9 SB SB']
>>> [(str(b.move), b.shares) for b in list_bombs("S9 C9 D9 H7 SB SB HR HR", "7")]
[('Bomb JOKER: SB SB HR HR', []), ('Bomb 9: H7 S9 C9 D9', [])]

Best split
----------
A split is a partition of ALL the cards of a hand into legal combinations; its size is
the number of plays needed to go out if nobody beats anything. The best split has the
fewest plays; ties are broken by

1. the bombs: more bombs first, then the bomb powers sorted biggest first compared
   lexicographically (bigger first);
2. the singles: fewer singles first, then the higher lowest single (card order at the
   level, RULES sec. 2), then the higher second lowest, and so on.

Remaining ties are broken deterministically, the same whatever ``runners_up`` asks for:
each split's parts are put in order by type (the engine's order: single, pair, triple,
...), rank, strength, then how many cards of each rank and wild cards they hold (straight
flushes set apart last), and two splits are compared part by part from the first. The runner-up
splits are the next best splits of the same size in the same order, distinct up to the
suits of natural cards (as multisets of each part's type, rank, natural cards' ranks and
wild cards).

How it is computed (exact):

* Suits matter only for straight flushes. So every straight flush set is chosen first at
  card level (every set of straight flushes the hand can hold at once, usually a handful),
  and the rest of the hand is solved at *rank level*: a state is the number of natural
  cards per rank (13 ranks, small and big jokers) plus the number of wilds, packed into
  one integer with 5 bits per field.
* The rank-level combinations are the compiled enumerator's moves of the whole hand (with
  straight flushes switched off, so five suited cards read as a straight), reduced to
  (type, rank, naturals per rank, wilds). A combination is legal in a sub-hand exactly
  when its counts fit, so they are computed once and tested by one integer subtraction
  (a guard bit per field catches a borrow).
* Search: depth first over the state, always covering the lowest remaining card first
  (every split must cover it: only combinations whose lowest card is that card are
  tried), memoized on the state. For the hand without straight flushes this is an exact
  dynamic programme over every reachable state, no heuristic pruning. A straight flush is
  also a straight at rank level, so setting straight flushes apart never saves a play
  (under the exact-length sequence rules); for each set of them a bounded search (exact
  value if it is at most the best count so far, else a lower bound; memoized) finds out
  whether it costs nothing. A second pass walks only the optimal choices and keeps, per
  state, the best few completions under the tie-break order (the order is monotone:
  adding the same play to two completions keeps their order), which gives the best split
  and the runners-up.
* The rank-level split is turned into cards by giving each combination real cards of
  its ranks. The five-card straights of natural cards get theirs first, chosen together
  by a small depth-first search so that none is five cards of one suit (which would be a
  straight flush only) where the hand allows it; if unavoidable the part is read as the
  straight flush. The other parts' suits do not matter.
  So runner-ups differ in structure: splits that only swap equal-rank cards of different
  suits between parts are not listed as different.

Bombs
-----
:func:`list_bombs` lists the distinct bombs of a hand, biggest first: one per rank and
size for same-rank bombs (4 up to all the cards of the rank plus the wilds), one per
sequence and suit for straight flushes, and the joker bomb. The representative uses the
fewest wild cards (then the lowest cards). Two bombs *share cards* when the hand cannot
play both (together they need more of some card than the hand holds).

Limitations
-----------
* Hands of at most 27 cards (a Guandan hand); the search is exact but its time grows with
  the number of reachable rank-level states (a few ms to about 0.1 s for 27 cards).
* Under the ``long-sequences`` rules, sequences of more than 10 cards do not exist for
  the core (its move record holds at most 10 cards, docs/API.md), so neither here.
* Runner-ups that differ only by which suit of a rank goes to which part are one split.

Control
-------
:func:`control` says, for each play, whether some combination of the unseen cards (the
108-card deck minus the hand minus the cards already played) beats it, and shows one
smallest such combination: for a play that is not a bomb, the lowest beating play of the
same type when there is one, else the smallest bomb; for a bomb, the smallest bomb that
beats it, of whatever kind (a straight flush over five aces); among bombs of the same
power, the fewest cards and wilds. A play nothing unseen can beat is *control*.
A beater of the play's own type is looked for among a few natural cards of each unseen
rank (as many as such a play uses, of as many suits as there are), every wild card and
joker: its suits are the only thing that changes, since they matter only for what five
cards of one suit in a row are. The whole pool is enumerated only for bombs.
"""

from __future__ import annotations

from bisect import insort
from dataclasses import dataclass, field
from collections.abc import Iterable

import numpy as np

from .cards import NUM_KINDS, RANKS, CardError, format_card, is_whole, parse_level, wild_kind
from .hand import MAX_HAND, Hand, to_counts
from .moves import (PAIR, SINGLE, STRAIGHT, STRAIGHT_FLUSH, THREE_PAIR, THREE_WITH_TWO,
                    TRIPS, TWO_TRIPS, Move, MoveError, checked_reading, classify, moves_array)
from .rules import Rules
from .usertext import quoted

__all__ = ["SplitResult", "Bomb", "ControlInfo", "best_split", "list_bombs", "control",
           "analyze", "split_score", "unseen_pool", "MAX_HAND"]

DECK = np.full(NUM_KINDS, 2, dtype=np.uint8)   # 108 cards: every kind twice

_NF = 16                 # fields: ranks 0..12, SB, HR, wilds
_WILD_FIELD = 15
_FB = 5                  # bits per field in the packed rank-level state
_GUARD = sum(1 << (_FB * f + 4) for f in range(_NF))
_CB = 3                  # bits per card kind in the packed card-level counts
_CGUARD = sum(1 << (_CB * k + 2) for k in range(NUM_KINDS))
_NO_SINGLE = -1000       # "lowest single" term of split_score with no single
# the search's score: (-bombs, bomb powers negated ascending, singles, single keys negated
# descending). The whole of the singles, not only the lowest: adding the same play to
# two completions must keep them in order, or the few kept per state miss the best
_EMPTY_SCORE = (0, (), 0, ())
_SF_ID0 = 1 << 20        # ids of straight flush parts, above every rank-level id


# --------------------------------------------------------------------------- helpers

def _level(level) -> int:
    return level if type(level) is int and 0 <= level <= 12 else parse_level(level)


def _hand(hand) -> Hand:
    return hand if isinstance(hand, Hand) else Hand(hand)


def _fields_of_kinds(kinds: np.ndarray, lvl: int) -> np.ndarray:
    """Rank-level field of card kinds: rank, 13 small joker, 14 big joker, 15 wild."""
    f = np.where(kinds >= 52, kinds - 39, kinds >> 2)
    return np.where(kinds == wild_kind(lvl), _WILD_FIELD, f)


def _pack(vec) -> int:
    s = 0
    for i, v in enumerate(vec):
        if v:
            s |= int(v) << (_FB * i)
    return s


def _pack_cards(counts) -> int:
    s = 0
    for k in np.flatnonzero(counts):
        s |= int(counts[k]) << (_CB * int(k))
    return s


def _cards_in(packed: int) -> int:
    """The number of cards of a packed rank-level vector."""
    return sum((packed >> (_FB * f)) & 31 for f in range(_NF))


def _hand_fields(counts: np.ndarray, lvl: int) -> np.ndarray:
    vec = np.zeros(_NF, dtype=np.int64)
    kinds = np.repeat(np.arange(NUM_KINDS), counts)
    np.add.at(vec, _fields_of_kinds(kinds, lvl), 1)
    return vec


def _add_to_score(score, bomb_power, single_key):
    """The score of a split with one more play (bomb power / single key or None)."""
    if bomb_power is not None:
        bombs = score[1] + (-bomb_power,)
        return (score[0] - 1, tuple(sorted(bombs)), score[2], score[3])
    if single_key is not None:
        singles = tuple(sorted(score[3] + (-single_key,), reverse=True))
        return (score[0], score[1], score[2] + 1, singles)
    return score


def _full_score(moves) -> tuple:
    # (plays,) + the search's score: split_score's order, its ties broken by the next
    # lowest singles
    score = _EMPTY_SCORE
    for m in moves:
        score = _add_to_score(score, m.key if m.is_bomb else None,
                              m.key if m.type_id == SINGLE else None)
    return (len(moves),) + score


def split_score(moves: Iterable[Move]) -> tuple:
    """Sort key of a split (smaller is better): plays, then bombs, then low singles.

    ``(plays, -number_of_bombs, bomb powers negated ascending, number_of_singles,
    -lowest single key)``; the last term is -1000 when there is no single.
    """
    score = _full_score(_checked_split(moves))
    return score[:4] + (score[4][0] if score[4] else _NO_SINGLE,)


def _checked_split(split) -> list:
    """``split`` as a list of Moves, none of them the pass, else a MoveError (a TypeError
    for no list at all) naming what it holds."""
    if isinstance(split, SplitResult):
        return list(split.split)
    if isinstance(split, (str, bytes, Move)) or not isinstance(split, Iterable):
        raise TypeError(f"a split is a list of Moves, not {quoted(split)}")
    split = list(split)
    for play in split:
        if not isinstance(play, Move):
            raise MoveError(f"a split is a list of Moves, not one holding {quoted(play)}")
        if play.is_pass:        # (split_score counted it as a play)
            raise MoveError("a split holds plays, not the pass")
    return split


def _part_order(m: Move):
    return (m.is_bomb, m.key if m.is_bomb else 0, m.type_id, m.key, m.kinds)


def _split_id(moves, wild: int) -> tuple:
    """A split up to the suits of its natural cards: each part's type, key, natural cards'
    ranks (a joker is its own) and wild cards. Two straight flush sets of the same ranks in
    two suits gave two splits that differ only in which suit of a rank went where."""
    return tuple(sorted((m.type_id, m.key, tuple(sorted(k if k >= 52 else k >> 2
                                                         for k in m.kinds if k != wild)),
                         m.kinds.count(wild)) for m in moves))


# --------------------------------------------------------------------------- results

@dataclass
class SplitResult:
    """The best split of a hand (``split``, a list of Moves), its size and runners-up."""

    split: list
    plays: int
    runners_up: list = field(default_factory=list)
    level: int = 0
    rules: Rules = field(default_factory=Rules.standard)

    @property
    def score(self) -> tuple:
        return split_score(self.split)

    def to_platform(self) -> list:
        return [m.to_platform() for m in self.split]

    def __iter__(self):
        return iter(self.split)

    def __len__(self) -> int:
        return len(self.split)


@dataclass
class Bomb:
    """One distinct bomb of a hand and the indices of the listed bombs it shares cards with."""

    move: Move
    shares: list


@dataclass
class ControlInfo:
    """Whether the unseen cards can beat a play, and a smallest play that does."""

    play: Move
    beatable: bool
    by: Move | None
    only_bombs: bool

    def to_json(self) -> dict:
        return {"play": self.play.to_platform(), "beatable": self.beatable,
                "by": self.by.to_platform() if self.by is not None else None,
                "only_bombs": self.only_bombs}


# --------------------------------------------------------------------------- the solver

class _Solver:
    """Exact best split of one hand (see the module docstring)."""

    def __init__(self, hand: Hand, lvl: int, rules: Rules, keep: int):
        self.hand = hand
        self.lvl = lvl
        self.rules = rules
        self.keep = keep
        self.counts = hand.counts
        self._build_rank_moves()
        self._build_straight_flushes()
        self.exact = {0: 0}       # state -> fewest plays
        self.lower = {}           # state -> a lower bound of the fewest plays (bounded search)
        self.top = {0: [(_EMPTY_SCORE, ())]}
        self.relabelled = False   # a part had to be read otherwise than planned

    # -- tables
    def _build_rank_moves(self):
        lvl = self.lvl
        arr = moves_array(self.hand, lvl, rules=self.rules.replace(sf_is_bomb=False))
        # a move record holds at most 10 cards (the core does not make longer sequences;
        # kept as a guard)
        arr = arr[arr["ncards"] <= 10]
        cards = arr["cards"].astype(np.int64)
        used = np.arange(10)[None, :] < arr["ncards"][:, None]
        fields = _fields_of_kinds(cards, lvl)
        # packed counts: fields 0..11 in `lo`, 12..15 (and the reading) in `hi`
        low_part = fields < 12
        one = np.int64(1)
        lo = np.where(used & low_part, one << (_FB * np.where(low_part, fields, 0)), 0).sum(axis=1)
        hi = np.where(used & ~low_part, one << (_FB * np.where(low_part, 0, fields - 12)),
                      0).sum(axis=1)
        hi |= (arr["type"].astype(np.int64) << 20) | (arr["label"].astype(np.int64) << 25) \
            | ((arr["key"].astype(np.int64) + 32768) << 32)
        self.rmoves = []          # (type, label, key, packed counts)
        self.power = []           # bomb power or None
        self.single = []          # single key or None
        lists = [[] for _ in range(_NF)]
        # numbered by type, rank, strength, then the counts: a split's ids sorted are then
        # its parts in that order, the last tie-break between splits
        unique = {((h >> 20) & 15, (h >> 25) & 31, (h >> 32) - 32768, l | ((h & 0xFFFFF) << 60))
                  for h, l in zip(hi.tolist(), lo.tolist())}
        for mtype, label, key, packed in sorted(unique):
            mid = len(self.rmoves)
            self.rmoves.append((mtype, label, key, packed))
            self.power.append(key if mtype >= STRAIGHT_FLUSH else None)
            self.single.append(key if mtype == SINGLE else None)
            lists[((packed & -packed).bit_length() - 1) // _FB].append((packed, mid))
        self.lists = lists
        self.one_move = {packed for _, _, _, packed in self.rmoves}
        self.index = {}

    def candidates(self, s: int) -> list:
        """The combinations whose lowest card is the lowest card of state ``s`` (not 0) and
        that fit its count of that card and of wilds: [(packed, id)], to test further."""
        f = ((s & -s).bit_length() - 1) // _FB
        have = (s >> (_FB * f)) & 31
        wilds = s >> (_FB * _WILD_FIELD)
        key = (f << 8) | (have << 2) | wilds
        moves = self.index.get(key)
        if moves is None:
            shift = _FB * f
            wshift = _FB * _WILD_FIELD
            moves = [(m, mid) for m, mid in self.lists[f]
                     if (m >> shift) & 31 <= have and m >> wshift <= wilds]
            self.index[key] = moves
        return moves

    def _build_straight_flushes(self):
        self.sfs = []             # (card packed, rank packed, Move)
        if not self.rules.sf_is_bomb:
            return
        arr = moves_array(self.hand, self.lvl, rules=self.rules)
        arr = arr[arr["type"] == STRAIGHT_FLUSH]
        for rec in arr:
            move = Move.from_record(rec, validate=False)
            kinds = np.array(move.kinds, dtype=np.int64)
            cnt = np.bincount(kinds, minlength=NUM_KINDS)
            vec = np.bincount(_fields_of_kinds(kinds, self.lvl), minlength=_NF)
            self.sfs.append((_pack_cards(cnt), _pack(vec), move))

    # -- phase 1: fewest plays, exact, of every state reachable from s
    def min_plays(self, s: int) -> int:
        exact = self.exact
        r = exact.get(s)
        if r is not None:
            return r
        index, candidates = self.index, self.candidates
        guard = _GUARD
        fb = _FB
        wshift = _FB * _WILD_FIELD

        def solve(s):
            f = ((s & -s).bit_length() - 1) // fb
            moves = index.get((f << 8) | (((s >> (fb * f)) & 31) << 2) | (s >> wshift))
            if moves is None:
                moves = candidates(s)
            bestv = 99
            sg = s | guard
            for m, _ in moves:
                if (sg - m) & guard == guard:
                    c = s - m
                    v = exact.get(c)
                    if v is None:
                        v = solve(c)
                    if v < bestv:
                        bestv = v
            bestv += 1
            exact[s] = bestv
            return bestv

        return solve(s)

    # -- the same, bounded: the exact value if it is at most `limit`, else a lower bound
    def bounded(self, s: int, limit: int) -> int:
        exact, lower = self.exact, self.lower
        one_move, candidates = self.one_move, self.candidates
        guard = _GUARD

        def search(s, d):
            v = exact.get(s)
            if v is not None:
                return v
            lb = lower.get(s)
            if lb is None:
                # cards left / 10 (the sum of the base-32 digits is s mod 31); one play?
                lb = -(-(s % 31) // 10)
                if lb < 2:
                    if s in one_move:
                        exact[s] = 1
                        return 1
                    lb = 2
            if lb > d:
                return lb
            sg = s | guard
            found = 99
            fail = 99
            lim = d - 1
            for m, _ in candidates(s):
                if (sg - m) & guard == guard:
                    c = s - m
                    v = exact.get(c)
                    if v is None:
                        v = search(c, lim)
                    if v <= lim:
                        found = v + 1
                        lim = v - 1     # from now on, look only for something better
                        if found <= lb:
                            break
                    elif v + 1 < fail:
                        fail = v + 1
            if found < 99:
                exact[s] = found
                return found
            lower[s] = fail
            return fail

        return search(s, limit)

    # -- phase 2: the best few completions, over optimal choices only
    def top_splits(self, s: int) -> list:
        top = self.top
        r = top.get(s)
        if r is not None:
            return r
        exact = self.exact
        bounded, candidates = self.bounded, self.candidates
        power, single = self.power, self.single
        keep = self.keep
        guard = _GUARD

        def walk(s):
            target = exact[s] - 1
            sg = s | guard
            cands = {}
            for m, mid in candidates(s):
                if (sg - m) & guard == guard:
                    c = s - m
                    v = exact.get(c)
                    if v is None:
                        v = bounded(c, target)
                    if v != target:
                        continue
                    sub = top.get(c)
                    if sub is None:
                        sub = walk(c)
                    bp, sk = power[mid], single[mid]
                    for score, ids in sub:
                        lst = list(ids)
                        insort(lst, mid)
                        key = tuple(lst)
                        if key not in cands:
                            cands[key] = _add_to_score(score, bp, sk)
            out = sorted((score, ids) for ids, score in cands.items())[:keep]
            top[s] = out
            return out

        return walk(s)

    # -- straight flush sets
    def _sf_sets(self):
        """Every set of straight flushes the hand holds at once: (rank state, sf indices)."""
        sfs = self.sfs
        root_cards = _pack_cards(self.counts)
        root_rank = _pack(_hand_fields(self.counts, self.lvl))
        out = []

        def rec(start, cards, rank, chosen):
            out.append((rank, chosen))
            cg = cards | _CGUARD
            for j in range(start, len(sfs)):
                cm, rm, _ = sfs[j]
                if (cg - cm) & _CGUARD == _CGUARD:
                    # from j again, not j + 1: a hand holding every card twice holds the
                    # same straight flush twice (indices non-decreasing: each set once)
                    rec(j, cards - cm, rank - rm, chosen + (j,))

        rec(0, root_cards, root_rank, ())
        return out

    def solve(self):
        """(fewest plays, candidates [(score, ids)] sorted best first)."""
        sets = self._sf_sets()
        fewest = self.min_plays(sets[0][0])       # no straight flush taken apart
        roots = [(fewest, sets[0][0], ())]
        for rank, chosen in sets[1:]:
            # a straight flush is also a straight at rank level, so (with the exact
            # sequence rules) taking it apart never saves a play: a bounded search
            # only has to find out whether it costs none
            limit = fewest - len(chosen)
            v = self.bounded(rank, limit) if limit >= 0 else 99
            if v <= limit:
                total = v + len(chosen)
                fewest = min(fewest, total)
                roots.append((total, rank, chosen))
        cands = []
        for total, rank, chosen in roots:
            if total != fewest:
                continue
            for score, ids in self.top_splits(rank):
                for j in chosen:
                    score = _add_to_score(score, self.sfs[j][2].key, None)
                cands.append((score, ids + tuple(_SF_ID0 + j for j in chosen)))
        cands.sort()
        return fewest, cands

    # -- cards
    def to_moves(self, ids) -> list:
        """Real cards for a split given as rank-level / straight flush ids."""
        lvl, rules = self.lvl, self.rules
        avail = self.counts.tolist()
        parts = []
        rank_parts = []
        for mid in ids:
            if mid >= _SF_ID0:
                move = self.sfs[mid - _SF_ID0][2]
                for k in move.kinds:
                    avail[k] -= 1
                parts.append(move)
            else:
                rank_parts.append(self.rmoves[mid])
        wild = wild_kind(lvl)
        # straights first: they want mixed suits
        rank_parts.sort(key=lambda p: p[0] != STRAIGHT)
        # the five-card straights of natural cards, their suits chosen first and together so
        # that none is five cards of one suit (which would be a straight flush only) where
        # the hand allows it: another part's greedy choice could take the card one needs
        # (the other parts' suits do not matter)
        natural = [p for p in rank_parts if p[0] == STRAIGHT and _cards_in(p[3]) == 5 and
                   not (p[3] >> (_FB * _WILD_FIELD)) & 31] if rules.sf_is_bomb else []
        suited = self._mixed_suits([p[3] for p in natural], avail) if natural else None
        if suited is not None:
            for part, kinds in zip(natural, suited):
                parts.append(self._reading(part[0], part[1], part[2], kinds))
            rank_parts = [p for p in rank_parts if not any(p is q for q in natural)]
        for mtype, label, key, packed in rank_parts:
            vec = [(packed >> (_FB * f)) & 31 for f in range(_NF)]
            kinds = []
            for f in range(15):
                need = vec[f]
                if not need:
                    continue
                if f >= 13:
                    kinds += [39 + f] * need
                    avail[39 + f] -= need
                    continue
                pool = [k for k in range(4 * f, 4 * f + 4) if k != wild]
                if mtype == STRAIGHT:
                    # take the suit with the most cards left (spread suits)
                    for _ in range(need):
                        k = max(pool, key=lambda k: (avail[k], -k))
                        kinds.append(k)
                        avail[k] -= 1
                else:
                    for k in pool:
                        while need and avail[k] > 0:
                            kinds.append(k)
                            avail[k] -= 1
                            need -= 1
            kinds += [wild] * vec[_WILD_FIELD]
            avail[wild] -= vec[_WILD_FIELD]
            if mtype == STRAIGHT and vec[_WILD_FIELD] == 0 and rules.sf_is_bomb:
                kinds = self._unflush(kinds, avail)
            parts.append(self._reading(mtype, label, key, kinds))
        assert not any(avail), "internal error: the split does not use the hand"
        parts.sort(key=_part_order)
        return parts

    def _mixed_suits(self, straights, avail, budget: int = 20_000):
        """Natural cards for each five-card straight (rank-level vectors, one card a rank)
        with no straight all of one suit, taken from ``avail`` (updated), or None
        (``avail`` as it was) when there are none or the search's ``budget`` of steps runs
        out; depth first, the suits with the most cards left tried first."""
        wild = wild_kind(self.lvl)
        # five slots a straight, one a rank: slot n is card n % 5 of straight n // 5
        ranks = [f for packed in straights for f in range(13) if (packed >> (_FB * f)) & 31]
        chosen = [0] * len(ranks)
        steps = 0

        def place(n: int) -> bool:
            nonlocal steps
            if n == len(ranks):
                return True
            f = ranks[n]
            for k in sorted((k for k in range(4 * f, 4 * f + 4) if k != wild and avail[k]),
                            key=lambda k: (-avail[k], k)):
                steps += 1
                if steps > budget:
                    return False
                if n % 5 == 4 and all((c & 3) == (k & 3) for c in chosen[n - 4:n]):
                    continue        # (five cards of one suit)
                avail[k] -= 1
                chosen[n] = k
                if place(n + 1):
                    return True
                avail[k] += 1
            return False

        if not place(0):
            return None
        return [chosen[n:n + 5] for n in range(0, len(chosen), 5)]

    def _unflush(self, kinds, avail):
        """Swap one card of a five-card one-suit straight for another suit, if possible."""
        if len({k & 3 for k in kinds}) > 1:
            return kinds
        wild = wild_kind(self.lvl)
        for i, k in enumerate(kinds):
            r = k >> 2
            for alt in range(4 * r, 4 * r + 4):
                if alt != k and alt != wild and (alt & 3) != (k & 3) and avail[alt] > 0:
                    avail[alt] -= 1
                    avail[k] += 1
                    kinds = kinds[:i] + [alt] + kinds[i + 1:]
                    return kinds
        return kinds

    def _reading(self, mtype, label, key, kinds) -> Move:
        if mtype != STRAIGHT or wild_kind(self.lvl) in kinds or not self.rules.sf_is_bomb \
                or len({k & 3 for k in kinds}) > 1:
            return Move(mtype, label, key, kinds)
        # five natural cards of one suit: maybe only a straight flush
        readings = classify(kinds, self.lvl, self.rules)
        for m in readings:
            if m.type_id == mtype and m.label == label and m.key == key:
                return m
        self.relabelled = True
        return max(readings, key=lambda m: (m.is_bomb, m.key))

    def with_wild_as(self, moves) -> list:
        """The same parts as read by :func:`classify` (which says what each wild stands for)."""
        wild = wild_kind(self.lvl)
        out = []
        for m in moves:
            if wild in m.kinds:
                for r in classify(m.kinds, self.lvl, self.rules):
                    if r == m:
                        m = r
                        break
            out.append(m)
        return out


# --------------------------------------------------------------------------- public API

def best_split(hand, level, rules=None, runners_up: int = 5) -> SplitResult:
    """The exact best split of ``hand`` at ``level`` and up to ``runners_up`` runner-ups.

    See the module docstring for the order of splits. Raises ``ValueError`` for a bad
    hand or level, or a hand of more than 27 cards.
    """
    hand = _hand(hand)
    lvl = _level(level)
    rules = Rules.of(rules)
    if len(hand) > MAX_HAND:
        raise CardError(f"a hand holds at most {MAX_HAND} cards, not {len(hand)}")
    if not is_whole(runners_up, 0):        # (int() read 2.7 as 2, and -1 became 0)
        raise ValueError(f"runners_up must be a whole number 0 or more, not {quoted(runners_up)}")
    runners_up = int(runners_up)
    if len(hand) == 0:
        return SplitResult([], 0, [], lvl, rules)
    solver = _Solver(hand, lvl, rules, runners_up + 1)
    fewest, cands = solver.solve()
    splits = []
    seen = set()
    for _, ids in cands:
        if len(splits) > runners_up and not solver.relabelled:
            break       # the rest scores no better (a relabelled part can only gain a bomb)
        moves = solver.to_moves(ids)
        ident = _split_id(moves, wild_kind(lvl))
        if ident in seen:
            continue
        seen.add(ident)
        splits.append(moves)
    # stable: equal scores keep the candidates' order, which is the same whatever
    # runners_up is (sorting ties by the cards instead made the best split depend on how
    # many candidates runners_up let through)
    splits.sort(key=_full_score)
    splits = [solver.with_wild_as(ms) for ms in splits[:runners_up + 1]]
    return SplitResult(splits[0], fewest, splits[1:], lvl, rules)


def _bomb_group(move: Move, wild: int) -> tuple:
    """What makes two bombs "the same bomb" in :func:`list_bombs`."""
    if move.type_id == STRAIGHT_FLUSH:
        suit = next(k & 3 for k in move.kinds if k != wild)
        return (move.type_id, move.label, suit)
    return (move.type_id, move.label, len(move.kinds))


_TOP_SINGLE = Move.from_platform(["Single", "R", ["HR"]], 0)    # (no single beats it)


def list_bombs(hand, level, rules=None) -> list:
    """The distinct bombs of a hand, biggest first, each with the bombs it shares cards with.

    One bomb per rank and size (same-rank bombs: every size from 4 to all the cards of
    the rank plus the wilds), one per sequence and suit (straight flushes), and the joker
    bomb; the one listed uses the fewest wild cards, then the lowest cards. Two bombs
    share cards when the hand cannot hold both at once. Returns a list of :class:`Bomb`.
    """
    hand = _hand(hand)
    lvl = _level(level)
    rules = Rules.of(rules)
    # the moves that beat a single big joker are the bombs: found alone, without the
    # millions of other moves a large hand has under long sequences (108 cards: 33 M)
    arr = moves_array(hand, lvl, _TOP_SINGLE, rules=rules)
    wild = wild_kind(lvl)
    chosen = {}
    readings = {}           # group -> the card counts of every way the hand can play it
    for rec in arr:
        move = Move.from_record(rec, validate=False)
        group = _bomb_group(move, wild)
        rank = (move.kinds.count(wild), move.kinds)
        if group not in chosen or rank < chosen[group][0]:
            chosen[group] = (rank, move)
        readings.setdefault(group, []).append(move.counts().astype(np.int64))
    groups = sorted(chosen, key=lambda g: (-chosen[g][1].key, chosen[g][0]))
    ways = [np.unique(np.array(readings[g]), axis=0) for g in groups]
    # Two bombs share cards when no way of playing one leaves a way of playing the other
    # (the listed cards alone would say too much: 5 nines and a straight flush through S9
    # can both be played when the 4-bomb leaves S9 out). Two ways fit together unless,
    # for some card, both use it and the hand holds one, or one uses both copies and the
    # other one: bit masks of the cards each way uses once or more and twice, each bomb's
    # ways against every way of all the others at once, then grouped by bomb.
    every_way = np.concatenate(ways) if ways else np.zeros((0, NUM_KINDS), np.int64)
    once, twice = _card_bits(every_way >= 1), _card_bits(every_way == 2)
    single = once & ~_card_bits(hand.counts[None, :] == 2)[0]   # used once, held once
    starts = np.cumsum([0] + [len(w) for w in ways[:-1]])
    bombs = []
    for i, g in enumerate(groups):
        rows = slice(starts[i], starts[i] + len(ways[i]))
        clash = (once[rows, None] & single[None, :]) | (twice[rows, None] & once[None, :]) \
            | (once[rows, None] & twice[None, :])
        together = np.logical_or.reduceat((clash == 0).any(axis=0), starts)
        bombs.append(Bomb(chosen[g][1], [j for j in range(len(groups))
                                         if j != i and not together[j]]))
    return bombs


def _card_bits(used: np.ndarray) -> np.ndarray:
    """Each row of ``used`` (bool, one column a card kind) as a uint64 bit mask."""
    wide = np.zeros((len(used), 64), dtype=bool)
    wide[:, :NUM_KINDS] = used
    return np.packbits(wide, axis=1, bitorder="little").view("<u8").ravel()


def unseen_pool(hand, played=None) -> np.ndarray:
    """Counts (``uint8[54]``) of the unseen cards: the 108-card deck minus the hand minus
    the played cards. Raises ``CardError`` when they hold more than two of a card."""
    seen = _hand(hand).counts.astype(np.int64)
    if played is not None:
        seen = seen + to_counts(played, "played cards").astype(np.int64)
    if seen.max(initial=0) > 2:
        bad = [format_card(int(k)) for k in np.flatnonzero(seen > 2)]
        raise CardError("the hand and the played cards hold together more than the two "
                        f"copies of {' '.join(bad)}")
    return (DECK - seen).astype(np.uint8)


# The natural cards of one rank a play of each type that is no bomb can use: a beater of
# the same type is found among that many per rank (with every wild card and joker), since
# the suits of natural cards matter only where five of one suit in a row would be read
# as a straight flush alone; two suits per rank, where the pool has them, avoid that.
_NATURALS_USED = {SINGLE: 1, PAIR: 2, TRIPS: 3, THREE_WITH_TWO: 3, STRAIGHT: 2,
                  THREE_PAIR: 2, TWO_TRIPS: 3}


def _thinned(pool: np.ndarray, per_rank: int, wild: int) -> np.ndarray:
    """``pool`` with at most ``per_rank`` natural cards of each rank, one of each suit it
    holds before any second copy; the wild cards and jokers all kept."""
    out = np.zeros_like(pool)
    out[52:] = pool[52:]
    out[wild] = pool[wild]
    for rank in range(13):
        kinds = [k for k in range(4 * rank, 4 * rank + 4) if k != wild]
        left = per_rank
        for copy in (1, 2):
            for k in kinds:
                if left and pool[k] >= copy:
                    out[k] += 1
                    left -= 1
    return out


def _beaters(pool: np.ndarray, play: Move, lvl: int, rules: Rules) -> np.ndarray:
    """The plays of ``pool`` that beat ``play``, or, when some of them are of its own type,
    enough of those for :func:`_smallest`: every (type, rank, size, wild count) among
    them, from a pool thinned to the cards such a play can use. (Under the
    ``long-sequences`` rules the unseen cards hold millions of ten-card straights, one
    for each choice of suits: 13 M records and seconds of work for one play.)"""
    per_rank = _NATURALS_USED.get(play.type_id)
    if per_rank is not None:
        same = moves_array(_thinned(pool, per_rank, wild_kind(lvl)), lvl, beat=play,
                           rules=rules)
        same = same[same["type"] < STRAIGHT_FLUSH]
        if len(same):
            return same
    # (none of its type, so only bombs beat it: few even in the whole pool)
    return moves_array(pool, lvl, beat=play, rules=rules)


def _smallest(arr: np.ndarray) -> Move:
    """The smallest play among beating plays: same type by key first, then bombs."""
    bomb = arr["type"] >= STRAIGHT_FLUSH
    nwild = arr["nwild"].astype(np.int64)
    order = np.lexsort((nwild, arr["ncards"], arr["key"], bomb))
    return Move.from_record(arr[order[0]], validate=False)


def control(split, hand, level, played=None, rules=None) -> list:
    """For each play of ``split``: can the unseen cards beat it, and by what.

    ``split`` is a list of Moves (or a :class:`SplitResult`); the unseen pool is the
    108-card deck minus ``hand`` minus ``played``. Returns one :class:`ControlInfo` per play.
    """
    split = _checked_split(split)
    lvl = _level(level)
    rules = Rules.of(rules)
    pool = unseen_pool(hand, played)
    held = _hand(hand).counts.astype(np.int64)
    out = []
    for play in split:
        # a play read at another level has another strength there (a pair of 7s at level 2
        # is below 8s, at 7 above aces)
        checked_reading(play, lvl, rules, "split play")
        held -= play.counts()
        if held.min() < 0:
            raise MoveError(f"split play {play} uses cards the hand does not hold (the "
                            "split's plays together hold more than the hand)")
        beaters = _beaters(pool, play, lvl, rules)
        if len(beaters) == 0:
            out.append(ControlInfo(play, False, None, False))
            continue
        by = _smallest(beaters)
        out.append(ControlInfo(play, True, by, by.is_bomb and not play.is_bomb))
    return out


def analyze(hand, level, played=None, rules=None, runners_up: int = 5) -> dict:
    """Everything ``guandan analyze`` shows, as one JSON-ready dict.

    Keys: ``hand``, ``level``, ``played``, ``unseen`` (number of unseen cards), ``split``
    (the best split, platform triples), ``plays``, ``split_bombs``, ``split_singles``,
    ``runner_up`` (list of splits), ``bombs`` (platform triples, biggest first),
    ``bomb_shares`` (per bomb, the indices of the bombs it shares cards with),
    ``bomb_in_split`` (per bomb, whether the best split plays that bomb), ``control``
    (per play of the split: ``play``, ``beatable``, ``by``, ``only_bombs``).
    """
    hand = _hand(hand)
    lvl = _level(level)
    rules_obj = Rules.of(rules)
    played_counts = None if played is None else to_counts(played, "played cards")
    pool = unseen_pool(hand, played_counts)
    res = best_split(hand, lvl, rules_obj, runners_up)
    bombs = list_bombs(hand, lvl, rules_obj)
    ctrl = control(res.split, hand, lvl, played_counts, rules_obj)
    score = res.score
    wild = wild_kind(lvl)
    in_split = {_bomb_group(m, wild) for m in res.split if m.is_bomb}
    return {
        "hand": hand.cards(),
        "level": RANKS[lvl],
        "played": [] if played_counts is None else Hand.from_counts(played_counts).cards(),
        "unseen": int(pool.sum()),
        "split": res.to_platform(),
        "plays": res.plays,
        "split_bombs": -score[1],
        "split_singles": score[3],
        "runner_up": [[m.to_platform() for m in ms] for ms in res.runners_up],
        "bombs": [b.move.to_platform() for b in bombs],
        "bomb_shares": [b.shares for b in bombs],
        "bomb_in_split": [_bomb_group(b.move, wild) in in_split for b in bombs],
        "control": [c.to_json() for c in ctrl],
    }
