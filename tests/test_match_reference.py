"""guandan_core.match against the slow reference tests/reference_match.py, case for case.

RULES.md sections 2, 6, 8 and 9: random deals of 27 cards a seat from the 108-card deck
(some rigged so that rare cases come up: jokers all with the winners, a receiver holding
only high cards, wilds and level cards with a payer), random finishing orders, random
levels, every value of every match option of sec. 9 (``win_at_a``, ``fail_at_a``,
``tribute``, ``tribute_first_last``, ``lead_after_tribute``, ``first_leader``). Every
output field is compared; where the engine picks one of several legal answers (the suit
of a tribute card, a returned card) its answer is checked for legality against the
reference, and the engine's documented choice (guandan_core/match.py docstring) is checked
as that choice. Each test counts the cases it met and asserts that every kind of case
came up, so it cannot pass vacuously.
"""

import itertools
import random
from collections import Counter

import numpy as np
import pytest

from guandan_core import Rules
from guandan_core.cards import format_card, parse_card
from guandan_core.match import (Match, MatchRules, allowed_returns, apply_tribute,
                                card_order, is_valid_return, is_valid_tribute,
                                plan_tribute, return_card, settle_hand, tribute_card)
from guandan_core.players import GreedyPlayer, RandomPlayer
from guandan_core.position import finishing_outcome
from reference_match import (ACE, BIG_JOKER, RANKS, SMALL_JOKER, RefMatch, RefOptions,
                             is_level_card, legal_returns, legal_tributes,
                             order_at, partner_place, ref_returns, ref_settle, ref_tribute,
                             strength, team_of)

DECK = [format_card(k) for k in range(54) for _ in range(2)]      # sec. 1: 108 cards
ORDERS = list(itertools.permutations(range(4)))
WIN_AT_A = ("2nd-or-3rd", "2nd-only", "any")
FAIL_AT_A = (0, 2, 3)
LEAD = ("payer", "first")


# ------------------------------------------------------------------ helpers

def cards_of(counts):
    """A count array as a list of card strings."""
    return [format_card(k) for k in range(54) for _ in range(int(counts[k]))]


def counts_of(cards):
    counts = np.zeros(54, dtype=np.uint8)
    for c in cards:
        counts[parse_card(c)] += 1
    return counts


def ref_options(rules: MatchRules) -> RefOptions:
    return RefOptions(win_at_a=rules.win_at_a, fail_at_a=rules.fail_at_a,
                      tribute=rules.tribute, tribute_first_last=rules.tribute_first_last,
                      lead_after_tribute=rules.lead_after_tribute,
                      first_leader=None if rules.first_leader == "random"
                      else rules.first_leader)


def suit_first(cards):
    """The engine's documented pick among equal cards: the first in suit order S H C D
    (the lowest kind index)."""
    return min(cards, key=parse_card)


def lowest_first(cards, level):
    """The engine's order of allowed returns: card order, then suit order S H C D."""
    return sorted(cards, key=lambda c: (strength(c, level), parse_card(c)))


def move_card(hands, card, to, rng, keep=()):
    """Move one copy of ``card`` into seat ``to``, giving back a random card of ``to``
    that is not in ``keep`` (so every seat keeps 27 cards)."""
    holder = next(s for s in range(4) if card in hands[s])
    if holder == to:
        return
    choices = [i for i, c in enumerate(hands[to]) if c not in keep and c != card]
    i = rng.choice(choices)
    back = hands[to][i]
    hands[to][i] = card
    hands[holder].remove(card)
    hands[holder].append(back)


