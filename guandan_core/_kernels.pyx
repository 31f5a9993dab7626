# cython: language_level=3, cdivision=True
# boundscheck, wraparound and initializedcheck are set by the build (setup.py, CMakeLists.txt):
# off for release builds, on for debug builds.
"""Compiled move kernels: enumerate every legal combination of a hand, wild-card aware.

The kernels (``gd_*``) are ``noexcept nogil`` C functions over C arrays, declared in
``_kernels.pxd``. The ``py_*`` functions at the bottom are thin typed wrappers that the
Python layer (``moves.py``) calls; it validates the values (cards, levels, moves), and the
wrappers check only what would make a kernel read or write out of bounds (array lengths
and alignment), with a ValueError.

How the enumeration avoids duplicates: the wild cards are taken out of the hand first, so
"natural" cards never include a wild. A move is then natural cards chosen per rank plus a
number of wilds filling the ranks (or, for straight flushes, the exact cards) still
missing. For one reading (type and key) the multiset of cards fixes the naturals of every
rank, so each (cards, reading) is produced once; the one exception, a full house whose
pair is two wilds (any pair rank gives the same cards), is emitted once.
"""

from libc.stdint cimport uint8_t, int16_t, int32_t, int64_t, uintptr_t
from libc.string cimport memset, memcpy

cimport cython

# --------------------------------------------------------------------------------------
# Tables of suit sub-multisets.
#
# The natural cards of one rank are four counts (S H C D), each 0..2: code = sum c_i 3^i,
# 81 codes. For every code and size k we list every distinct sub-multiset of that size,
# as the suits of its cards in ascending order. 1296 sub-multisets in all.

cdef enum:
    MAX_SUBS = 1296

cdef uint8_t SUB_SUITS[MAX_SUBS][8]
cdef uint8_t SUB_SIZE[MAX_SUBS]
cdef int16_t SUB_START[81][10]   # first sub-multiset of size k for code c
cdef int16_t SUB_END[81][10]


