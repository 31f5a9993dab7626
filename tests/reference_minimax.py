"""Plain minimax over the engine's Position: every legal move, no pruning, no table.

The slow, obviously correct reference for the solver (RULES sec. 6: team 0 = seats 0 and
2 maximises the outcome, team 1 minimises it). Given a memo, it remembers each position's
value under ``Position.key()``, the whole state, so that positions with long plays (tubes,
plates, bombs of many cards) or more cards, whose trees are too large for the plain
search, can be checked too.
"""

from __future__ import annotations

import random

from guandan_core import classify
from guandan_core.cards import format_card, format_rank
from guandan_core.position import Position, PositionError


class Budget(Exception):
    """The reference gave up: the position has too many nodes for a plain minimax."""


def minimax(pos: Position, budget: list, memo: dict | None = None) -> int:
    """Team-0 value of ``pos``; ``budget[0]`` counts down positions searched (raises
    Budget at 0). With ``memo``, each position's value is kept there under its full state
    (``Position.key()``) and not searched again."""
    if pos.is_over:
        return pos.outcome
    if memo is not None:
        key = pos.key()
        known = memo.get(key)
        if known is not None:
            return known
    budget[0] -= 1
    if budget[0] <= 0:
        raise Budget()
    maximizing = pos.to_move % 2 == 0
    best = None
    for move in pos.legal_moves():
        pos.push(move, check=False)
        try:
            v = minimax(pos, budget, memo)
        finally:
            pos.pop()
        if best is None or (v > best if maximizing else v < best):
            best = v
    if memo is not None:
        memo[key] = best
    return best


def value_for_mover(pos: Position, budget_nodes: int = 200_000) -> int:
    v = minimax(pos, [budget_nodes])
    return v if pos.to_move % 2 == 0 else -v


def _seats_out(rng: random.Random, active: int | None = None) -> list:
    """The seats already out, in the order they went out, for ``active`` players in play
    (2 to 4, random when None); never both players of a team (the hand would be over)."""
    if active is None:
        active = rng.choice([2, 2, 3, 3, 4])
    while True:
        out = rng.sample(range(4), 4 - active)
        if not ({0, 2} <= set(out) or {1, 3} <= set(out)):
            break
    rng.shuffle(out)
    return out


def _position(level, hands, out, to_move, table, owner, rules=None) -> Position | None:
    """The position of RULES sec. 7 with these parts, None where they are not one."""
    obj = {"level": format_rank(level),
           "hands": [[format_card(k) for k in sorted(h)] for h in hands],
           "finished": out, "to_move": to_move,
           "table": None if table is None else {"owner": owner, "play": table.to_platform()}}
    try:
        return Position.from_json(obj, rules)
    except PositionError:
        return None


def _with_table(rng: random.Random, level, hands, out, to_move, table_cards, owner,
                rules) -> Position | None:
    """The position with ``table_cards`` (none: on lead) read as one of their readings at
    random on the table, None when the cards dealt hold a third copy of a card or the
    table's cards are no play."""
    dealt = [k for h in hands for k in h] + table_cards
    if any(dealt.count(k) > 2 for k in set(dealt)):
        return None
    table = None
    if table_cards:
        readings = classify(table_cards, level, rules)
        if not readings:
            return None
        table = rng.choice(readings)
    return _position(level, hands, out, to_move, table, owner, rules)


def random_position(rng: random.Random, max_cards: int = 5, active: int | None = None,
                    with_table: float = 0.4, max_total: int = 40) -> Position | None:
    """A random endgame: 2 to 4 active players holding 1..max_cards cards, players out,
    random level, wild cards and jokers favoured, sometimes a play on the table.
    At most ``max_total`` cards in all (so a plain minimax stays feasible).
    Returns None for a draw that is not a valid position."""
    level = rng.randrange(13)
    deck = [k for k in range(54) for _ in range(2)]
    rng.shuffle(deck)
    wild = level * 4 + 1
    # favour wild cards and jokers: move some to the front of the deck
    for special in (wild, wild, 52, 53, 52, 53):
        if rng.random() < 0.3:
            deck.remove(special)
            deck.insert(0, special)
    out = _seats_out(rng, active)
    active = 4 - len(out)
    hands = [[] for _ in range(4)]
    pos_in_deck = 0
    for seat in range(4):
        if seat in out:
            continue
        n = rng.randint(1, max_cards)
        n = max(1, min(n, max_total - pos_in_deck - (active - 1 - len(
            [h for h in hands if h]))))
        hands[seat] = deck[pos_in_deck:pos_in_deck + n]
        pos_in_deck += n
    rest = deck[pos_in_deck:]
    in_play = [s for s in range(4) if s not in out]
    to_move = rng.choice(in_play)
    table = None
    owner = None
    if rng.random() < with_table:
        owners = [s for s in in_play if s != to_move] + ([out[-1]] if out else [])
        owner = rng.choice(owners)
        for _ in range(20):
            size = rng.choice([1, 1, 2, 2, 3, 5])
            cards = rest[:size]
            rng.shuffle(rest)
            readings = classify(cards, level)
            if readings:
                table = rng.choice(readings)
                break
        if table is None:
            owner = None
    return _position(level, hands, out, to_move, table, owner)


