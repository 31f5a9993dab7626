"""Card sets for the classifier checks, drawn near the readings that matter."""

from guandan_core import legal_moves
from guandan_core.match import deal


def play_derived_set(rng, level):
    """The cards of a real play (4 cards or more) of a dealt hand, often with one natural
    card turned into the level's wild or moved to another suit: sets near the readings
    that matter (wild straight flushes, bombs and sequences with wilds), which random sets
    rarely are (198 of 250 random sets of the self-check had no reading at all). The
    engine only proposes the cards; the readings compared come from elsewhere."""
    hand = deal(rng)[rng.randrange(4)]
    moves = [m for m in legal_moves(hand, level) if len(m.kinds) >= 4]
    flushes = [m for m in moves if m.type == "StraightFlush"]
    cards = list(rng.choice(flushes if flushes and rng.random() < 0.5 else moves).kinds)
    wild, i = level * 4 + 1, rng.randrange(len(cards))
    r = rng.random()
    if r < 0.45 and cards[i] != wild and cards.count(wild) < 2:
        cards[i] = wild
    elif r < 0.7 and cards[i] < 52:
        other = (cards[i] & ~3) | rng.randrange(4)
        if cards.count(other) < 2:
            cards[i] = other
    return cards