def random_deal(rng, level, prev_order=None):
    """Four hands of 27 cards from a shuffled 108-card deck (sec. 1); some rigged (when
    ``prev_order`` is given) so that rare tribute cases come up. Returns (hands, rig)."""
    deck = DECK[:]
    rng.shuffle(deck)
    hands = [deck[27 * s:27 * s + 27] for s in range(4)]
    rig = "plain"
    if prev_order is None:
        return hands, rig
    r = rng.random()
    first = prev_order[0]
    if r < 0.10:
        # every joker with the winners: the payers' highest are level cards or aces,
        # so equal tribute cards of several suits come up
        rig = "jokers to winners"
        jokers = [SMALL_JOKER] * 2 + [BIG_JOKER] * 2
        for j in jokers:
            move_card(hands, j, rng.choice((first, (first + 2) % 4)), rng,
                      keep=(SMALL_JOKER, BIG_JOKER))
    elif r < 0.20:
        # a receiver with no card of rank 10 or lower that is not a level card: the
        # return falls back to its lowest card
        rig = "high receiver"
        receiver = rng.choice((first, (first + 2) % 4))
        high = [c for c in deck if c in (SMALL_JOKER, BIG_JOKER)
                or c[1] in "JQKA" or c[1] == level]
        rng.shuffle(high)
        mine = high[:27]
        rest = deck[:]
        for c in mine:
            rest.remove(c)
        rng.shuffle(rest)
        others = [s for s in range(4) if s != receiver]
        hands = [None] * 4
        hands[receiver] = mine
        for i, s in enumerate(others):
            hands[s] = rest[27 * i:27 * i + 27]
    elif r < 0.30:
        # the wilds and the other level cards with the losers, jokers with the winners:
        # the wild would be the highest card but is never given
        rig = "wilds to losers"
        for j in [SMALL_JOKER] * 2 + [BIG_JOKER] * 2:
            move_card(hands, j, rng.choice((first, (first + 2) % 4)), rng,
                      keep=(SMALL_JOKER, BIG_JOKER))
        for suit in "SHCD":
            for _ in range(2):
                move_card(hands, suit + level, rng.choice(((first + 1) % 4, (first + 3) % 4)),
                          rng, keep=(suit + level,))
    assert sorted(sum(hands, [])) == sorted(DECK) and all(len(h) == 27 for h in hands)
    return hands, rig


# ------------------------------------------------------------------ sec. 2

def test_sec2_reference_card_order_matches_engine():
    """RULES 2: the card order at every level ("2 .. A with L taken out, then L, then small
    joker, then big joker") is the same in the reference and in match.card_order."""
    assert order_at("7")[-5:] == ["K", "A", "7", SMALL_JOKER, BIG_JOKER]
    for lv in range(13):
        level = RANKS[lv]
        for kind in range(54):
            assert card_order(kind, lv) == strength(format_card(kind), level), (kind, level)


# ------------------------------------------------------------------ sec. 8: cards

def test_sec8_tribute_and_return_cards_of_random_hands():
    """RULES 8: the tribute is a highest card, never a wild (a big joker may be given); the
    return is a card of rank 10 or lower that is not a level card, else a lowest card.
    tribute_card / is_valid_tribute / allowed_returns / return_card / is_valid_return on
    random hands of 1 to 28 cards (many made of high cards only) against the reference's
    sets of legal cards. Open points (the reference's OPEN_POINTS): among equal cards the
    engine gives the first in suit order S H C D, lists allowed returns lowest first (card
    order, then suit order) and returns the first of them by default."""
    rng = random.Random(8008)
    seen = Counter()
    high_pool = {lv: [c for c in DECK if c in (SMALL_JOKER, BIG_JOKER) or c[1] in "JQKA"
                      or c[1] == RANKS[lv]] for lv in range(13)}
    for case in range(3000):
        lv = rng.randrange(13)
        level = RANKS[lv]
        pool = high_pool[lv] if case % 3 == 0 else DECK
        hand = rng.sample(pool, rng.randint(1, 28))
        counts = counts_of(hand)
        # --- tribute
        legal = legal_tributes(hand, level)
        if not legal:           # only wilds: nothing can be given
            with pytest.raises(ValueError, match="holds no card that can be given as tribute"):
                tribute_card(counts, lv)
            seen["tribute impossible"] += 1
        else:
            got = format_card(tribute_card(counts, lv))
            assert got in legal, (hand, level, got, legal)
            assert got == suit_first(legal)               # documented choice
            seen["tribute tie of suits"] += len(set(legal)) > 1
            seen["tribute big joker"] += got == BIG_JOKER
            wild = "H" + level
            if wild in hand and max(strength(c, level) for c in hand) == strength(wild, level):
                seen["wild skipped"] += 1
        for kind in range(54):
            card = format_card(kind)
            assert is_valid_tribute(counts, kind, lv) == (card in legal), (hand, level, card)
        # --- return
        rlegal = legal_returns(hand, level)
        allowed = [format_card(k) for k in allowed_returns(counts, lv)]
        assert len(allowed) == len(set(allowed)) and set(allowed) == rlegal, \
            (hand, level, allowed, rlegal)
        assert allowed == lowest_first(rlegal, level)      # documented order
        assert format_card(return_card(counts, lv)) == allowed[0]
        for kind in range(54):
            card = format_card(kind)
            assert is_valid_return(counts, kind, lv) == (card in rlegal), (hand, level, card)
        low = [c for c in hand if c not in (SMALL_JOKER, BIG_JOKER) and c[1] in "23456789T"]
        seen["return fallback"] += not any(not is_level_card(c, level) for c in low)
        seen["return level card refused"] += any(is_level_card(c, level) for c in low) and \
            any(not is_level_card(c, level) for c in low)
        seen["return choice"] += len(rlegal) > 1
    for what in ("tribute tie of suits", "tribute big joker", "wild skipped",
                 "return fallback", "return level card refused", "return choice"):
        assert seen[what] >= 30, (what, seen)