cdef void _build_tables() noexcept nogil:
    cdef int code, k, idx = 0, a0, a1, a2, a3, n, s, c0, c1, c2, c3, t
    for code in range(81):
        c0 = code % 3
        c1 = (code // 3) % 3
        c2 = (code // 9) % 3
        c3 = (code // 27) % 3
        for k in range(10):
            SUB_START[code][k] = idx
            for a0 in range(c0 + 1):
                for a1 in range(c1 + 1):
                    for a2 in range(c2 + 1):
                        for a3 in range(c3 + 1):
                            if a0 + a1 + a2 + a3 != k:
                                continue
                            n = 0
                            for t in range(a0):
                                SUB_SUITS[idx][n] = 0
                                n += 1
                            for t in range(a1):
                                SUB_SUITS[idx][n] = 1
                                n += 1
                            for t in range(a2):
                                SUB_SUITS[idx][n] = 2
                                n += 1
                            for t in range(a3):
                                SUB_SUITS[idx][n] = 3
                                n += 1
                            SUB_SIZE[idx] = n
                            idx += 1
            SUB_END[code][k] = idx


_build_tables()

# --------------------------------------------------------------------------------------
# Enumeration state

# A component is what one rank contributes to a combination: some natural cards of that
# rank plus some wilds standing for it, in order of increasing wilds. Full houses and
# sequences are built from the component lists of each rank, prepared once per call.
ctypedef struct comp_t:
    uint8_t rank
    uint8_t nnat
    uint8_t nwild
    uint8_t suit_bit       # width-1 components: bit of the natural card's suit, 0 for a wild
    uint8_t cards[3]


ctypedef struct gen_t:
    gd_move_t* out
    int n
    int cap
    int overflow
    # gd_classify: only moves of exactly this many cards are kept (0: every move). Each
    # record is judged when the next is claimed (it is filled by then); a rejected one's
    # place is reused, and `spare` takes a record that finds the buffer full until judged
    int exact_ncards
    gd_move_t* last
    gd_move_t spare
    int level
    int wilds              # wild cards in the hand (0..2)
    int wild_kind
    const gd_rules_t* rules
    uint8_t nat[54]        # hand without its wild cards
    uint8_t code[13]       # suit-count code per rank, naturals only
    uint8_t rank_nat[13]   # natural cards per rank
    # follow filter: which types to produce and the key / ncards they must beat
    uint8_t want[11]
    int min_key            # produced non-bomb keys must exceed this
    int need_ncards        # non-bombs must have this many cards (0: any)
    int min_power          # produced bomb powers must exceed this
    comp_t comps[3][13][32]   # per width 1..3 and rank: the components, fewest wilds first
    uint8_t ncomps[3][13]
    uint8_t comps_ready[3]


cdef inline int _order(int rank, int level) noexcept nogil:
    # card order of RULES sec. 2: natural order with the level rank lifted above A
    return 13 if rank == level else rank


cdef int gd_abi_version() noexcept nogil:
    return GD_ABI_VERSION


cdef int gd_card_order(int rank, int level) noexcept nogil:
    if rank == 13:
        return 14
    if rank == 14:
        return 15
    return _order(rank, level)


cdef inline int _bomb_class(int ncards) noexcept nogil:
    # 4 < 5 < straight flush (class 2) < 6 < 7 < 8 < 9 < 10 < joker bomb (class 8)
    if ncards == 4:
        return 0
    if ncards == 5:
        return 1
    return ncards - 3


cdef inline int _pos_rank(int pos) noexcept nogil:
    # sequence position 0 is the ace played low, 1..13 are 2..A
    return 12 if pos == 0 else pos - 1


cdef bint gd_is_bomb(const gd_move_t* move) noexcept nogil:
    return move.type >= GD_STRAIGHT_FLUSH


cdef bint gd_beats(const gd_move_t* a, const gd_move_t* b) noexcept nogil:
    if a.type == GD_PASS or b.type == GD_PASS:
        return False
    cdef bint a_bomb = a.type >= GD_STRAIGHT_FLUSH
    cdef bint b_bomb = b.type >= GD_STRAIGHT_FLUSH
    if a_bomb:
        return (not b_bomb) or a.key > b.key
    if b_bomb:
        return False
    return a.type == b.type and a.ncards == b.ncards and a.key > b.key


cdef void _judge_last(gen_t* g) noexcept nogil:
    # (exact_ncards) drop the last record claimed unless it has the number of cards wanted;
    # a wanted one that found the buffer full is an overflow
    if g.last == NULL:
        return
    if g.last.ncards != g.exact_ncards:
        if g.last != &g.spare:
            g.n -= 1
    elif g.last == &g.spare:
        g.overflow = 1
    g.last = NULL


cdef gd_move_t* _claim_exact(gen_t* g) noexcept nogil:
    _judge_last(g)
    if g.n < g.cap:
        g.n += 1
        g.last = &g.out[g.n - 1]
    else:
        g.last = &g.spare
    return g.last


cdef inline gd_move_t* _claim(gen_t* g) noexcept nogil:
    # the next output record, or NULL (and the overflow flag) when the buffer is full
    if g.exact_ncards:
        return _claim_exact(g)
    if g.n >= g.cap:
        g.overflow = 1
        return NULL
    g.n += 1
    return &g.out[g.n - 1]


cdef inline gd_move_t* _new_move(gen_t* g, int mtype, int label, int key) noexcept nogil:
    cdef gd_move_t* m = _claim(g)
    if m == NULL:
        return NULL
    memset(m, 0, sizeof(gd_move_t))   # unused bytes are zero: records compare and hash exactly
    m.type = mtype
    m.label = label
    m.key = key
    return m


cdef inline void _add_sub(gd_move_t* m, int sub, int rank) noexcept nogil:
    cdef int i, base = rank * 4, size = SUB_SIZE[sub]
    for i in range(size):
        m.cards[m.ncards + i] = base + SUB_SUITS[sub][i]
    m.ncards += size


cdef inline void _add_wilds(gd_move_t* m, gen_t* g, int count, int stands_for) noexcept nogil:
    cdef int i
    for i in range(count):
        m.cards[m.ncards] = g.wild_kind
        m.ncards += 1
        # (a move holds at most the two wild cards there are: "& 1" tells the compiler
        # so, which otherwise warns of a write past wild_as[2] on every build)
        m.wild_as[m.nwild & 1] = stands_for
        m.nwild += 1


# ---------------------------------------------------------------- singles, pairs, trips

cdef void _gen_singles(gen_t* g) noexcept nogil:
    cdef int k, r, key
    cdef gd_move_t* m
    for k in range(52):
        if g.nat[k]:
            r = k >> 2
            key = _order(r, g.level)
            if key > g.min_key:
                m = _new_move(g, GD_SINGLE, r, key)
                if m == NULL:
                    return
                m.cards[0] = k
                m.ncards = 1
    for k in range(2):
        if g.nat[52 + k] and 14 + k > g.min_key:
            m = _new_move(g, GD_SINGLE, 13 + k, 14 + k)
            if m == NULL:
                return
            m.cards[0] = 52 + k
            m.ncards = 1
    if g.wilds and _order(g.level, g.level) > g.min_key:
        # a lone wild is read at face value (RULES sec. 3)
        m = _new_move(g, GD_SINGLE, g.level, _order(g.level, g.level))
        if m == NULL:
            return
        _add_wilds(m, g, 1, g.wild_kind)


cdef void _gen_same_rank(gen_t* g, int mtype, int size) noexcept nogil:
    # pairs (size 2) and triples (size 3) of ranks 2..A, with up to `size - 1` wilds
    cdef int r, j, sub, key, code
    cdef gd_move_t* m
    for r in range(13):
        key = _order(r, g.level)
        if key <= g.min_key:
            continue
        code = g.code[r]
        for j in range(min(g.wilds, size - 1) + 1):
            for sub in range(SUB_START[code][size - j], SUB_END[code][size - j]):
                m = _new_move(g, mtype, r, key)
                if m == NULL:
                    return
                _add_sub(m, sub, r)
                _add_wilds(m, g, j, GD_WILD_ANY_SUIT + r)
        if mtype == GD_PAIR and r == g.level and g.wilds == 2:
            # two wilds alone are a pair of the level rank, at face value
            m = _new_move(g, mtype, r, key)
            if m == NULL:
                return
            _add_wilds(m, g, 2, g.wild_kind)
    if mtype == GD_PAIR:
        for j in range(2):
            if g.nat[52 + j] == 2 and 14 + j > g.min_key:
                m = _new_move(g, GD_PAIR, 13 + j, 14 + j)
                if m == NULL:
                    return
                m.cards[0] = 52 + j
                m.cards[1] = 52 + j
                m.ncards = 2


# ---------------------------------------------------------------- components

cdef int _components(gen_t* g, int rank, int width, int max_wild, comp_t* out) noexcept nogil:
    # every way for `rank` to supply `width` cards with at most `max_wild` wilds
    cdef int j, sub, n = 0, i, code = g.code[rank]
    for j in range(min(max_wild, width) + 1):
        for sub in range(SUB_START[code][width - j], SUB_END[code][width - j]):
            out[n].rank = rank
            out[n].nnat = width - j
            out[n].nwild = j
            out[n].suit_bit = (1 << SUB_SUITS[sub][0]) if width - j == 1 else 0
            for i in range(width - j):
                out[n].cards[i] = rank * 4 + SUB_SUITS[sub][i]
            n += 1
    return n


cdef void _prepare_components(gen_t* g, int width) noexcept nogil:
    cdef int r
    if g.comps_ready[width - 1]:
        return
    for r in range(13):
        g.ncomps[width - 1][r] = _components(g, r, width, g.wilds, g.comps[width - 1][r])
    g.comps_ready[width - 1] = 1


cdef inline void _put_comp(gd_move_t* m, const comp_t* c) noexcept nogil:
    cdef int i
    for i in range(c.nnat):
        m.cards[m.ncards + i] = c.cards[i]
    m.ncards += c.nnat


# ---------------------------------------------------------------- full houses

cdef void _gen_full_houses(gen_t* g) noexcept nogil:
    cdef int ntriples, t, p, a, b, key, jk, first_p, w, pair_wild
    cdef gd_move_t* m
    cdef const comp_t* tc
    cdef const comp_t* pc
    _prepare_components(g, 2)
    _prepare_components(g, 3)
    for t in range(13):
        key = _order(t, g.level)
        if key <= g.min_key:
            continue
        first_p = 1 if t == 0 else 0   # any rank but t, for the record of a two-wild pair
        ntriples = g.ncomps[2][t]
        for a in range(ntriples):
            tc = &g.comps[2][t][a]
            w = g.wilds - tc.nwild
            # pairs of a natural rank with at most one wild; two wilds are handled apart
            pair_wild = min(w, 1)
            for p in range(13):
                if p == t:
                    continue
                for b in range(g.ncomps[1][p]):
                    pc = &g.comps[1][p][b]
                    if pc.nwild > pair_wild:
                        break
                    m = _new_move(g, GD_THREE_WITH_TWO, t, key)
                    if m == NULL:
                        return
                    if p < t:
                        _put_comp(m, pc)
                        _put_comp(m, tc)
                    else:
                        _put_comp(m, tc)
                        _put_comp(m, pc)
                    _add_wilds(m, g, tc.nwild, GD_WILD_ANY_SUIT + t)
                    _add_wilds(m, g, pc.nwild, GD_WILD_ANY_SUIT + p)
            # a joker pair
            for jk in range(2):
                if g.nat[52 + jk] == 2:
                    m = _new_move(g, GD_THREE_WITH_TWO, t, key)
                    if m == NULL:
                        return
                    _put_comp(m, tc)
                    m.cards[m.ncards] = 52 + jk
                    m.cards[m.ncards + 1] = 52 + jk
                    m.ncards += 2
                    _add_wilds(m, g, tc.nwild, GD_WILD_ANY_SUIT + t)
            # a pair of two wilds: whatever rank they stand for, the cards are the same
            if w == 2:
                m = _new_move(g, GD_THREE_WITH_TWO, t, key)
                if m == NULL:
                    return
                _put_comp(m, tc)
                _add_wilds(m, g, 2, GD_WILD_ANY_SUIT + first_p)


# ---------------------------------------------------------------- bombs

cdef void _gen_bombs(gen_t* g) noexcept nogil:
    cdef int r, n, j, sub, power, top
    cdef gd_move_t* m
    for r in range(13):
        top = g.rank_nat[r] + g.wilds
        if top > 10:
            top = 10
        for n in range(4, top + 1):
            power = _bomb_class(n) * 32 + _order(r, g.level)
            if power <= g.min_power:
                continue
            for j in range(min(g.wilds, n - 1) + 1):
                if n - j > g.rank_nat[r]:
                    continue
                for sub in range(SUB_START[g.code[r]][n - j], SUB_END[g.code[r]][n - j]):
                    m = _new_move(g, GD_BOMB, r, power)
                    if m == NULL:
                        return
                    _add_sub(m, sub, r)
                    _add_wilds(m, g, j, GD_WILD_ANY_SUIT + r)
    if g.nat[52] == 2 and g.nat[53] == 2 and 8 * 32 > g.min_power:
        m = _new_move(g, GD_JOKER_BOMB, GD_LABEL_JOKER_BOMB, 8 * 32)
        if m == NULL:
            return
        m.cards[0] = 52
        m.cards[1] = 52
        m.cards[2] = 53
        m.cards[3] = 53
        m.ncards = 4


# ---------------------------------------------------------------- sequences

ctypedef struct seq_t:
    int mtype
    int width          # cards per rank: 1 straight, 2 tube, 3 plate
    int length         # number of ranks
    bint sf_check      # five natural cards of one suit are not a straight (RULES sec. 4)
    const comp_t* opts[14]   # per rank slot, in the order the cards are written
    int nopts[14]
    uint8_t wild_as[2]
    gd_move_t tmp      # the record being built


cdef void _sequence_rec(gen_t* g, seq_t* s, int depth, int wilds_left, int suit_mask) noexcept nogil:
    cdef int i, k, ncards = s.tmp.ncards, nwild = s.tmp.nwild
    cdef const comp_t* c
    cdef gd_move_t* m
    if depth == s.length:
        if s.sf_check and nwild == 0 and (suit_mask & (suit_mask - 1)) == 0:
            return
        m = _claim(g)
        if m == NULL:
            return
        m[0] = s.tmp
        for i in range(nwild):
            m.cards[m.ncards + i] = g.wild_kind
            m.wild_as[i] = s.wild_as[i]
        m.ncards += nwild
        return
    for k in range(s.nopts[depth]):
        c = &s.opts[depth][k]
        if c.nwild > wilds_left:
            continue
        for i in range(c.nnat):
            s.tmp.cards[ncards + i] = c.cards[i]
        s.tmp.ncards = ncards + c.nnat
        for i in range(c.nwild):
            s.wild_as[nwild + i] = GD_WILD_ANY_SUIT + c.rank
        s.tmp.nwild = nwild + c.nwild
        _sequence_rec(g, s, depth + 1, wilds_left - c.nwild, suit_mask | c.suit_bit)
    s.tmp.ncards = ncards
    s.tmp.nwild = nwild


cdef bint _sequence_possible(gen_t* g, int start, int length, int width) noexcept nogil:
    # quick reject: too few naturals for the wilds we have
    cdef int q, r, missing = 0, have
    for q in range(length):
        r = _pos_rank(start + q)
        have = g.rank_nat[r]
        if have < width:
            missing += width - have
            if missing > g.wilds:
                return False
    return True


cdef void _gen_sequences(gen_t* g, int mtype, int width, int min_len, int max_len) noexcept nogil:
    cdef seq_t s
    cdef int length, start, q, r, slot
    cdef bint skip
    _prepare_components(g, width)
    s.mtype = mtype
    s.width = width
    for length in range(min_len, max_len + 1):
        if length * width > 10:
            # a move holds at most 10 cards (the largest bomb); longer sequences of the
            # long-sequences option are not played (documented in docs/API.md)
            break
        if g.need_ncards and length * width != g.need_ncards:
            continue
        for start in range(0, 14 - length + 1):
            if start == 0 and start + length - 1 == 13:
                continue
            if start + length - 1 <= g.min_key:
                continue
            if mtype == GD_STRAIGHT and g.rules.long_sequences:
                # long straights leave the level rank out (RULES sec. 9)
                skip = False
                for q in range(length):
                    if _pos_rank(start + q) == g.level:
                        skip = True
                if skip:
                    continue
            if not _sequence_possible(g, start, length, width):
                continue
            # slots in ascending kind order: an ace played low is the highest kind, so last
            slot = 0
            for q in range(length):
                if start + q == 0:
                    continue
                s.opts[slot] = g.comps[width - 1][start + q - 1]
                s.nopts[slot] = g.ncomps[width - 1][start + q - 1]
                slot += 1
            if start == 0:
                s.opts[slot] = g.comps[width - 1][12]
                s.nopts[slot] = g.ncomps[width - 1][12]
            memset(&s.tmp, 0, sizeof(gd_move_t))
            s.length = length
            s.sf_check = mtype == GD_STRAIGHT and length == 5 and g.rules.sf_is_bomb
            s.tmp.type = mtype
            s.tmp.label = _pos_rank(start)
            s.tmp.key = start + length - 1
            s.tmp.ncards = 0
            s.tmp.nwild = 0
            _sequence_rec(g, &s, 0, g.wilds, 0)
            if g.overflow:
                return


cdef void _gen_straight_flushes(gen_t* g) noexcept nogil:
    cdef int suit, start, q, r, power, mask, nw, bit, i
    cdef bint ok
    cdef int wild_ok
    cdef int have[5]
    cdef gd_move_t* m
    for suit in range(4):
        wild_ok = g.wilds if (g.rules.sf_wild_any_suit or suit == 1) else 0
        for start in range(10):
            power = 2 * 32 + start + 4
            if power <= g.min_power:
                continue
            nw = 0
            for q in range(5):
                r = _pos_rank(start + q)
                have[q] = g.nat[r * 4 + suit] > 0
                if not have[q]:
                    nw += 1
            if nw > wild_ok:
                continue
            # every subset of the present cards may be swapped for wilds, within the limit
            for mask in range(32):
                ok = True
                nw = 0
                for q in range(5):
                    bit = (mask >> q) & 1   # 1: this position is a wild
                    if bit:
                        nw += 1
                    elif not have[q]:
                        ok = False
                        break
                if not ok or nw > wild_ok:
                    continue
                m = _new_move(g, GD_STRAIGHT_FLUSH, _pos_rank(start), power)
                if m == NULL:
                    return
                for q in range(5):
                    if start + q == 0:
                        continue
                    if not (mask >> q) & 1:
                        m.cards[m.ncards] = (start + q - 1) * 4 + suit
                        m.ncards += 1
                if start == 0 and not (mask & 1):
                    m.cards[m.ncards] = 12 * 4 + suit
                    m.ncards += 1
                for q in range(5):
                    if (mask >> q) & 1:
                        _add_wilds(m, g, 1, _pos_rank(start + q) * 4 + suit)


# ---------------------------------------------------------------- entry points

cdef int _setup(gen_t* g, const uint8_t* hand, int level, const gd_rules_t* rules,
                gd_move_t* out, int capacity) noexcept nogil:
    cdef int k, r
    if level < 0 or level > 12:
        return GD_EBADLEVEL
    for k in range(54):
        if hand[k] > 2:
            return GD_EBADHAND
        g.nat[k] = hand[k]
    g.level = level
    g.rules = rules
    g.wild_kind = level * 4 + 1
    g.wilds = hand[g.wild_kind]
    g.nat[g.wild_kind] = 0
    for r in range(13):
        g.code[r] = g.nat[r * 4] + 3 * g.nat[r * 4 + 1] + 9 * g.nat[r * 4 + 2] + 27 * g.nat[r * 4 + 3]
        g.rank_nat[r] = g.nat[r * 4] + g.nat[r * 4 + 1] + g.nat[r * 4 + 2] + g.nat[r * 4 + 3]
    g.comps_ready[0] = g.comps_ready[1] = g.comps_ready[2] = 0
    g.out = out
    g.n = 0
    g.cap = capacity
    g.overflow = 0
    g.exact_ncards = 0
    g.last = NULL
    return GD_OK


# the number of cards a move of each type may hold: (fewest, most) with the standard
# sequences, then with long sequences (a move holds at most 10 cards); a bomb's type
# allows what its kind of bomb does
cdef int[11][4] _TYPE_NCARDS = [
    [0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3], [5, 5, 5, 5],
    [5, 5, 5, 10], [6, 6, 4, 10], [6, 6, 6, 9], [5, 5, 5, 5], [4, 10, 4, 10],
    [4, 4, 4, 4]]


cdef bint _beatable(const gd_move_t* beat, const gd_rules_t* rules) noexcept nogil:
    # whether `beat` can be a move on the table under `rules`: a known type the rules
    # have, with a card count (and wild cards) its type allows (the kernel reads only its
    # type, ncards, nwild and key)
    cdef int n = beat.ncards, lo, hi
    # (a rule flag is on when nonzero, as everywhere in the kernels: it picks a column,
    # never indexes with its own value)
    cdef int column = 2 if rules.long_sequences else 0
    if beat.type >= GD_NUM_TYPES:
        return False
    if beat.type == GD_STRAIGHT_FLUSH and not rules.sf_is_bomb:
        return False                # (no straight flushes under these rules)
    lo = _TYPE_NCARDS[beat.type][column]
    hi = _TYPE_NCARDS[beat.type][column + 1]
    if n < lo or n > hi or beat.nwild > 2 or beat.nwild > n:
        return False
    if beat.type == GD_JOKER_BOMB and beat.nwild:
        return False                # (jokers are never wild)
    if beat.type == GD_THREE_PAIR:
        return n % 2 == 0
    if beat.type == GD_TWO_TRIPS:
        return n % 3 == 0
    return True


cdef int gd_enumerate(const uint8_t* hand, int level, const gd_move_t* beat,
                      const gd_rules_t* rules, gd_move_t* out, int capacity) noexcept nogil:
    return _enumerate(hand, level, beat, rules, out, capacity, 0)


cdef int _enumerate(const uint8_t* hand, int level, const gd_move_t* beat,
                    const gd_rules_t* rules, gd_move_t* out, int capacity,
                    int exact_ncards) noexcept nogil:
    cdef gen_t g
    cdef gd_rules_t standard
    cdef int status, t
    cdef int max_straight = 5, max_tube = 3, max_plate = 2
    cdef int min_tube = 3, min_plate = 2
    if rules == NULL:
        # the standard rules, as the Python layer's rules=None
        _rules_from(&standard, 1, 1, 0)
        rules = &standard
    status = _setup(&g, hand, level, rules, out, capacity)
    if status != GD_OK:
        return status
    g.exact_ncards = exact_ncards
    memset(g.want, 0, sizeof(g.want))
    g.min_key = -1
    g.need_ncards = 0
    g.min_power = -1
    if beat == NULL or beat.type == GD_PASS:
        for t in range(1, GD_NUM_TYPES):
            g.want[t] = 1
    else:
        if not _beatable(beat, rules):
            return GD_EBADMOVE
        g.want[GD_BOMB] = 1
        g.want[GD_JOKER_BOMB] = 1
        g.want[GD_STRAIGHT_FLUSH] = 1
        if beat.type >= GD_STRAIGHT_FLUSH:
            g.min_power = beat.key
        else:
            g.want[beat.type] = 1
            g.min_key = beat.key
            g.need_ncards = beat.ncards
    if rules.long_sequences:
        max_straight = 13
        max_tube = 13
        max_plate = 13
        min_tube = 2
    if g.want[GD_SINGLE]:
        _gen_singles(&g)
    if g.want[GD_PAIR]:
        _gen_same_rank(&g, GD_PAIR, 2)
    if g.want[GD_TRIPS]:
        _gen_same_rank(&g, GD_TRIPS, 3)
    if g.want[GD_THREE_WITH_TWO]:
        _gen_full_houses(&g)
    if g.want[GD_STRAIGHT]:
        _gen_sequences(&g, GD_STRAIGHT, 1, 5, max_straight)
    if g.want[GD_THREE_PAIR]:
        _gen_sequences(&g, GD_THREE_PAIR, 2, min_tube, max_tube)
    if g.want[GD_TWO_TRIPS]:
        _gen_sequences(&g, GD_TWO_TRIPS, 3, min_plate, max_plate)
    # bombs: filters on keys no longer apply, only on bomb power
    g.min_key = -1
    g.need_ncards = 0
    if g.want[GD_BOMB]:
        _gen_bombs(&g)
    if g.want[GD_STRAIGHT_FLUSH] and rules.sf_is_bomb:
        _gen_straight_flushes(&g)
    if g.exact_ncards:
        _judge_last(&g)
    if g.overflow:
        return GD_EOVERFLOW
    return g.n


cdef int gd_classify(const uint8_t* cards, int level, const gd_rules_t* rules,
                     gd_move_t* out, int capacity) noexcept nogil:
    # every reading of exactly these cards: the moves of the cards as a hand that use them
    # all, the others dropped as they are made (so `out` needs room for the readings only)
    cdef int total = 0, k
    if level < 0 or level > 12:
        return GD_EBADLEVEL
    for k in range(54):
        if cards[k] > 2:
            return GD_EBADHAND
        total += cards[k]
    if total == 0 or total > 10:
        return 0        # no move plays no cards, or more than 10
    return _enumerate(cards, level, NULL, rules, out, capacity, total)


# --------------------------------------------------------------------------------------
# Typed wrappers for the Python layer. Arguments are validated there; the wrappers still
# check what a wrong call would turn into reads or writes out of bounds (lengths and
# record alignment, O(1)), so a mistake is a ValueError and not memory corruption.

cdef int _check_counts(const uint8_t[::1] counts, str what) except -1:
    if counts.shape[0] != 54:
        raise ValueError(f"{what}: 54 card counts, not {counts.shape[0]}")
    return 0


cdef const gd_move_t* _one_record(const uint8_t[::1] record, str what) except NULL:
    if record.shape[0] != sizeof(gd_move_t):
        raise ValueError(f"{what}: a move record is {sizeof(gd_move_t)} bytes, not "
                         f"{record.shape[0]}")
    if (<uintptr_t> &record[0]) % 2:
        raise ValueError(f"{what}: a move record starts at an even address (its int16 key)")
    return <const gd_move_t*> &record[0]


cdef gd_move_t* _out_records(uint8_t[::1] out_bytes) except? NULL:
    # NULL for an empty buffer (capacity 0: the kernels write nothing)
    if out_bytes.shape[0] == 0:
        return NULL
    if (<uintptr_t> &out_bytes[0]) % 2:
        raise ValueError("out: move records start at an even address (their int16 key)")
    return <gd_move_t*> &out_bytes[0]


cdef inline void _rules_from(gd_rules_t* r, int sf_is_bomb, int sf_wild_any_suit,
                             int long_sequences) noexcept nogil:
    r.sf_is_bomb = sf_is_bomb
    r.sf_wild_any_suit = sf_wild_any_suit
    r.long_sequences = long_sequences


def move_record_size():
    """Size in bytes of one move record (for checking the numpy dtype)."""
    return sizeof(gd_move_t)


def py_enumerate(const uint8_t[::1] hand, int level, beat, int sf_is_bomb,
                 int sf_wild_any_suit, int long_sequences, uint8_t[::1] out_bytes):
    """Fill ``out_bytes`` (a buffer of move records) and return the count or a status."""
    cdef gd_rules_t rules
    cdef gd_move_t beat_copy
    cdef const gd_move_t* beat_ptr = NULL
    # (capped, not cut down to an int: a buffer of 2**31 records would wrap)
    cdef int capacity = <int> min(out_bytes.shape[0] // <Py_ssize_t> sizeof(gd_move_t), 1 << 30)
    cdef int n
    _check_counts(hand, "hand")
    cdef gd_move_t* out = _out_records(out_bytes)
    _rules_from(&rules, sf_is_bomb, sf_wild_any_suit, long_sequences)
    if beat is not None:
        # copied while its buffer is held: `beat` is read without the GIL, when another
        # thread could resize a bytearray given as `beat` (a use after free under ASan)
        beat_copy = _one_record(beat, "beat")[0]
        beat_ptr = &beat_copy
    with nogil:
        n = gd_enumerate(&hand[0], level, beat_ptr, &rules, out, capacity)
    return n


def py_classify(const uint8_t[::1] cards, int level, int sf_is_bomb, int sf_wild_any_suit,
                int long_sequences, uint8_t[::1] out_bytes):
    cdef gd_rules_t rules
    cdef int capacity = <int> min(out_bytes.shape[0] // <Py_ssize_t> sizeof(gd_move_t), 1 << 30)
    cdef int n
    _check_counts(cards, "cards")
    cdef gd_move_t* out = _out_records(out_bytes)
    _rules_from(&rules, sf_is_bomb, sf_wild_any_suit, long_sequences)
    with nogil:
        n = gd_classify(&cards[0], level, &rules, out, capacity)
    return n


def py_beats(const uint8_t[::1] a, const uint8_t[::1] b):
    return gd_beats(_one_record(a, "a"), _one_record(b, "b"))


def py_enumerate_batch(const uint8_t[:, ::1] hands, const int32_t[::1] levels,
                       int sf_is_bomb, int sf_wild_any_suit, int long_sequences,
                       uint8_t[::1] out_bytes, int64_t[::1] offsets):
    """Lead moves of many hands into one buffer; ``offsets[i]:offsets[i+1]`` are hand i's.

    Returns the number of hands done; fewer than ``len(hands)`` means the buffer ran out
    (or a status < 0 for a bad hand), and the caller continues with a new buffer.
    """
    cdef gd_rules_t rules
    cdef int64_t capacity = out_bytes.shape[0] // sizeof(gd_move_t)
    cdef int64_t used = 0
    cdef Py_ssize_t i, count = hands.shape[0], done = 0
    cdef int n
    if hands.shape[1] != 54 or levels.shape[0] != count or offsets.shape[0] != count + 1:
        raise ValueError(f"hands of shape ({count}, 54), {count} levels and {count + 1} "
                         f"offsets, not ({hands.shape[0]}, {hands.shape[1]}), {levels.shape[0]}, "
                         f"{offsets.shape[0]}")
    cdef gd_move_t* base = _out_records(out_bytes)
    _rules_from(&rules, sf_is_bomb, sf_wild_any_suit, long_sequences)
    offsets[0] = 0
    with nogil:
        for i in range(count):
            n = gd_enumerate(&hands[i, 0], levels[i], NULL, &rules,
                             base + used if base != NULL else NULL,   # (no offset on NULL)
                             <int> min(capacity - used, 1 << 30))
            if n == GD_EOVERFLOW:
                break
            if n < 0:
                used = n
                break
            used += n
            offsets[i + 1] = used
            done += 1
    if used < 0:
        return int(used)
    return int(done)