LONG_SHAPES = ("tube", "plate", "bomb", "straight flush", "straight", "full house",
               "joker bomb")


def long_play_cards(rng: random.Random, level: int) -> list:
    """The cards of one random long play: a tube, a plate, a bomb of 4 to 7 cards, a
    straight (flush), a full house or the joker bomb; A may sit below 2 in sequences, and
    up to two cards may be swapped for wild cards (so some draws are no longer that play,
    or are other plays as well). A fifth of the tubes and straights have other lengths
    (2 or 4 pairs, 6 or 7 ranks), which are plays under ``long-sequences`` (RULES sec. 9)."""
    shape = rng.choice(LONG_SHAPES)
    if shape == "joker bomb":
        return [52, 52, 53, 53]
    low = rng.randrange(-1, 12)           # -1: the A below 2 (sequences only)
    longer = rng.random() < 0.2
    if shape == "tube":
        ranks = [r for r in range(low, low + (rng.choice([2, 4]) if longer else 3))
                 for _ in range(2)]
    elif shape == "plate":
        ranks = [low] * 3 + [low + 1] * 3
    elif shape in ("straight", "straight flush"):
        ranks = list(range(low, low + (rng.choice([6, 7]) if longer else 5)))
    elif shape == "bomb":
        ranks = [rng.randrange(13)] * rng.randint(4, 7)
    else:
        triple, pair = rng.sample(range(13), 2)
        ranks = [triple] * 3 + [pair] * 2
    top = max(ranks)
    if top > 12:
        ranks = [r - (top - 12) for r in ranks]     # shifted down to end at A at most
    suit = rng.randrange(4)
    cards = [(r % 13) * 4 + (suit if shape == "straight flush" else rng.randrange(4))
             for r in ranks]
    for _ in range(2):
        if rng.random() < 0.35:
            cards[rng.randrange(len(cards))] = level * 4 + 1
    return cards


def rule_option_position(rng: random.Random, rules=None) -> Position | None:
    """A random endgame whose mover (seat 0) holds a play that the options of RULES sec. 9
    make or unmake: a hearts straight flush completed by the wild card (hearts only on
    the platform), a tube of two pairs or a straight of 6 or 7 ranks (``long-sequences``
    only), with 0 or 1 other card; the others 1 or 2 cards (one of them out at times),
    and often a single, pair or triple on the table, which the search answers with its
    merged moves unless it sees that a bomb or sequence can be formed. None for a draw
    that is not a valid position."""
    level = rng.randrange(13)
    wild = level * 4 + 1
    shape = rng.choice(["hearts flush", "two pairs", "long straight"])
    if shape == "hearts flush":
        low = rng.randrange(-1, 9)            # -1: the A below 2
        cards = [(r % 13) * 4 + 1 for r in range(low, low + 5)]
        cards[rng.randrange(5)] = wild
    else:
        size = 2 if shape == "two pairs" else rng.choice([6, 7])
        low = rng.randrange(-1, 13 - size + 1)
        ranks = [r for r in range(low, low + size)
                 for _ in range(2 if shape == "two pairs" else 1)]
        cards = [(r % 13) * 4 + rng.randrange(4) for r in ranks]
        if rng.random() < 0.3:
            cards[rng.randrange(len(cards))] = wild
    hands = [cards + [rng.randrange(54) for _ in range(rng.randint(0, 1))], [], [], []]
    out = [rng.choice([1, 2, 3])] if rng.random() < 0.3 else []
    for seat in (1, 2, 3):
        if seat not in out:
            hands[seat] = [rng.randrange(54) for _ in range(rng.randint(1, 2))]
    owner = None
    table_cards = []
    if rng.random() < 0.6:
        owner = rng.choice([s for s in (1, 2, 3) if s not in out])
        rank = rng.randrange(13)
        table_cards = [rank * 4 + suit for suit in rng.sample(range(4), rng.randint(1, 3))]
    return _with_table(rng, level, hands, out, 0, table_cards, owner, rules)