# ------------------------------------------------------------------ sec. 8, 9: tribute

def _random_match_rules(rng):
    return MatchRules(win_at_a=rng.choice(WIN_AT_A), fail_at_a=rng.choice(FAIL_AT_A),
                      tribute=rng.random() < 0.85,
                      tribute_first_last=rng.random() < 0.6,
                      lead_after_tribute=rng.choice(LEAD))


def test_sec8_sec9_plan_tribute_against_reference():
    """RULES 8, 9: for a random finishing order of the previous hand, a random deal and
    level and random options: the tribute kind (none, single, double, resisted), who pays
    whom (double loss: the higher card to the first player, the seat after the first
    player on equal cards), that each card paid is a highest non-wild card, the allowed
    returns (exactly the reference's set, given to a chooser) and the return made, who
    leads (the payer of the first player, or the first player with the option "first" or
    with no tribute), and the hands after apply_tribute."""
    rng = random.Random(20240817)
    seen = Counter()
    n = 3000
    for case in range(n):
        lv = rng.randrange(13)
        level = RANKS[lv]
        prev = rng.choice(ORDERS)
        rules = _random_match_rules(rng)
        opts = ref_options(rules)
        dealt, rig = random_deal(rng, level, prev)
        counts = [counts_of(h) for h in dealt]
        chooser_calls = []
        use_chooser = case % 2 == 1

        def chooser(receiver, payer, now, allowed):
            chooser_calls.append((receiver, payer, [format_card(k) for k in allowed]))
            return allowed[rng.randrange(len(allowed))]

        plan = plan_tribute(prev, counts, lv, rules, chooser if use_chooser else None)
        ref = ref_tribute(prev, dealt, level, opts)
        where = (case, prev, level, rules, rig)
        assert plan.leader == ref.leader, where
        if ref.kind == "none":
            assert plan.kind == "none" and plan.payments == [] and plan.returns == [] \
                and plan.resisted is None, where
        elif ref.kind == "resisted":
            assert plan.kind == ref.loss and sorted(plan.resisted) == sorted(ref.payers), where
            assert plan.payments == [] and plan.returns == [], where
            seen["resisted " + ref.loss] += 1
        else:
            assert plan.kind == ref.kind and plan.resisted is None, where
            assert len(plan.payments) == len(ref.payments), where
            paid = []
            for (payer, receiver, kind), (rpayer, rreceiver, rlegal) in \
                    zip(plan.payments, ref.payments):
                card = format_card(kind)
                assert (payer, receiver) == (rpayer, rreceiver), where
                assert card in rlegal, (where, card, rlegal)
                assert card == suit_first(rlegal), where          # documented choice
                paid.append((payer, receiver, card))
            expected_returns = ref_returns(paid, dealt, level)
            assert len(plan.returns) == len(expected_returns), where
            for (receiver, payer, kind), (rreceiver, rpayer, rlegal) in \
                    zip(plan.returns, expected_returns):
                card = format_card(kind)
                assert (receiver, payer) == (rreceiver, rpayer), where
                assert card in rlegal, (where, card, rlegal)
                if not use_chooser:
                    assert card == lowest_first(rlegal, level)[0], where   # documented
                seen["return fallback"] += not any(
                    c[1] in "23456789T" and c[1] != level for c in rlegal
                    if c not in (SMALL_JOKER, BIG_JOKER))
                seen["return choice"] += len(rlegal) > 1
            if use_chooser:
                assert [(r, p) for r, p, _ in chooser_calls] == \
                    [(r, p) for r, p, _ in expected_returns], where
                for (_, _, allowed), (_, _, rlegal) in zip(chooser_calls, expected_returns):
                    assert allowed == lowest_first(rlegal, level), where
                seen["chooser"] += 1
            if ref.kind == "double":
                a, b = ref.payers
                tops = {p: max(strength(c, level) for c in legal_tributes(dealt[p], level))
                        for p in (a, b)}
                seen["double tie" if tops[a] == tops[b] else "double higher"] += 1
                seen["double tie payer after first"] += \
                    tops[a] == tops[b] and plan.payments[0][0] == (prev[0] + 1) % 4
                seen["double higher not seat after first"] += \
                    tops[a] != tops[b] and plan.payments[0][0] != (prev[0] + 1) % 4
            if any(("H" + level) in dealt[p]
                   and max(strength(c, level) for c in dealt[p]) == strength("H" + level, level)
                   for p, _, _ in plan.payments):
                seen["wild not given"] += 1
            seen["big joker given"] += any(c == BIG_JOKER for _, _, c in paid)
            # the hands after the tribute and the returns (sec. 8)
            after = apply_tribute(plan, counts)
            expected = [list(h) for h in dealt]
            for giver, taker, card in paid + [(r, p, format_card(k))
                                              for r, p, k in plan.returns]:
                expected[giver].remove(card)
                expected[taker].append(card)
            assert [sorted(cards_of(a)) for a in after] == \
                [sorted(e) for e in expected], where
            assert all(len(e) == 27 for e in expected)
        seen["kind " + ref.kind] += 1
        seen["partner place %d" % partner_place(prev)] += 1
        seen["rig " + rig] += 1
        seen["lead " + rules.lead_after_tribute] += 1
        seen["tribute %s" % rules.tribute] += 1
        seen["first-last %s" % rules.tribute_first_last] += 1
        seen["first-last paid"] += ref.kind == "single" and partner_place(prev) == 4
        seen["first-last refused"] += rules.tribute and not rules.tribute_first_last \
            and partner_place(prev) == 4
        seen["leader not first"] += ref.leader != prev[0]
    print(dict(seen))
    for kind in ("none", "single", "double", "resisted"):
        assert seen["kind " + kind] >= 100, seen
    for what in ("resisted single", "resisted double", "double tie", "double higher",
                 "double tie payer after first", "double higher not seat after first",
                 "return fallback", "return choice", "chooser", "wild not given",
                 "big joker given", "first-last paid", "first-last refused",
                 "leader not first", "rig jokers to winners", "rig high receiver",
                 "rig wilds to losers", "lead payer", "lead first", "tribute True",
                 "tribute False", "first-last True", "first-last False",
                 "partner place 2", "partner place 3", "partner place 4"):
        assert seen[what] >= 20, (what, seen)


# ------------------------------------------------------------------ sec. 6, 8, 9: levels

def _random_state(rng, rules):
    """Team levels, failures at A and the hand's level, as they can occur in a match:
    failures only for a team at A, fewer than the drop count; the hand at one of the
    two levels (sec. 8)."""
    def level():
        r = rng.random()
        return ACE if r < 0.4 else rng.choice("JQK") if r < 0.6 else rng.choice(RANKS)
    levels = [level(), level()]
    failures = [0, 0]
    for t in (0, 1):
        if levels[t] == ACE:
            limit = rules.fail_at_a - 1 if rules.fail_at_a else 4
            failures[t] = rng.randint(0, limit)
    hand_level = rng.choice(levels)
    return levels, failures, hand_level


def test_sec6_sec8_sec9_settle_hand_against_reference():
    """RULES 6, 8, 9: after a hand, the winners go up 3 / 2 / 1 (partner 2nd / 3rd / last),
    levels stop at A, a team at A playing at A wins the game with the partner 2nd or 3rd
    (or 2nd only, or any win), failed hands at A and the drop to 2 after 2 or 3 of them
    (or no penalty): new levels, failures, gain and match winner for random reachable
    states, every finishing order and every value of win_at_a and fail_at_a.
    Open points (reference OPEN_POINTS "failed hand", "drop", "gain"): a failed hand is a
    hand at A by a team at A that does not win the game with it, for both teams at once;
    failures are counted also with fail_at_a 0; the drop comes after the rise; the gain is
    the uncapped 3 / 2 / 1."""
    rng = random.Random(99)
    seen = Counter()
    n = 20000
    for case in range(n):
        rules = MatchRules(win_at_a=WIN_AT_A[case % 3], fail_at_a=FAIL_AT_A[(case // 3) % 3])
        opts = ref_options(rules)
        levels, failures, hand_level = _random_state(rng, rules)
        order = rng.choice(ORDERS)
        got = settle_hand([RANKS.index(x) for x in levels], list(failures),
                          RANKS.index(hand_level), order, rules)
        got = ([RANKS[x] for x in got[0]], list(got[1]), got[2], got[3])
        want = ref_settle(levels, failures, hand_level, order, opts)
        assert got == tuple(want), \
            (case, levels, failures, hand_level, order, rules.win_at_a, rules.fail_at_a,
             got, want)
        new_levels, new_failures, gain, winner = want
        place = partner_place(order)
        team = team_of(order[0])
        seen["win_at_a %s" % rules.win_at_a] += 1
        seen["fail_at_a %s" % rules.fail_at_a] += 1
        seen["gain %d" % gain] += 1
        if winner is not None:
            seen["game won %s place %d" % (rules.win_at_a, place)] += 1
        at_a = hand_level == ACE and levels[team] == ACE
        if at_a and winner is None:
            seen["win at A refused %s place %d" % (rules.win_at_a, place)] += 1
        for t in (0, 1):
            if new_failures[t] > failures[t]:
                seen["failure counted %s" % rules.fail_at_a] += 1
            if levels[t] == ACE and new_levels[t] == "2":
                seen["drop %s" % rules.fail_at_a] += 1
                seen["drop of hand winners"] += t == team
                seen["drop of other team on game win"] += winner is not None and t != team
        seen["capped at A"] += levels[team] != ACE and new_levels[team] == ACE and \
            RANKS.index(levels[team]) + gain > 12
        seen["A team at other level"] += ACE in levels and hand_level != ACE
        seen["both at A"] += levels == [ACE, ACE]
    print(dict(seen))
    for what in ("gain 1", "gain 2", "gain 3", "capped at A", "A team at other level",
                 "both at A", "failure counted 0", "failure counted 2", "failure counted 3",
                 "drop 2", "drop 3", "drop of hand winners", "drop of other team on game win",
                 "game won 2nd-or-3rd place 2", "game won 2nd-or-3rd place 3",
                 "game won 2nd-only place 2", "game won any place 2", "game won any place 3",
                 "game won any place 4", "win at A refused 2nd-or-3rd place 4",
                 "win at A refused 2nd-only place 3", "win at A refused 2nd-only place 4"):
        assert seen[what] >= 20, (what, seen)
    for bad in ("game won 2nd-or-3rd place 4", "game won 2nd-only place 3",
                "game won 2nd-only place 4", "drop 0"):
        assert seen[bad] == 0, (bad, seen)


# ------------------------------------------------------------------ played matches

OPTION_GRID = list(itertools.product(WIN_AT_A, FAIL_AT_A, (True, False), (True, False),
                                     LEAD, ("random", "D7")))


@pytest.mark.parametrize("chunk", range(4))
def test_sec8_sec9_played_matches_against_reference(chunk):
    """RULES 8, 9: matches played by the engine (Match.play_hand, greedy against random
    players) under every combination of the sec. 9 match options, hand by hand against
    the reference match: each hand's level (the level of the team that won the last
    hand, 2 in a new match), its tribute, resistance and returns (legal for the chooser's
    choice, RandomPlayer choosing), its leader (the agreed card's holder in a first hand),
    and after it the levels, failures at A, gain and match winner. Open points (reference
    OPEN_POINTS "new match", "first leader card"): after a won game a new match starts at
    2 with no tribute; two holders of the agreed card: the first in seat order leads."""
    seen = Counter()
    # four chunks, each with both first-leader values (the last factor of the grid)
    grid = [g for j, g in enumerate(OPTION_GRID) if (j // 2) % 4 == chunk]
    for i, (win, fail, trib, first_last, lead, leader) in enumerate(grid):
        rules = MatchRules(core=Rules.platform() if i % 3 == 0 else Rules.standard(),
                           win_at_a=win, fail_at_a=fail, tribute=trib,
                           tribute_first_last=first_last, lead_after_tribute=lead,
                           first_leader=leader)
        opts = ref_options(rules)
        strong = i % 2            # the greedy team, so that levels reach A
        players = [GreedyPlayer() if s % 2 == strong else RandomPlayer(1000 * chunk + 10 * i + s)
                   for s in range(4)]
        events = []
        match = Match(players, rules, seed=100 * chunk + i, on_event=events.append)
        ref = RefMatch(opts)
        for _ in range(30):
            events.clear()
            result = match.play_hand()
            deal_event = next(e for e in events if e["event"] == "deal")
            dealt = deal_event["hands"]
            hand = ref.before_hand(dealt)
            where = (rules, result.number, result.match)
            assert deal_event["level"] == result.level == hand.level, where
            pre = []
            for e in events:
                if e["event"] == "play":
                    break
                if e["event"] in ("tribute", "return", "resist"):
                    pre.append(e)
            first_play = next(e for e in events if e["event"] == "play")
            assert first_play["seat"] == result.leader, where
            t = hand.tribute
            if t.leader is None:          # a first hand with a random first leader
                assert t.kind == "none" and result.leader in range(4), where
            else:
                assert result.leader == t.leader, where
            if t.kind == "none":
                assert pre == [] and result.tribute.kind == "none", where
            elif t.kind == "resisted":
                assert len(pre) == 1 and pre[0]["event"] == "resist", where
                assert sorted(pre[0]["seats"]) == sorted(t.payers), where
            else:
                tributes = [e for e in pre if e["event"] == "tribute"]
                returns = [e for e in pre if e["event"] == "return"]
                assert [(e["from"], e["to"]) for e in tributes] == \
                    [(p, r) for p, r, _ in t.payments], where
                for e, (_, _, legal) in zip(tributes, t.payments):
                    assert e["card"] in legal, (where, e, legal)
                paid = [(e["from"], e["to"], e["card"]) for e in tributes]
                expected = ref_returns(paid, dealt, hand.level)
                assert [(e["from"], e["to"]) for e in returns] == \
                    [(r, p) for r, p, _ in expected], where
                for e, (_, _, legal) in zip(returns, expected):
                    assert e["card"] in legal, (where, e, legal)
                    seen["return not lowest"] += \
                        e["card"] != lowest_first(legal, hand.level)[0]
            end = next(e for e in events if e["event"] == "end")
            order = tuple(end["order"])
            assert order == result.order, where
            ref.after_hand(hand, order)
            assert end["levels"] == hand.levels and list(result.levels) == \
                [RANKS.index(x) for x in hand.levels], (where, end, hand)
            assert result.winner == end["winner"] == hand.winner, (where, end, hand)
            assert result.gain == hand.gain, where
            assert result.outcome == finishing_outcome(order) == \
                (hand.gain if team_of(order[0]) == 0 else -hand.gain), where
            assert list(match.failures) == hand.failures, (where, match.failures, hand)
            seen["hands"] += 1
            seen["tribute " + t.kind] += 1
            seen["hand at A"] += hand.level == ACE
            seen["won"] += hand.winner is not None
            seen["failed at A"] += any(f > 0 for f in hand.failures)
            seen["first hand, agreed card"] += leader != "random" and t.kind == "none" \
                and result.tribute.kind == "none" and not pre and t.payers == ()
    print(dict(seen))
    assert seen["hands"] == 30 * len(grid)
    for what in ("tribute none", "tribute single", "tribute double", "hand at A", "won",
                 "failed at A"):
        assert seen[what] >= 5, (what, seen)
    assert seen["tribute resisted"] >= 1 and seen["first hand, agreed card"] >= 1, seen
    assert seen["return not lowest"] >= 1, seen       # RandomPlayer chose its returns