def random_long_play_position(rng: random.Random, rules=None) -> Position | None:
    """A random endgame where one or two of the 2 to 4 active players hold one or two
    long plays (:func:`long_play_cards`) and up to two other cards, and the others 1 to 3
    cards; random level, players out, sometimes a long play on the table. None for a draw
    that is not a valid position (more than two copies of a card, say)."""
    level = rng.randrange(13)
    out = _seats_out(rng)
    in_play = [s for s in range(4) if s not in out]
    long_hands = rng.sample(in_play, rng.choice([1, 1, 2]))
    hands = [[] for _ in range(4)]
    for seat in in_play:
        if seat in long_hands:
            cards = long_play_cards(rng, level)
            if rng.random() < 0.3:
                cards += long_play_cards(rng, level)
            cards += [rng.randrange(54) for _ in range(rng.randint(0, 2))]
        else:
            cards = [rng.randrange(54) for _ in range(rng.randint(1, 3))]
        hands[seat] = cards
    to_move = rng.choice(in_play)
    owner = None
    table_cards = []
    if rng.random() < 0.4:
        owner = rng.choice([s for s in in_play if s != to_move] + out[-1:])
        table_cards = long_play_cards(rng, level) if rng.random() < 0.6 else \
            [rng.randrange(54) for _ in range(rng.choice([1, 2, 3]))]
    return _with_table(rng, level, hands, out, to_move, table_cards, owner, rules)


def spaced_ranks_case(rng: random.Random, lead: bool, full_house_table: bool = False) -> dict:
    """A position whose mover holds pairs, triples, wild cards and jokers on ranks three
    apart (the ace counts low and high), so no sequence is possible. When following, the
    table is a single, pair or triple, or with ``full_house_table`` a three-with-two."""
    level = rng.randrange(13)
    wild = level * 4 + 1
    left = {k: 2 for k in range(54)}     # copies of each card not dealt yet

    def take(kinds, count):
        pool = [k for k in kinds for _ in range(left[k])]
        got = rng.sample(pool, min(count, len(pool)))
        for k in got:
            left[k] -= 1
        return got

    def naturals(rank):               # the cards of a rank that are not the wild card
        return [rank * 4 + s for s in range(4) if rank * 4 + s != wild]

    start = rng.randrange(3)
    ranks = [r for r in range(start, 13, 3) if not (r == 12 and start == 0)]
    hand = []
    for r in rng.sample(ranks, min(len(ranks), rng.randint(2, 4))):
        hand += take(naturals(r), rng.choice([1, 1, 2, 3]))
    hand += take([wild], rng.choice([0, 1, 2, 2]))
    hand += take([52], rng.choice([0, 1, 2])) + take([53], rng.choice([0, 1, 2]))
    others = [take(range(52), 1) for _ in range(3)]
    table = None
    if not lead and full_house_table:
        r, q = rng.sample(range(13), 2)
        cards = take(naturals(r), 3) + take(naturals(q), 2)
        if len(cards) == 5:
            table = {"owner": 1, "play": ["ThreeWithTwo", format_rank(r),
                                          [format_card(k) for k in cards]]}
    elif not lead:
        t, size = rng.choice([("Single", 1), ("Pair", 2), ("Trips", 3)])
        r = rng.randrange(13)
        cards = take(naturals(r), size)
        if len(cards) == size:
            table = {"owner": 1, "play": [t, format_rank(r), [format_card(k) for k in cards]]}
    return {"level": format_rank(level),
            "hands": [[format_card(k) for k in h] for h in [hand] + others],
            "finished": [], "to_move": 0, "table": table}


def _naturals(rng: random.Random, rank: int, level: int, count: int) -> list:
    # `count` natural cards of one rank (the heart of the level rank is the wild card)
    suits = [0, 2, 3] if rank == level else [0, 1, 2, 3]
    return [rank * 4 + rng.choice(suits) for _ in range(count)]


def _piece(rng: random.Random, level: int, shape: str) -> list:
    """The cards of one shape where the search's pruning of dominated plays has cases."""
    wild = level * 4 + 1
    a, b = sorted(rng.sample(range(13), 2))
    if shape == "bomb of five":                 # three naturals and two wild cards
        return _naturals(rng, a, level, 3) + [wild, wild]
    if shape == "wild triple":
        return _naturals(rng, a, level, rng.choice([1, 2])) + [wild] * rng.choice([1, 2])
    if shape == "wild pair":
        return _naturals(rng, a, level, 1) + [wild]
    if shape == "four and a pair":
        return _naturals(rng, b, level, 4) + _naturals(rng, a, level, 2)
    if shape == "triple and lower pair":
        return _naturals(rng, b, level, 3) + _naturals(rng, a, level, 2)
    if shape == "wild three-with-two":
        return _naturals(rng, a, level, 2) + _naturals(rng, b, level, 2) + [wild]
    if shape == "two triples":
        return _naturals(rng, a, level, 3) + _naturals(rng, b, level, rng.choice([2, 3]))
    if shape == "two triples and a pair":       # three-with-twos sharing a triple or a pair
        c = rng.choice([r for r in range(13) if r not in (a, b)])
        return _naturals(rng, a, level, 3) + _naturals(rng, b, level, 3) + \
            _naturals(rng, c, level, 2)
    return _naturals(rng, a, level, rng.choice([2, 3]))     # "pair or triple"


PIECES = ("bomb of five", "wild triple", "wild pair", "four and a pair",
          "triple and lower pair", "wild three-with-two", "two triples",
          "two triples and a pair", "pair or triple")


def random_piece_position(rng: random.Random, max_total: int = 16) -> Position | None:
    """A random endgame whose mover (1 to 8 cards) nearly always holds one of the shapes
    of ``PIECES`` (a bomb of three naturals and two wild cards, triples and pairs
    completed by wild cards, four of a kind and a pair, ...) and the others 1 to 5 cards,
    sometimes with such a shape too; the rest single cards, wild cards and jokers. A
    random level, 2 to 4 active players, a single, pair, triple or three-with-two on the
    table nearly half the time. Small hands where the search drops dominated plays of
    every kind, and where who holds a card between two ranks decides whether it may
    (found mutants of that pruning that the other draws here did not). None for a draw
    that is not a valid position."""
    level = rng.randrange(13)
    out = _seats_out(rng)
    in_play = [s for s in range(4) if s not in out]
    to_move = rng.choice(in_play)
    hands = [[] for _ in range(4)]
    for seat in in_play:
        mover = seat == to_move
        size = rng.randint(1, 7) if mover else rng.randint(1, 5)
        cards = _piece(rng, level, rng.choice(PIECES)) \
            if rng.random() < (0.9 if mover else 0.3) else []
        while len(cards) < size:
            draw = rng.random()
            if draw < 0.6:
                cards.append(rng.randrange(52))
            elif draw < 0.8:
                cards.append(level * 4 + 1)
            else:
                cards.append(rng.choice([52, 53]))
        hands[seat] = cards[:8]
    if sum(len(h) for h in hands) > max_total:
        return None
    table = owner = None
    table_cards = []
    if rng.random() < 0.45:
        owner = rng.choice([s for s in in_play if s != to_move] + out[-1:])
        shape = rng.choice(["single", "pair", "triple", "three-with-two"])
        table_cards = [rng.randrange(54)] if shape == "single" else \
            _piece(rng, level, "triple and lower pair") if shape == "three-with-two" else \
            _naturals(rng, rng.randrange(13), level, 2 if shape == "pair" else 3)
        if rng.random() < 0.3:
            table_cards[rng.randrange(len(table_cards))] = level * 4 + 1
    dealt = [k for h in hands for k in h] + table_cards
    if any(dealt.count(k) > 2 for k in set(dealt)):
        return None
    if table_cards:
        readings = classify(table_cards, level)
        if not readings:
            return None
        table = rng.choice(readings)
    return _position(level, hands, out, to_move, table, owner)
