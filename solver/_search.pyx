# cython: language_level=3, cdivision=True
# boundscheck, wraparound and initializedcheck are set by the build (setup.py, CMakeLists.txt):
# off for release builds, on for debug builds.
"""Compiled alpha-beta search over Guandan endgames (perfect information).

The value of a position is the hand's outcome of RULES.md section 6 for the team of seats
0 and 2 (+3 .. -3; team 1 gets the negation). Team 0 maximises, team 1 minimises.

Techniques, each measurable with a switch in ``Searcher(...)``:
* fail-soft alpha-beta, driven from Python by null-window probes ("is the value >= t?");
* bounds from the finishing order so far (once a team has a player out first, the value's
  sign is fixed, and so on) that cut before any move is generated;
* a transposition table with a memory bound (it grows, four times at a step, up to that
  bound, in searches that outgrow it), reused across solves: entries hold a lower and an
  upper bound, so results never depend on the table size, only the work does (positions
  of few cards, the most numerous, use a second table small enough to stay in cache);
* the table key takes a hand by its rank counts when it can never form a straight flush
  (suits cannot matter any more), and moves of such a hand that differ only in suits are
  searched once ("merged");
* when no hand can form a sequence, the key keeps ranks only by their relative order and
  the table's rank only by the answering players' cards it covers;
* dominated plays are not searched: of two plays of one kind, the higher is dropped when
  the lower uses all of the mover's cards of its rank, the partner holds no card between
  them and no opponent could answer with a play of that kind between them (the others
  answer both alike, and keeping the higher cards is never worse); this includes runs of
  ranks nobody else holds;
* move ordering: the table's best move, plays that go out, then by size and power,
  keeping pairs and triples together;
* once no hand can form a bomb, a sequence or a straight flush ("plain" positions, almost
  every node of a four-hand endgame), a search of its own over a compact state does the
  same with less work per node (_psearch).
"""

cimport cython
from libc.stdint cimport uint8_t, int8_t, int16_t, uint16_t, int32_t, uint32_t, uint64_t, int64_t
from libc.stdint cimport INT64_MAX
from libc.string cimport memset, memcpy
from libc.stdlib cimport malloc, calloc, free, realloc
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC
from cpython.ref cimport PyObject
from cpython.pythread cimport PyThread_get_thread_ident

import math
import numbers

import numpy as np

from guandan_core.usertext import quoted, seconds_above_0

from guandan_core._kernels cimport (gd_move_t, gd_rules_t, gd_enumerate, gd_beats, gd_classify,
                                    GD_EOVERFLOW, GD_PASS, GD_SINGLE, GD_THREE_WITH_TWO,
                                    GD_STRAIGHT_FLUSH, GD_LABEL_PASS, GD_WILD_ANY_SUIT,
                                    GD_ABI_VERSION, gd_abi_version)

if gd_abi_version() != GD_ABI_VERSION:
    # compiled against another guandan_core: its move records would be misread
    raise ImportError(f"solver._search was built against guandan_core kernels of ABI "
                      f"version {GD_ABI_VERSION}, but the installed ones are version "
                      f"{gd_abi_version()}: rebuild the package")

cdef enum:
    MAX_PLY = 512
    NO_PAIR = 255
    PLAIN_ARENA = 1 << 18   # plain moves (6 bytes each): a node has at most a few hundred
    NEAR_CARDS = 12         # positions with at most this many cards use the small table
    ERA_BITS = 16           # clear_table() zeroes the tables once every 2**16 calls
    NEAR_BITS = 18          # 2**18 entries of 16 bytes: 4 MiB (measured against 1, 2, 8 MiB)
    ARENA_MOVES = 1 << 20   # the move arena's first size (18 MiB) ...
    ARENA_MAX_MOVES = 1 << 24   # ... and the most it grows to (288 MiB): a line of play
                                # whose moves do not fit (hands of hundreds of thousands
                                # of moves under long sequences) is a MemoryError
    NO_VALUE = -100
    HIGH_ORDER = 10         # a queen: over a partner's play this high the pass comes early
    ABORTED = -101
    BEST_NONE = -102        # _best_here: no move keeps the value
    BEST_NO_MEMORY = -103   # _best_here: malloc failed
    OVERFLOW_MOVES = 1      # Searcher.overflowed: the move arena was full ...
    OVERFLOW_PLAIN = 2      # ... or the plain search's (which no position fills)
    GROW_NODES = 16         # a search of this many nodes per main-table entry outgrows it
    GROW_STEP = 2           # ... and gets a table 2**GROW_STEP times larger
    GIL_NODES = 1024        # a search holds the GIL for about this many nodes (_begin)


ctypedef struct state_t:
    uint8_t hands[4][54]
    uint8_t ncards[4]
    uint8_t sfpot[4]        # 1 while the hand can still form a straight flush
    uint8_t seqpot[4]       # 1 while the hand can still form a straight, tube or plate
    uint8_t rc[4][16]       # per seat: natural cards per rank 0..12, then SB, HR, wilds
    uint32_t omask[4]       # per seat: bit o set while it holds a natural card of order o
    int8_t order[4]
    int nfinished
    int to_move
    int owner               # seat that owns the table play; -1 when the seat to move leads
    gd_move_t table


ctypedef struct undo_t:
    # what a move changes beyond the mover's cards (cheaper than copying the state)
    int to_move
    int owner
    int nfinished
    uint8_t sfpot
    uint8_t seqpot
    gd_move_t table


ctypedef struct tt_entry_t:
    # 16 bytes: four to a cache line (the table is read at random, so this is its speed)
    uint64_t key1           # the position's first hash (its low bits are the slot)
    uint32_t check          # 32 bits of the second hash, never 0 (0 marks an empty slot)
    uint16_t best_sig       # 16 bits of the best move's signature hash (an ordering hint)
    int8_t lower
    int8_t upper


ctypedef struct pmove_t:
    # a play of a plain position (see _psearch), suits left out: `nat` naturals of order
    # `order` (14, 15: the jokers) and `nwild` wild cards; a three-with-two also plays a
    # pair of order `pair` (NO_PAIR: none). The pass is type 0.
    uint8_t type
    uint8_t order
    uint8_t nat
    uint8_t nwild
    uint8_t pair
    uint8_t size


ctypedef struct pstate_t:
    # a plain position: per seat its cards as 4-bit counts by order (the naturals of orders
    # 0..13, then the small and the big joker) and its wild cards
    uint64_t cnt[4]
    uint64_t ccnt[4]        # the same naturals by their place among the orders in play: the
                            # table key's counts, kept up to date move by move
    uint32_t present        # orders in play (held by anyone); the level rank's always
    uint32_t omask[4]       # per seat: bit o set while it holds a natural card of order o
    uint8_t wilds[4]
    uint8_t ncards[4]
    int8_t order[4]
    int nfinished
    int to_move
    int owner
    int ttype               # the table play; made before the position became plain, it
    int tkey                # may be of any kind (a bomb, a straight)
    int tncards


ctypedef struct sig_t:
    uint64_t ranks          # natural cards per rank (4 bits each), jokers, wilds
    uint32_t shape          # type, key, number of cards


cdef inline void _count_cut(int32_t* count, int add) noexcept nogil:
    # a history count: the move order reads at most 5 of it, so it stops at 2**24 rather
    # than overflow its int32 (about 5e10 nodes of one solve's probes would)
    if count[0] < 16777216:
        count[0] += add


cdef inline int _team(int seat) noexcept nogil:
    return seat & 1


cdef int _outcome_of(const int8_t* order, int nfinished) noexcept nogil:
    # value for team 0 of a finished hand (RULES sec. 6)
    cdef int first = order[0]
    cdef int partner = first ^ 2
    cdef int v
    if nfinished >= 2 and order[1] == partner:
        v = 3
    elif nfinished >= 3 and order[2] == partner:
        v = 2
    else:
        v = 1
    return v if _team(first) == 0 else -v


cdef inline int _outcome(const state_t* s) noexcept nogil:
    return _outcome_of(s.order, s.nfinished)


cdef inline bint _over_of(const uint8_t* ncards) noexcept nogil:
    # both players of one team are out
    return (ncards[0] == 0 and ncards[2] == 0) or (ncards[1] == 0 and ncards[3] == 0)


cdef inline bint _over(const state_t* s) noexcept nogil:
    return _over_of(s.ncards)


cdef inline void _bounds_of(const int8_t* order, int nfinished, int* lo, int* hi) noexcept nogil:
    # the values still possible for team 0, from the finishing order so far: once a player
    # is out first, its team wins 1..3 (partner last, 3rd or 2nd); once an opponent went
    # out second, 1..2 at most
    cdef int best
    if nfinished == 0:
        lo[0] = -3
        hi[0] = 3
        return
    best = 3 if nfinished == 1 else 2
    if _team(order[0]) == 0:
        lo[0] = 1
        hi[0] = best
    else:
        lo[0] = -best
        hi[0] = -1


cdef inline int _bound_cut(const int8_t* order, int nfinished, int alpha, int beta) noexcept nogil:
    # the value the finishing order so far decides within (alpha, beta), else NO_VALUE
    cdef int lo, hi
    _bounds_of(order, nfinished, &lo, &hi)
    if lo == hi:
        return lo
    if hi <= alpha:
        return hi
    if lo >= beta:
        return lo
    return NO_VALUE


cdef inline void _pass_on(const uint8_t* ncards, int seat, int* to_move, int* owner) noexcept nogil:
    # next seat to act after `seat` played or passed (RULES sec. 6)
    cdef int step, t
    for step in range(1, 5):
        t = (seat + step) & 3
        if t == owner[0]:
            # everyone else passed: the owner leads, or its partner if it is out
            to_move[0] = t if ncards[t] > 0 else t ^ 2
            owner[0] = -1
            return
        if ncards[t] > 0:
            to_move[0] = t
            return


cdef bint _sf_potential(const uint8_t* hand, int level, const gd_rules_t* rules) noexcept nogil:
    # can some subset of this hand still form a straight flush?
    cdef int suit, start, q, r, have, wilds, wk
    if not rules.sf_is_bomb:
        return False
    wk = level * 4 + 1
    wilds = hand[wk]
    for suit in range(4):
        for start in range(10):
            have = 0
            for q in range(5):
                r = 12 if start + q == 0 else start + q - 1
                if r * 4 + suit != wk and hand[r * 4 + suit] > 0:
                    have += 1
            if have == 5:
                return True
            if have + wilds >= 5 and have >= 1 and (rules.sf_wild_any_suit or suit == 1):
                return True
    return False


cdef bint _seq_potential(const uint8_t* hand, int level, const gd_rules_t* rules) noexcept nogil:
    # can some subset of this hand still form a straight, a tube or a plate?
    cdef int nat[14]
    cdef int r, q, start, wk = level * 4 + 1, wilds = hand[wk], deficit, have, width, length
    cdef int min_tube = 2 if rules.long_sequences else 3
    for r in range(13):
        nat[r] = hand[r * 4] + hand[r * 4 + 1] + hand[r * 4 + 2] + hand[r * 4 + 3]
        if wk >> 2 == r:
            nat[r] -= wilds
    for start in range(14):
        # straights: 5 positions from `start`
        if start <= 9:
            have = 0
            for q in range(5):
                r = 12 if start + q == 0 else start + q - 1
                if nat[r] > 0:
                    have += 1
            if have >= 1 and have + wilds >= 5:
                return True
        for width in range(2, 4):
            length = min_tube if width == 2 else 2
            if start + length > 14:
                continue
            deficit = 0
            for q in range(length):
                r = 12 if start + q == 0 else start + q - 1
                if nat[r] < width:
                    deficit += width - nat[r]
            if deficit <= wilds:
                return True
    return False


cdef inline int _rc_slot(int card, int wild_kind) noexcept nogil:
    # where a card is counted in state_t.rc
    if card == wild_kind:
        return 15
    if card >= 52:
        return card - 39
    return card >> 2


cdef extern from *:
    """
    #include <stdlib.h>
    #include <string.h>
    #if defined(__linux__)
    #include <stdint.h>
    #include <sys/mman.h>
    #include <unistd.h>
    #endif
    /* Tables: zeroed memory. On Linux they are mappings of their own, so that a table
       grows in place (mremap moves pages, it copies nothing: the old and the new table
       never exist side by side, and the memory bound holds while it grows), and since
       the table is read at random, where nearly every read on 4 KiB pages also misses
       the TLB, they ask for 2 MiB pages (transparent huge pages, where the system
       allows). Elsewhere: calloc, and growing is a copy. */
    #if defined(__linux__) && defined(MREMAP_MAYMOVE)
    static void gd_table_advise(void* p, size_t bytes) {
    #if defined(MADV_HUGEPAGE)
        madvise(p, bytes, MADV_HUGEPAGE);
    #endif
    }
    #define GD_HUGE ((size_t) 1 << 21)
    /* an address range of `bytes` starting on a 2 MiB boundary, mapped with `prot`
       (kernels before 6.7 do not align large mappings themselves, and a table that does
       not start on a boundary keeps its first and last 2 MiB on small pages) */
    static void* gd_map_aligned(size_t bytes, int prot) {
        char* raw = (char*) mmap(NULL, bytes + GD_HUGE, prot, MAP_PRIVATE | MAP_ANONYMOUS,
                                 -1, 0);
        if (raw == (char*) MAP_FAILED)
            return NULL;
        char* p = (char*) (((uintptr_t) raw + GD_HUGE - 1) & ~(uintptr_t) (GD_HUGE - 1));
        size_t page = (size_t) sysconf(_SC_PAGESIZE);
        size_t span = (bytes + page - 1) / page * page;     /* what stays mapped */
        if (p > raw)
            munmap(raw, (size_t) (p - raw));
        munmap(p + span, (size_t) (raw + GD_HUGE - p));    /* (the mapping was span + 2 MiB) */
        return p;
    }
    static void* gd_table_alloc(size_t bytes) {
        void* p = gd_map_aligned(bytes, PROT_READ | PROT_WRITE);
        if (p == NULL)
            return NULL;
        gd_table_advise(p, bytes);
        memset(p, 0, bytes);    /* its pages now, not one fault at a time in the search:
                                   measured 6% faster on 4 x 6 with fresh tables */
        return p;
    }
    static void gd_table_free(void* p, size_t bytes) {
        if (p != NULL)
            munmap(p, bytes);
    }
    /* the first old_bytes kept, the rest zero; NULL (p untouched) when there is no memory */
    static void* gd_table_resize(void* p, size_t old_bytes, size_t new_bytes) {
        /* moved onto an aligned reservation, which it replaces */
        void* target = gd_map_aligned(new_bytes, PROT_NONE);
        if (target == NULL)
            return NULL;
        void* q = mremap(p, old_bytes, new_bytes, MREMAP_MAYMOVE | MREMAP_FIXED, target);
        if (q == MAP_FAILED) {
            munmap(target, new_bytes);
            return NULL;
        }
        gd_table_advise(q, new_bytes);
        memset((char*) q + old_bytes, 0, new_bytes - old_bytes);   /* (zero already) */
        return q;
    }
    /* cut down to new_bytes in place, all zero (no new memory needed); NULL on failure */
    static void* gd_table_shrink(void* p, size_t old_bytes, size_t new_bytes) {
        void* q = mremap(p, old_bytes, new_bytes, 0);
        if (q == MAP_FAILED)
            return NULL;
        memset(q, 0, new_bytes);
        return q;
    }
    #else
    static void* gd_table_alloc(size_t bytes) { return calloc(1, bytes); }
    static void gd_table_free(void* p, size_t bytes) { (void) bytes; free(p); }
    static void* gd_table_resize(void* p, size_t old_bytes, size_t new_bytes) {
        void* q = calloc(1, new_bytes);
        if (q == NULL)
            return NULL;
        memcpy(q, p, old_bytes);
        free(p);
        return q;
    }
    static void* gd_table_shrink(void* p, size_t old_bytes, size_t new_bytes) {
        (void) old_bytes;
        void* q = realloc(p, new_bytes);
        if (q != NULL)
            memset(q, 0, new_bytes);
        return q;
    }
    #endif
    /* The stop request: written by another thread (holding the GIL) while the search runs
       without it, so read and written atomically, and the search reads it afresh each time. */
    static inline int gd_flag_load(const int* flag) { return __atomic_load_n(flag, __ATOMIC_RELAXED); }
    static inline void gd_flag_store(int* flag, int v) { __atomic_store_n(flag, v, __ATOMIC_RELAXED); }
    """
    void* gd_table_alloc(size_t nbytes) nogil
    void gd_table_free(void* p, size_t nbytes) nogil
    void* gd_table_resize(void* p, size_t old_bytes, size_t new_bytes) nogil
    void* gd_table_shrink(void* p, size_t old_bytes, size_t new_bytes) nogil
    int gd_flag_load(const int* flag) nogil
    void gd_flag_store(int* flag, int v) nogil
    void __builtin_prefetch(const void*) nogil
    int __builtin_ctz(unsigned int) nogil


cdef inline int _popcount(uint32_t x) noexcept nogil:
    # portable (no popcnt instruction assumed by the build)
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0f0f0f0f
    return <int> ((x * 0x01010101) >> 24)


cdef inline int _lowest_bit(uint32_t x) noexcept nogil:
    # the index of x's lowest set bit (x != 0): one bit-scan instruction on x86-64 and
    # ARM (the de Bruijn multiply it replaced measured 2 to 3% slower overall)
    return __builtin_ctz(x)


cdef inline uint32_t _orders_holding(uint64_t cnt, int least) noexcept nogil:
    # the orders 0..13 at which the 4-bit counts `cnt` are at least `least` (1..3), as a
    # bit mask: each count's test lands on its field's low bit, then the fields' low bits
    # are gathered into 16 bits (no loop over the orders)
    cdef uint64_t x
    if least <= 1:
        x = cnt | (cnt >> 1)
        x |= x >> 2
    elif least == 2:
        x = (cnt >> 1) | (cnt >> 2) | (cnt >> 3)
    else:
        x = (cnt >> 2) | (cnt >> 3) | (cnt & (cnt >> 1))
    x &= 0x1111111111111111ULL
    x = (x | (x >> 3)) & 0x0303030303030303ULL
    x = (x | (x >> 6)) & 0x000f000f000f000fULL
    x = (x | (x >> 12)) & 0x000000ff000000ffULL
    x = (x | (x >> 24)) & 0xffffULL
    return (<uint32_t> x) & 0x3fff


def orders_holding(uint64_t counts, int least):
    """The bit mask of orders 0..13 whose 4-bit field in ``counts`` is at least ``least``
    (1 to 3): the plain search's test of where an opponent can answer, for tests."""
    if not 1 <= least <= 3:
        raise ValueError(f"least must be 1, 2 or 3, not {quoted(least)}")
    return _orders_holding(counts, least)


cdef inline int _order_of(int rank, int level) noexcept nogil:
    return 13 if rank == level else rank


cdef inline uint64_t _mix(uint64_t x) noexcept nogil:
    x ^= x >> 30
    x *= <uint64_t> 0xbf58476d1ce4e5b9ULL
    x ^= x >> 27
    x *= <uint64_t> 0x94d049bb133111ebULL
    x ^= x >> 31
    return x


cdef sig_t _signature(const gd_move_t* m, int level) noexcept nogil:
    # what a move is once suits cannot matter: its reading and its rank multiset
    cdef sig_t sig
    cdef int i, c, wk = level * 4 + 1
    cdef uint64_t ranks = 0
    for i in range(m.ncards):
        c = m.cards[i]
        if c == wk:
            ranks += (<uint64_t> 1) << 60
        elif c >= 52:
            ranks += (<uint64_t> 1) << (52 + 2 * (c - 52))
        else:
            ranks += (<uint64_t> 1) << (4 * (c >> 2))
    sig.ranks = ranks
    sig.shape = (<uint32_t> m.type) | ((<uint32_t> (m.key & 0xffff)) << 8) | ((<uint32_t> m.ncards) << 24)
    return sig


cdef inline bint _same_signature(const sig_t* a, const sig_t* b) noexcept nogil:
    # moves equal but for suits: where suits cannot matter, they lead to the same game
    return a.ranks == b.ranks and a.shape == b.shape


cdef inline uint64_t _sig_hash(sig_t sig) noexcept nogil:
    return _mix(sig.ranks ^ _mix(sig.shape + 0x9e3779b97f4a7c15ULL))


cdef inline uint16_t _sig16(const gd_move_t* m, int level) noexcept nogil:
    # the table's ordering hint for a move (never 0, which means none)
    return <uint16_t> ((_sig_hash(_signature(m, level)) >> 48) | 1)


cdef inline void _absorb(uint64_t* h1, uint64_t* h2, uint64_t w) noexcept nogil:
    # one word into both table-key hashes
    h1[0] = (h1[0] ^ w) * 0x9e3779b97f4a7c15ULL
    h1[0] ^= h1[0] >> 29
    h2[0] = (h2[0] + (w ^ 0x5851f42d4c957f2dULL)) * 0xd6e8feb86659fd93ULL
    h2[0] ^= h2[0] >> 32


cdef inline void _finish_key(uint64_t h1, uint64_t h2, uint64_t w, uint64_t* k1, uint64_t* k2) noexcept nogil:
    # the last word (whose turn, the table, the finishing order) and the final mixes
    k1[0] = _mix(h1 ^ w)
    k2[0] = _mix(h2 + w * 0xff51afd7ed558ccdULL)


cdef inline uint64_t _turn_word(int to_move, int owner, int nfinished, const int8_t* order,
                                int ttype, int tkey, int tncards) noexcept nogil:
    # whose turn, who owns the table and with what, the finishing order: one key word
    cdef uint64_t w = (<uint64_t> (to_move & 3)) | ((<uint64_t> (owner + 1)) << 3)
    cdef int k
    w |= (<uint64_t> nfinished) << 6
    for k in range(4):
        w |= (<uint64_t> (order[k] + 1)) << (9 + 3 * k)
    if owner >= 0:
        w |= (<uint64_t> ttype) << 24
        w |= (<uint64_t> (tkey & 0xffff)) << 32
        w |= (<uint64_t> tncards) << 48
    return w


cdef inline int _covered(uint32_t others, int tkey) noexcept nogil:
    # a single, pair, triple or three-with-two on the table, as the compressed keys see
    # it: how many of the answering players' card orders it covers (jokers kept apart)
    return _popcount(others & ((<uint32_t> 2 << tkey) - 1)) if tkey <= 13 else tkey + 64


cdef inline uint64_t _drop_nibble(uint64_t w, int i) noexcept nogil:
    # w without its 4-bit field i, the fields above moved down one place
    cdef uint64_t low = ((<uint64_t> 1) << (4 * i)) - 1
    return (w & low) | ((w >> 4) & ~low)


cdef inline uint16_t _psig16(const pmove_t* m) noexcept nogil:
    # the table's ordering hint for a plain move (never 0)
    cdef uint64_t x = (<uint64_t> m.type) | (<uint64_t> m.order) << 8 | (<uint64_t> m.nat) << 16
    x |= (<uint64_t> m.nwild) << 24 | (<uint64_t> m.pair) << 32
    return <uint16_t> ((_mix(x + 0x3c6ef372fe94f82bULL) >> 48) | 1)


cdef inline uint32_t _check(uint64_t k2, uint32_t salt) noexcept nogil:
    # the entry's check of a position of second hash k2 in the table's era `salt` (bits 1
    # and up, so that "| 1" cannot merge two eras): an entry stored in an earlier era
    # cannot match, which is how clear_table() empties the tables without touching them
    return (<uint32_t> (k2 >> 32) ^ salt) | 1


cdef extern from "Python.h":
    # declared without an exception clause: the search leaves a raised exception (Ctrl-C's
    # KeyboardInterrupt) set and unwinds; search() raises it once the search has returned
    int PyErr_CheckSignals() nogil     # (called with the GIL held: see _signalled)
    PyObject* PyErr_Occurred()
    # (called with the GIL held, as for PyErr_CheckSignals: see _beat; a bare pointer
    # back, so that an exception the heartbeat raises stays set, as a signal handler's
    # does, and ends the search)
    PyObject* PyObject_CallNoArgs(PyObject* callable) nogil
    void Py_DecRef(PyObject* o) nogil
    ctypedef struct PyThreadState:
        pass
    PyThreadState* PyEval_SaveThread() nogil
    void PyEval_RestoreThread(PyThreadState*) nogil


cdef int _raise_pending() except -1:
    # an exception a signal handler raised during the search (see _signalled) goes on up
    return -1 if PyErr_Occurred() != NULL else 0


cdef double _now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


# the main table grows up to 2**24 entries of 16 bytes (256 MiB) unless told otherwise:
# the long 4 x 8 solves take 3 to 5 times fewer nodes in it than in 2**20 entries
DEFAULT_MAX_TT_BITS = 24
# a table of 2**4 to 2**30 entries (256 B to 16 GiB)
MIN_TT_BITS = 4
MAX_TT_BITS = 30
# a Searcher's move arena at first (Searcher.arena_moves; a line that does not fit grows it)
FIRST_ARENA_MOVES = ARENA_MOVES


def default_max_tt_bits(tt_bits):
    """The bound a main table of ``2**tt_bits`` entries grows to when none is given."""
    return max(tt_bits, DEFAULT_MAX_TT_BITS)


cdef inline bint _whole(object x):
    # a whole number, not True/False; a plain int first, since isinstance against the
    # numbers ABCs costs about a microsecond a call and a solve makes a dozen of them
    return type(x) is int or (not isinstance(x, bool) and isinstance(x, numbers.Integral))


_NODE_LIMIT_MAX = 2 ** 63 - 1


def _checked_limits(time_limit, node_limit):
    """The limits as the searcher takes them; ValueError naming a limit that is not one (a
    negative or not-a-number time, a node count that is negative, not whole or too big).
    An infinite time limit is no limit."""
    if time_limit is not None:
        if type(time_limit) is not float and not _whole(time_limit) and (
                isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real)):
            raise ValueError(f"time_limit must be a number of seconds >= 0, not "
                             f"{quoted(time_limit)}")
        try:
            seconds = float(time_limit)
        except OverflowError:       # an integer beyond any float: as good as infinite
            seconds = math.inf if time_limit > 0 else -math.inf
        if math.isnan(seconds) or seconds < 0:
            raise ValueError(f"time_limit must be a number of seconds >= 0, not "
                             f"{quoted(time_limit)}")
        time_limit = None if math.isinf(seconds) else seconds
    if node_limit is not None:
        if not _whole(node_limit) or not 0 <= node_limit <= _NODE_LIMIT_MAX:
            raise ValueError(f"node_limit must be a whole number from 0 to 2**63 - 1, "
                             f"not {quoted(node_limit)}")
    return time_limit, None if node_limit is None else int(node_limit)


def _checked_switch(name, value):
    """True or False (numpy's too), else a TypeError naming it: a C ``bint`` argument
    would take ``use_tt="no"`` as true."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, not {quoted(value)}")
    return bool(value)


cdef void _check_record(const uint8_t[::1] record, gd_move_t* m) except *:
    """Copy a move record given from Python into ``m``, refusing one the search would read
    out of bounds with (a ValueError): the wrong size, more than 10 cards, a kind over 53."""
    if record.shape[0] != sizeof(gd_move_t):
        raise ValueError(f"a move record is {sizeof(gd_move_t)} bytes, not {record.shape[0]}")
    memcpy(m, &record[0], sizeof(gd_move_t))     # (the buffer may be unaligned)
    if m.ncards > 10 or any(m.cards[i] >= 54 for i in range(m.ncards)):
        raise ValueError(f"a move record holds at most 10 card kinds under 54, not "
                         f"{[m.cards[i] for i in range(min(m.ncards, 10))]!r} "
                         f"({m.ncards} cards)")
    if m.nwild > 2 or m.nwild > m.ncards:      # (the kernels refuse such a table play)
        raise ValueError(f"a move record's wild cards are at most 2 and at most its cards "
                         f"({m.ncards}), not {m.nwild}")


cdef int _check_reading(const gd_move_t* m, int level, const gd_rules_t* rules) except -1:
    """A ValueError unless ``m`` is the pass (no cards) or one of the readings of its
    cards at ``level`` under ``rules`` (type, label and key as gd_classify gives them):
    the search indexes its tables by a play's type and key, and one no kernel makes (a
    straight flush keyed 31, a single keyed 100) would read out of bounds."""
    cdef uint8_t counts[54]
    cdef gd_move_t* out
    cdef int n, i, capacity = 256
    if m.type == GD_PASS:
        if m.ncards != 0:
            raise ValueError(f"a pass record holds no cards, not {m.ncards}")
        return 0
    memset(counts, 0, sizeof(counts))
    for i in range(m.ncards):
        counts[m.cards[i]] += 1
    while True:
        out = <gd_move_t*> malloc(capacity * sizeof(gd_move_t))
        if out == NULL:
            raise MemoryError()
        n = gd_classify(counts, level, rules, out, capacity)
        if n != -1:             # (GD_EOVERFLOW: a larger buffer)
            break
        free(out)
        capacity *= 4
    try:
        for i in range(max(n, 0)):
            if out[i].type == m.type and out[i].label == m.label and out[i].key == m.key:
                return 0
    finally:
        free(out)
    raise ValueError(f"move record (type {m.type}, label {m.label}, key {m.key}, cards "
                     f"{[m.cards[i] for i in range(m.ncards)]}) is not a reading of its "
                     f"cards at level {level} under these rules")


def _value_number(name, value):
    """A team-0 value argument: a whole number -4..4 (the values are -3..3; one beyond
    is what no side reaches), else a ValueError naming it (a C int would overflow)."""
    if not _whole(value) or not -4 <= value <= 4:
        raise ValueError(f"{name} must be a whole number -4..4, not {quoted(value)}")
    return int(value)


def _seat_number(name, value, low=0):
    """A seat (``low`` to 3) given as a whole number, else a ValueError naming it."""
    if not _whole(value) or not low <= value <= 3:
        raise ValueError(f"{name} must be a whole number {low}..3, not {quoted(value)}")
    return int(value)


@cython.final
cdef class Searcher:
    """The search state: one position, a transposition table and a move arena.

    Reusable: ``load()`` another position and search again; the table is kept (its
    entries are exact bounds of the positions they describe, so they stay valid).

    The main table starts with ``2**tt_bits`` entries and grows, up to ``2**max_tt_bits``,
    when a search outgrows it (more than 16 nodes an entry since it was last sized, or
    since the last reset_counters(), which every solve calls, if that came later): small
    searches keep a table that stays in cache, long ones stop overwriting their own work.
    ``clear_table()`` empties it and gives it back its first size.
    """

    cdef state_t st
    cdef int level
    cdef gd_rules_t rules
    cdef tt_entry_t* tt
    cdef uint64_t tt_mask
    cdef int64_t grow_at           # the node count at which the main table grows
    cdef uint32_t tt_gen           # counts the table's moves in memory (entry pointers)
    cdef uint32_t tt_salt          # the tables' era: see _check and clear_table
    cdef tt_entry_t* near          # the small table for positions with few cards left
    cdef uint64_t near_mask
    cdef gd_move_t* arena
    cdef int arena_top
    cdef readonly int arena_moves   # the arena's size
    cdef int overflowed             # 0, or which arena a search found full (OVERFLOW_*)
    cdef int refused                # 0, or the status of a kernel that refused the search's
                                    # input (a bug: every record and hand is checked)
    cdef pmove_t* parena           # the plain search's moves
    cdef int* pscores              # and their move-order scores
    cdef int parena_top
    cdef readonly int64_t nodes
    cdef readonly int64_t tt_hits
    cdef readonly int64_t node_limit
    cdef readonly double deadline
    cdef int stop_flag             # stop(): set from any thread, read as the deadline is
    # the node counts of the next deadline/stop check and the next signal check: counted,
    # not masked, since forced passes add nodes between checks (a mask test then skipped
    # a multiple of 1,024 and waited for the next: stops took up to 9,216 nodes)
    cdef int64_t next_check
    cdef int64_t next_signal_check
    cdef bint check_signals_       # the main thread's searches: Ctrl-C ends them
    cdef readonly bint aborted
    cdef readonly bint use_tt
    cdef readonly bint use_merge
    cdef readonly bint use_bounds
    cdef readonly bint use_ordering
    cdef readonly bint use_runout
    cdef readonly bint use_compress
    cdef readonly bint use_history
    cdef readonly bint use_etc
    cdef readonly bint use_dominance
    cdef readonly bint use_plain
    cdef int32_t history[4][11][64]   # per seat, type and key: how often it cut off
    cdef readonly int tt_bits      # the main table's size now
    cdef readonly int initial_tt_bits
    cdef readonly int max_tt_bits
    cdef uint64_t key_salt       # the level and rule options, part of every table key
    cdef bint generated_merged   # the last _generate gave one move per suit-free group
    # the root move that proved the strongest bound on the mover's side found so far in
    # the position keyed proof_k1/proof_k2: a move record, whatever its suits (the
    # table's 16-bit hint names a move only up to suits, which can matter at the root)
    cdef gd_move_t proof_rec
    cdef int proof_value           # team-0 terms: at least it (team 0 moves), else at most
    cdef uint64_t proof_k1, proof_k2
    cdef bint has_proof
    cdef int cover_first           # _cover: the first play of the split it found
    # a search is running without the GIL (set and read with the GIL held): every other
    # method but stop() is refused meanwhile, since it would free the table the search
    # reads or change the state it walks (a call from another thread)
    cdef bint searching
    # claimed by a solve (solver.search): other threads' calls are refused until released
    cdef bint claimed
    cdef bint claimed_by_block     # by `with searcher:` (a solve's too): its end lets it go
    cdef unsigned long claim_thread
    cdef int etc_cut               # _dedupe: the move whose child's entry cut off
    # A search starts holding the GIL and lets it go at its first check after GIL_NODES
    # nodes (see _begin and _time_is_up): a search answered from the table in a few nodes
    # then costs no hand-over of the GIL, which another thread (solve_many's other
    # workers) would take and this one wait for, several times a solve
    cdef uint64_t loads            # load() calls so far (undo tokens from before are refused)
    cdef PyThreadState* gil_state  # the GIL given up by the running search, else NULL
    cdef bint gil_held             # a search is running holding the GIL
    cdef int64_t gil_release_at
    # set_heartbeat(): a callable called with the GIL about every heartbeat_every seconds
    # while a search runs (at the signal checks' pace), so that a long solve can show
    # progress; next_heartbeat is the _now() time of the next call
    cdef readonly object heartbeat
    cdef PyObject* heartbeat_ptr   # (the same object, for the search's nogil code)
    cdef readonly double heartbeat_every
    cdef double next_heartbeat

    def __cinit__(self, tt_bits=18, use_tt=True, use_merge=True,
                  use_bounds=True, use_ordering=True, use_runout=False,
                  use_compress=True, use_history=True, use_etc=False,
                  use_dominance=True, use_plain=True, max_tt_bits=None):
        # (a C int argument would take 20.5 as 20)
        if isinstance(tt_bits, bool) or not isinstance(tt_bits, numbers.Integral) \
                or not MIN_TT_BITS <= tt_bits <= MAX_TT_BITS:
            raise ValueError(f"tt_bits must be a whole number {MIN_TT_BITS}..{MAX_TT_BITS}, "
                             f"not {quoted(tt_bits)}")
        tt_bits = int(tt_bits)
        if max_tt_bits is None:
            max_tt_bits = default_max_tt_bits(tt_bits)
        if isinstance(max_tt_bits, bool) or not isinstance(max_tt_bits, numbers.Integral) \
                or not tt_bits <= max_tt_bits <= MAX_TT_BITS:
            raise ValueError(f"max_tt_bits must be tt_bits ({tt_bits}) to {MAX_TT_BITS}, "
                             f"not {quoted(max_tt_bits)}")
        # every argument checked before anything is allocated
        self.use_tt = _checked_switch("use_tt", use_tt)
        self.use_merge = _checked_switch("use_merge", use_merge)
        self.use_bounds = _checked_switch("use_bounds", use_bounds)
        self.use_ordering = _checked_switch("use_ordering", use_ordering)
        self.use_runout = _checked_switch("use_runout", use_runout)
        self.use_compress = _checked_switch("use_compress", use_compress)
        self.use_history = _checked_switch("use_history", use_history)
        self.use_etc = _checked_switch("use_etc", use_etc)
        self.use_dominance = _checked_switch("use_dominance", use_dominance)
        self.use_plain = _checked_switch("use_plain", use_plain)
        self.tt_bits = tt_bits
        self.initial_tt_bits = tt_bits
        self.max_tt_bits = max_tt_bits
        cdef int bits = self.tt_bits
        near_bits = min(bits, NEAR_BITS)
        # the sizes first: __dealloc__ frees the table by its size
        self.tt_mask = ((<uint64_t> 1) << bits) - 1
        self.near_mask = ((<uint64_t> 1) << near_bits) - 1
        self.tt = <tt_entry_t*> gd_table_alloc(self._table_bytes())
        self.arena_moves = ARENA_MOVES
        self.arena = <gd_move_t*> malloc(ARENA_MOVES * sizeof(gd_move_t))
        self.parena = <pmove_t*> malloc(PLAIN_ARENA * sizeof(pmove_t))
        self.pscores = <int*> malloc(PLAIN_ARENA * sizeof(int))
        if self.tt == NULL:
            raise MemoryError(f"cannot allocate the transposition table "
                              f"({self._table_bytes():,} bytes)")
        if self.arena == NULL or self.parena == NULL or self.pscores == NULL:
            arenas = ARENA_MOVES * sizeof(gd_move_t) + PLAIN_ARENA * (sizeof(pmove_t)
                                                                      + sizeof(int))
            raise MemoryError(f"cannot allocate the search's move arenas ({arenas:,} bytes)")
        self.near = self.tt + ((<size_t> 1) << bits)
        self._set_grow_at()
        memset(self.history, 0, sizeof(self.history))
        self.node_limit = -1
        self.deadline = -1

    def __reduce__(self):
        # (pickle, copy and deepcopy all ask this: its tables are memory of this process)
        raise TypeError("a Searcher holds tables in this process's memory: it cannot be "
                        "pickled or copied (make a new one where it is needed)")

    def __dealloc__(self):
        if self.tt != NULL:
            gd_table_free(self.tt, self._table_bytes())
        free(self.arena)
        free(self.parena)
        free(self.pscores)

    cdef int _check_idle(self) except -1:
        if self.searching:
            # (from another thread, or from a signal handler run during its search)
            raise RuntimeError("this Searcher is searching; only its stop() may be called "
                               "until the search returns")
        if self.claimed and PyThread_get_thread_ident() != self.claim_thread:
            raise RuntimeError("this Searcher is held by another thread (a solve, a `with "
                               "searcher:` block or claim()); only its stop() may be called "
                               "until that thread lets it go")
        return 0

    cdef int _check_loaded(self) except -1:
        # the calls that read the position: a new searcher's state is all zeros (four
        # empty hands, seat 0 to move over its own table play), which they answered as one
        self._check_idle()
        if self.loads == 0:
            raise ValueError("no position loaded: call load() first")
        return 0

    def claim(self):
        """Reserve the searcher for a solve in the calling thread: until :meth:`release`,
        calls from other threads (stop() excepted) and a second claim are a RuntimeError.
        Atomic: nothing here lets another Python thread run in between."""
        self._check_idle()
        if self.claimed:
            raise RuntimeError("this Searcher is already claimed by this thread (a `with "
                               "searcher:` block, or a solve calling on_info that solves "
                               "again): solve with it outside that block, or give each "
                               "solve a Searcher of its own")
        self.claimed = True
        self.claimed_by_block = False
        self.claim_thread = PyThread_get_thread_ident()

    def release(self):
        """Let go of the claim of :meth:`claim` (a searcher nobody holds: nothing to do).
        A RuntimeError from another thread than the holder's, and inside a ``with
        searcher:`` block or a solve holding it (an ``on_info`` callback's): those let it
        go at their end, and another thread would meanwhile load it under them."""
        self._check_idle()
        if self.claimed and self.claimed_by_block:
            raise RuntimeError("this Searcher is held by a `with searcher:` block or a solve "
                               "running in this thread, which lets it go at its end; "
                               "release() lets go of a claim()")
        self.claimed = False

    @property
    def busy(self):
        """Whether a solve holds the searcher (or a search runs on it) now."""
        return bool(self.claimed or self.searching)

    def __enter__(self):
        """``with searcher:`` claims it for the block (see :meth:`claim`). Compiled, so no
        Python-level signal check runs between the claim and the block's protection: a
        Ctrl-C cannot leave the searcher claimed, as it could from a Python generator."""
        self.claim()
        self.claimed_by_block = True
        return self

    def __exit__(self, exc_type, exc, tb):
        self._check_idle()      # (called by hand from another thread: not its block's end)
        self.claimed = False
        self.claimed_by_block = False
        return False

    @property
    def check_signals(self):
        """Whether the search lets Python's signal handlers run every 65,536 nodes (so
        that Ctrl-C ends it); solve() sets it on the main thread."""
        return self.check_signals_

    @check_signals.setter
    def check_signals(self, value):
        self._check_idle()
        self.check_signals_ = _checked_switch("check_signals", value)

    def set_heartbeat(self, callback, every=1.0):
        """Call ``callback()`` (no arguments) about every ``every`` seconds while a search
        of this searcher runs, in the searching thread with the GIL held, the first
        ``every`` seconds from this call; ``set_heartbeat(None)`` stops it. The search
        checks the clock every 65,536 nodes (a few milliseconds), so calls come no more
        often than that. While it runs the searcher is searching: reading ``nodes`` works,
        stop() works, other calls are the RuntimeError they are from another thread. An
        exception it raises ends the search and is raised by the call that searched, as
        Ctrl-C's KeyboardInterrupt is; after either, searches end at once (None) until
        limits() is called, as after a stop() (solve() calls it each time)."""
        self._check_idle()
        if callback is None:
            self.heartbeat, self.heartbeat_ptr, self.heartbeat_every = None, NULL, 0
            return
        if not callable(callback):
            raise TypeError(f"the heartbeat must be callable or None, not {quoted(callback)}")
        seconds = seconds_above_0(every)
        if seconds is None:
            raise ValueError(f"the heartbeat's interval must be a number of seconds above 0, "
                             f"not {quoted(every)}")
        self.heartbeat, self.heartbeat_every = callback, seconds
        self.heartbeat_ptr = <PyObject*> callback
        self.next_heartbeat = _now() + self.heartbeat_every

    def clear_table(self):
        """Empty the tables; a main table that grew gets its first size back, and so does
        a move arena that grew."""
        self._check_idle()
        cdef tt_entry_t* small
        cdef gd_move_t* arena
        cdef size_t main_entries = (<size_t> 1) << self.initial_tt_bits
        cdef size_t small_bytes = (main_entries + self.near_mask + 1) * sizeof(tt_entry_t)
        if self.arena_moves != ARENA_MOVES:
            arena = <gd_move_t*> realloc(self.arena, ARENA_MOVES * sizeof(gd_move_t))
            if arena != NULL:
                self.arena = arena
                self.arena_moves = ARENA_MOVES
        if self.tt_bits != self.initial_tt_bits:
            small = <tt_entry_t*> gd_table_alloc(small_bytes)
            if small != NULL:
                gd_table_free(self.tt, self._table_bytes())
            else:
                # no memory for a new one: the grown one cut down (its start is the
                # small table's; zeroed)
                small = <tt_entry_t*> gd_table_shrink(self.tt, self._table_bytes(),
                                                      small_bytes)
            if small != NULL:
                self._use_table(small, self.initial_tt_bits)
                self.tt_salt = 0
                return
        # a new era instead of zeroing every entry (8 MiB at the default size, 20 MiB at
        # the size before: about a millisecond, more than a small position's whole
        # search); the entries are zeroed only when the eras run out, once every
        # 2**ERA_BITS clears
        self.tt_salt = (self.tt_salt + 2) & ((2 << ERA_BITS) - 1)
        if self.tt_salt == 0:
            memset(self.tt, 0, self._table_bytes())
        self._set_grow_at()

    def grow_table(self):
        """Make the main table 4 times larger now (at most ``2**max_tt_bits`` entries),
        keeping every entry; what a long search does by itself. False at the bound."""
        self._check_idle()
        cdef int bits = self.tt_bits
        if bits >= self.max_tt_bits:
            return False
        self._grow()
        if self.tt_bits == bits:
            raise MemoryError("cannot allocate a larger transposition table")
        return True

    cdef void _set_grow_at(self) noexcept nogil:
        # counted from the node count now: the table grows when the searches since it was
        # sized have made GROW_NODES nodes an entry
        if self.tt_bits >= self.max_tt_bits:
            self.grow_at = INT64_MAX
        else:
            self.grow_at = self.nodes + GROW_NODES * ((<int64_t> 1) << self.tt_bits)

    cdef void _grow(self) noexcept nogil:
        # the main table made larger in place with every entry it holds. An entry's slot
        # is the low bits of its key1, so an entry either stays or moves to a slot past
        # the old end (by a multiple of the old size), where the new part is empty, and
        # distinct old slots map to distinct new ones. The small table, after the main
        # one, moves to the new end. Entry pointers held by searches in progress go
        # stale: they look their entry up again when tt_gen has changed.
        cdef int bits = min(self.tt_bits + GROW_STEP, self.max_tt_bits)
        cdef size_t entries = (<size_t> 1) << bits, old = self.tt_mask + 1, i, j
        cdef size_t near = self.near_mask + 1
        cdef uint64_t mask = entries - 1
        cdef tt_entry_t* t = <tt_entry_t*> gd_table_resize(
            self.tt, (old + near) * sizeof(tt_entry_t), (entries + near) * sizeof(tt_entry_t))
        if t == NULL:
            self.grow_at = INT64_MAX        # no memory for it: go on with this table
            return
        # (entries >= 2 * old >= old + near, the small table being no larger than the
        # main one: its two places do not overlap)
        memcpy(t + entries, t + old, near * sizeof(tt_entry_t))
        memset(t + old, 0, near * sizeof(tt_entry_t))
        for i in range(old):
            if t[i].check != 0:
                j = t[i].key1 & mask
                if j != i:
                    t[j] = t[i]
                    memset(&t[i], 0, sizeof(tt_entry_t))
        self._use_table(t, bits)

    cdef void _use_table(self, tt_entry_t* table, int bits) noexcept nogil:
        # make `table` (2**bits main entries, then the small table, both filled) the
        # searcher's; the caller has freed or resized the one it had
        self.tt = table
        self.tt_bits = bits
        self.tt_mask = ((<uint64_t> 1) << bits) - 1
        self.near = table + ((<size_t> 1) << bits)
        self.tt_gen += 1
        self._set_grow_at()

    cdef inline size_t _table_bytes(self) noexcept nogil:
        return (self.tt_mask + 1 + self.near_mask + 1) * sizeof(tt_entry_t)

    @property
    def table_bytes(self):
        return self._table_bytes()

    cdef inline uint32_t _orders_held_except(self, int seat) noexcept nogil:
        # the card orders held by every seat but `seat` (-1: all), and always the level
        # rank's, which a lone wild plays as
        cdef uint32_t held = 1 << 13
        cdef int t
        for t in range(4):
            if t != seat:
                held |= self.st.omask[t]
        return held

    cdef inline tt_entry_t* _entry(self, uint64_t k1, const uint8_t* ncards) noexcept nogil:
        # Positions with few cards left are many and cheap to search again: they get a
        # small table that stays in cache, the rest the big one (measured on 4x6: median
        # 31 -> 24 ms, p95 169 -> 148 ms; 4x8 no slower; 12 cards was the best cut)
        if ncards[0] + ncards[1] + ncards[2] + ncards[3] <= NEAR_CARDS:
            return &self.near[k1 & self.near_mask]
        return &self.tt[k1 & self.tt_mask]

    cdef inline int _tt_probe(self, const tt_entry_t* e, uint64_t k1, uint32_t check,
                              int* alpha, int* beta, uint16_t* best_sig) noexcept nogil:
        # the value an entry of this position decides, else NO_VALUE with the window
        # narrowed to its bounds and its best move's signature
        if e.check != check or e.key1 != k1:
            return NO_VALUE
        self.tt_hits += 1
        if e.lower >= beta[0]:
            return e.lower
        if e.upper <= alpha[0]:
            return e.upper
        if e.lower == e.upper:
            return e.lower
        if e.lower > alpha[0]:
            alpha[0] = e.lower
        if e.upper < beta[0]:
            beta[0] = e.upper
        best_sig[0] = e.best_sig
        return NO_VALUE

    cdef inline void _tt_store(self, tt_entry_t* e, uint64_t k1, uint32_t check, int best,
                               int a0, int b0, uint16_t best_sig) noexcept nogil:
        # what a search of window (a0, b0) that returned `best` proves, with the bounds
        # the entry already held for this position
        cdef int lower = -3, upper = 3
        if e.check == check and e.key1 == k1:
            lower = e.lower
            upper = e.upper
        if best <= a0:
            upper = min(upper, best)
        elif best >= b0:
            lower = max(lower, best)
        else:
            lower = best
            upper = best
        e.key1 = k1
        e.check = check
        e.lower = lower
        e.upper = upper
        e.best_sig = best_sig

    def load(self, const uint8_t[:, ::1] hands, level, finished, to_move,
             table_record, owner, sf_is_bomb, sf_wild_any_suit, long_sequences):
        """Set the position (validated by the Python layer; what would make the search read
        or write out of bounds, or search a position that cannot arise, is checked here
        too: a ValueError naming it)."""
        self._check_idle()
        cdef int seat, k, n
        cdef int counted[4]
        cdef gd_rules_t rules
        if hands.shape[0] != 4 or hands.shape[1] != 54:
            raise ValueError(f"hands: 4 x 54 card counts, not {hands.shape[0]} x {hands.shape[1]}")
        cdef int in_play[54]
        memset(in_play, 0, sizeof(in_play))
        for seat in range(4):
            counted[seat] = 0
            for k in range(54):
                if hands[seat, k] > 2:
                    raise ValueError(f"hands: seat {seat} holds card kind {k} {hands[seat, k]} times")
                counted[seat] += hands[seat, k]
                in_play[k] += hands[seat, k]
            if counted[seat] > 27:      # (a larger hand's moves need not fit the move arena)
                raise ValueError(f"hands: seat {seat} holds {counted[seat]} cards, a hand "
                                 "at most 27")
        if not _whole(level) or not 0 <= level <= 12:
            raise ValueError(f"level must be a rank index 0..12, not {quoted(level)}")
        level = int(level)
        to_move = _seat_number("to_move", to_move)
        owner = _seat_number("owner", owner, -1)
        flags = []
        for name, flag in (("sf_is_bomb", sf_is_bomb), ("sf_wild_any_suit", sf_wild_any_suit),
                           ("long_sequences", long_sequences)):
            if not (_whole(flag) or isinstance(flag, (bool, np.bool_))) or flag not in (0, 1):
                raise ValueError(f"{name} must be 0 or 1, not {quoted(flag)}")
            flags.append(int(flag))
        rules.sf_is_bomb, rules.sf_wild_any_suit, rules.long_sequences = flags
        # the seats out, in order: each once, holding nothing, and the others holding
        # cards; at most three (after a team is out nobody plays on)
        if isinstance(finished, np.ndarray) and finished.ndim == 1:
            finished = finished.tolist()        # (its entries as Python numbers)
        if not isinstance(finished, (list, tuple)) or len(finished) > 3 or any(
                not _whole(s) or not 0 <= s <= 3
                for s in finished) or len(set(finished)) != len(finished):
            raise ValueError(f"finished: at most 3 distinct seats 0..3, not {quoted(finished)}")
        for seat in range(4):
            if (seat in finished) != (counted[seat] == 0):
                raise ValueError(f"seat {seat} {'is' if seat in finished else 'is not'} in "
                                 f"finished {list(finished)} but holds {counted[seat]} cards")
        over = (counted[0] == 0 and counted[2] == 0) or (counted[1] == 0 and counted[3] == 0)
        if not over and counted[to_move] == 0:
            raise ValueError(f"to_move {to_move} holds no cards")
        cdef gd_move_t table_move
        if table_record is not None:
            _check_record(table_record, &table_move)
            _check_reading(&table_move, level, &rules)
            for k in range(table_move.ncards):
                in_play[table_move.cards[k]] += 1
            if table_move.type == GD_PASS:
                raise ValueError("the table play cannot be a pass")
            if owner < 0 or (owner == to_move and not over):
                raise ValueError(f"owner must be the seat that made the table play (not "
                                 f"to_move {to_move}), not {owner}")
        elif owner != -1:
            raise ValueError(f"owner must be -1 without a table play, not {owner}")
        for k in range(54):
            if in_play[k] > 2:
                raise ValueError(f"card kind {k} is in play {in_play[k]} times (the hands and "
                                 "the table hold each card at most twice)")
        cdef int lvl = level
        self.level = lvl
        self.rules = rules
        sf_is_bomb, sf_wild_any_suit, long_sequences = flags
        # the table outlives the position: a key must also say what the cards mean (which
        # rank is the level, which card is wild, which combinations exist), or a table
        # reused at another level answers with another level's values (found by a test)
        self.key_salt = _mix(<uint64_t> (level | (sf_is_bomb << 4) | (sf_wild_any_suit << 5)
                                         | (long_sequences << 6)) + 0x6a09e667f3bcc909ULL)
        memset(&self.st, 0, sizeof(state_t))
        self.has_proof = False
        self.loads += 1
        for seat in range(4):
            n = 0
            for k in range(54):
                self.st.hands[seat][k] = hands[seat, k]
                n += hands[seat, k]
            self.st.ncards[seat] = n
            for k in range(54):
                self.st.rc[seat][_rc_slot(k, lvl * 4 + 1)] += hands[seat, k]
            for k in range(13):
                if self.st.rc[seat][k]:
                    self.st.omask[seat] |= (<uint32_t> 1) << _order_of(k, lvl)
            self.st.sfpot[seat] = _sf_potential(self.st.hands[seat], lvl, &self.rules)
            self.st.seqpot[seat] = _seq_potential(self.st.hands[seat], lvl, &self.rules)
        self.st.nfinished = len(finished)
        for k in range(4):
            self.st.order[k] = finished[k] if k < len(finished) else -1
        self.st.to_move = to_move
        self.st.owner = owner
        memset(self.history, 0, sizeof(self.history))
        if table_record is not None:
            self.st.table = table_move
        self.arena_top = 0
        self.parena_top = 0

    # ------------------------------------------------------------ state changes

    cdef inline void _advance(self, int seat) noexcept nogil:
        _pass_on(self.st.ncards, seat, &self.st.to_move, &self.st.owner)

    cdef void _play_undoable(self, const gd_move_t* m, undo_t* u) noexcept nogil:
        cdef state_t* s = &self.st
        u.to_move = s.to_move
        u.owner = s.owner
        u.nfinished = s.nfinished
        if m.type != GD_PASS:
            u.sfpot = s.sfpot[s.to_move]
            u.seqpot = s.seqpot[s.to_move]
            u.table = s.table
        self._play(m)

    cdef void _unplay(self, const gd_move_t* m, const undo_t* u) noexcept nogil:
        cdef state_t* s = &self.st
        cdef int seat = u.to_move, i, slot
        s.to_move = seat
        s.owner = u.owner
        if m.type == GD_PASS:
            return
        for i in range(m.ncards):
            s.hands[seat][m.cards[i]] += 1
            slot = _rc_slot(m.cards[i], self.level * 4 + 1)
            s.rc[seat][slot] += 1
            if slot < 13:
                s.omask[seat] |= (<uint32_t> 1) << _order_of(slot, self.level)
        s.ncards[seat] += m.ncards
        s.sfpot[seat] = u.sfpot
        s.seqpot[seat] = u.seqpot
        s.table = u.table
        if s.nfinished != u.nfinished:
            s.order[u.nfinished] = -1
            s.nfinished = u.nfinished

    cdef void _play(self, const gd_move_t* m) noexcept nogil:
        cdef state_t* s = &self.st
        cdef int seat = s.to_move, i, slot
        if m.type == GD_PASS:
            self._advance(seat)
            return
        for i in range(m.ncards):
            s.hands[seat][m.cards[i]] -= 1
            slot = _rc_slot(m.cards[i], self.level * 4 + 1)
            s.rc[seat][slot] -= 1
            if slot < 13 and s.rc[seat][slot] == 0:
                s.omask[seat] &= ~((<uint32_t> 1) << _order_of(slot, self.level))
        s.ncards[seat] -= m.ncards
        if s.sfpot[seat]:
            s.sfpot[seat] = _sf_potential(s.hands[seat], self.level, &self.rules)
        if s.seqpot[seat]:
            s.seqpot[seat] = _seq_potential(s.hands[seat], self.level, &self.rules)
        s.table = m[0]
        s.owner = seat
        if s.ncards[seat] == 0:
            s.order[s.nfinished] = seat
            s.nfinished += 1
        if not _over(s):
            self._advance(seat)

    # ------------------------------------------------------------ table

    cdef void _key(self, uint64_t* k1, uint64_t* k2) noexcept nogil:
        # the table key of the current state, canonical up to what cannot change the value:
        # suits of hands that can no longer form a straight flush, and, when no hand can
        # form any sequence, the ranks themselves beyond their relative card order
        cdef state_t* s = &self.st
        cdef uint64_t h1 = 0x243f6a8885a308d3ULL ^ self.key_salt, w
        cdef uint64_t h2 = 0x13198a2e03707344ULL + self.key_salt
        cdef int seat, r, o, tkey, tclass, level = self.level
        cdef const uint64_t* raw
        cdef uint64_t words[7]
        cdef bint compress = self.use_compress and not (
            s.seqpot[0] or s.seqpot[1] or s.seqpot[2] or s.seqpot[3])
        cdef uint32_t present               # card orders in play; the level rank always
        cdef uint32_t others                # the same, in the hands of all but the table's owner
        cdef int cidx[14]
        cdef int slot[13]                   # where rank r's count goes in a packed hand
        cdef int table_type = s.table.type if s.owner >= 0 else 0
        tkey = s.table.key if s.owner >= 0 else 0
        if compress:
            others = self._orders_held_except(s.owner)
            present = others
            if s.owner >= 0:
                present |= s.omask[s.owner]
            if table_type == 9:
                present |= (<uint32_t> 1) << (tkey & 31)
            cidx[0] = 0
            for o in range(13):
                cidx[o + 1] = cidx[o] + ((present >> o) & 1)
            for r in range(13):
                slot[r] = cidx[_order_of(r, level)]
            # the table's key in compressed terms; sequences cannot be answered by anyone,
            # so only a straight flush's bomb class matters
            if 1 <= table_type <= 4:
                # only the players who may answer compare their cards with the table (the
                # owner leads afresh when the turn comes back): the table's key is how many
                # of their card orders it covers
                tkey = _covered(others, tkey)
            elif 5 <= table_type <= 7:
                tkey = 0
            elif table_type == 8:
                tkey = 2 * 32
            elif table_type == 9:
                tclass = tkey >> 5
                tkey = tclass * 32 + cidx[tkey & 31]
        else:
            for r in range(13):
                slot[r] = r
        for seat in range(4):
            if s.sfpot[seat]:
                # suits may still matter: the whole count array (54 bytes in 7 words)
                memset(words, 0, sizeof(words))
                memcpy(words, s.hands[seat], 54)
                (<uint8_t*> words)[55] = 1
                for r in range(7):
                    _absorb(&h1, &h2, words[r] + <uint64_t> (seat * 8 + r + 1))
            else:
                # one word: 4 bits per rank slot (at most 8 naturals), jokers, wilds
                w = 0
                for r in range(13):
                    w += (<uint64_t> s.rc[seat][r]) << (4 * slot[r])
                w |= (<uint64_t> s.rc[seat][13]) << 56
                w |= (<uint64_t> s.rc[seat][14]) << 58
                w |= (<uint64_t> s.rc[seat][15]) << 60
                w |= (<uint64_t> (2 + compress)) << 62
                _absorb(&h1, &h2, w + <uint64_t> (seat * 8 + 7))
        w = _turn_word(s.to_move, s.owner, s.nfinished, s.order, s.table.type, tkey,
                       s.table.ncards)
        w |= (<uint64_t> compress) << 63
        if compress:
            # where the level rank sits among the ranks in play: a lone wild (or two) is
            # played as the level rank, so this decides what it beats (found by a test)
            w ^= (<uint64_t> cidx[13]) << 56
        _finish_key(h1, h2, w, k1, k2)

    cdef int _merge_suits(self, gd_move_t* moves, int n) noexcept nogil:
        # keep the first of the moves equal but for suits (valid when the mover's hand can
        # no longer form a straight flush: its suits cannot matter any more); cheap, no play
        cdef sig_t seen[512]
        cdef uint8_t used[512]
        cdef int i, kept = 0, slot
        cdef sig_t sig
        cdef bint dup
        if n > 256:
            return n
        memset(used, 0, sizeof(used))
        for i in range(n):
            sig = _signature(&moves[i], self.level)
            slot = <int> (_sig_hash(sig) & 511)
            dup = False
            while used[slot]:
                if _same_signature(&seen[slot], &sig):
                    dup = True
                    break
                slot = (slot + 1) & 511
            if dup:
                continue
            used[slot] = 1
            seen[slot] = sig
            if kept != i:
                moves[kept] = moves[i]
            kept += 1
        return kept

    cdef inline bint _lower_play_within(self, uint32_t plays, uint32_t blocked, int o) noexcept nogil:
        # is there a play (bit o2 of `plays`) at an order o2 < o with no `blocked` order
        # in (o2, o]?
        cdef int o2 = o - 1
        while o2 >= 0 and not (blocked >> (o2 + 1)) & 1:
            if (plays >> o2) & 1:
                return True
            o2 -= 1
        return False

    cdef inline bint _breaks_cleanly(self, int held, int played, int wilds) noexcept nogil:
        # Playing `played` of the mover's `held` naturals of rank y instead of all its
        # naturals of rank x leaves the x play's hand with those x's relabelled y. The
        # relabelling keeps every play when all y's are played (no y left to mix with);
        # otherwise only if no three-with-two could mix the x's with the y's left (it would
        # turn into a bomb): a triple of one and a pair of the other, wild cards (`wilds`,
        # all the mover holds) filling in.
        cdef int left = held - played
        if left == 0:
            return True
        return not (max(0, 3 - played) + max(0, 2 - left) <= wilds or
                    max(0, 3 - left) + max(0, 2 - played) <= wilds)

    cdef int _prune_dominated(self, gd_move_t* moves, int n) noexcept nogil:
        # Valid when the mover's hand can form neither a sequence nor a straight flush.
        # Relabelling a hand's naturals of rank x as a higher rank y, when no play of it
        # mixes x with y, never hurts its team if the partner holds no natural of an order
        # in (x, y]: every play it could make becomes one of the same kind, at least as
        # high; the partner answers them alike and the opponents only with fewer plays. So
        # of two plays of one kind with as many wild cards, x below y, the one using all of
        # the mover's naturals of x is at least as good, and y is dropped, when what the y
        # play leaves is the x play's hand relabelled that way (see _breaks_cleanly):
        # * singles, pairs, triples and three-with-twos by their main rank, when the
        #   partner holds no natural of an order in (x, y] and no opponent could make a
        #   play of that kind there (wild cards count towards pairs and triples): the
        #   opponents answer x exactly as they answer y, the partner in at least as many
        #   ways;
        # * three-with-twos of one triple by their pair: the table is the same.
        cdef state_t* s = &self.st
        cdef int seat = s.to_move, r, o, t, i, j, kept = 0, w
        cdef uint32_t partner = s.omask[seat ^ 2] if s.ncards[seat ^ 2] else 0
        cdef uint32_t blocked[5]        # per kind: orders the partner holds, or where an
                                        # opponent could make a play of that kind
        cdef int opp, c, wl
        cdef uint32_t full[12]          # per kind and wilds (singles to triples): orders
                                        # whose naturals it plays all of
        cdef uint32_t pairs[16]         # per triple order: pair orders of its three-with-twos
        cdef uint32_t triples[16]       # per pair order: orders of the full triples it joins
        cdef int cnt[14]
        cdef int pair_of[1024]
        if n > 1024:
            return n
        memset(cnt, 0, sizeof(cnt))
        memset(full, 0, sizeof(full))
        memset(pairs, 0, sizeof(pairs))
        memset(triples, 0, sizeof(triples))
        for r in range(13):
            cnt[_order_of(r, self.level)] = s.rc[seat][r]
        for t in range(1, 5):
            blocked[t] = partner
        for j in range(1, 4, 2):
            opp = seat ^ j
            wl = s.rc[opp][15]
            for r in range(13):
                c = s.rc[opp][r]
                if c:
                    o = _order_of(r, self.level)
                    blocked[1] |= (<uint32_t> 1) << o
                    if c + min(wl, 1) >= 2:
                        blocked[2] |= (<uint32_t> 1) << o
                    if c + min(wl, 2) >= 3:
                        blocked[3] |= (<uint32_t> 1) << o
                        blocked[4] |= (<uint32_t> 1) << o
        for i in range(n):
            t = moves[i].type
            o = moves[i].key
            pair_of[i] = -1
            if not (1 <= t <= 4 and 0 <= o <= 12):
                continue
            if t == 4:
                if moves[i].nwild:
                    continue
                w = o
                for j in range(moves[i].ncards):
                    if moves[i].cards[j] < 52 and _order_of(moves[i].cards[j] >> 2, self.level) != o:
                        w = _order_of(moves[i].cards[j] >> 2, self.level)
                        break
                if w == o or w > 12 or cnt[w] != 2:
                    continue
                pair_of[i] = w
                pairs[o] |= (<uint32_t> 1) << w
                if cnt[o] == 3:
                    triples[w] |= (<uint32_t> 1) << o
            elif cnt[o] == moves[i].ncards - moves[i].nwild:
                full[t * 3 + moves[i].nwild] |= (<uint32_t> 1) << o
        for i in range(n):
            t = moves[i].type
            o = moves[i].key
            w = pair_of[i]
            if t == 4 and w >= 0:
                # a lower pair with the same triple, or the same pair with a lower triple
                if self._lower_play_within(pairs[o], partner, w):
                    continue
                if cnt[o] == 3 and self._lower_play_within(triples[w], blocked[4], o):
                    continue
            elif 1 <= t <= 3 and 0 <= o <= 12 and self._breaks_cleanly(
                    cnt[o], moves[i].ncards - moves[i].nwild, s.rc[seat][15]):
                if self._lower_play_within(full[t * 3 + moves[i].nwild], blocked[t], o):
                    continue        # dominated by the same play at a lower order
            if kept != i:
                moves[kept] = moves[i]
            kept += 1
        return kept

    cdef inline bint _suits_free(self) noexcept nogil:
        # the mover's suits cannot matter any more (its hand can no longer form a straight
        # flush): moves equal but for suits are one move (_same_signature)
        return not self.st.sfpot[self.st.to_move]

    cdef int _merged(self, gd_move_t* moves, int n) noexcept nogil:
        # the moves worth searching: one of each group that leads to equal positions, and
        # none that another move dominates (both need a hand whose suits cannot matter)
        if self._suits_free():
            if self.use_merge and not self.generated_merged:
                n = self._merge_suits(moves, n)
            if self.use_dominance and not self.st.seqpot[self.st.to_move]:
                n = self._prune_dominated(moves, n)
        return n

    cdef int _dedupe(self, gd_move_t* moves, int n, int alpha, int beta, int* cutoff) noexcept nogil:
        # keep the first of the moves that lead to the same canonical position: they have
        # the same value (suits that cannot matter, ranks equal up to card order). While at
        # it, look the children up in the table: a stored bound may already decide this
        # node (enhanced transposition cut-off); then `cutoff` gets that value.
        cdef uint64_t keys1[1024]
        cdef uint64_t keys2[1024]
        cdef state_t saved = self.st
        cdef int i, j, kept = 0
        cdef uint64_t a, b
        cdef bint dup
        cdef bint maximizing = _team(self.st.to_move) == 0
        cdef tt_entry_t* e
        cutoff[0] = NO_VALUE
        if n > 1024:
            return n
        for i in range(n):
            self._play(&moves[i])
            if _over(&self.st):
                self.st = saved
                if kept != i:
                    moves[kept] = moves[i]
                keys1[kept] = 0
                keys2[kept] = 0
                kept += 1
                continue
            self._key(&a, &b)
            e = self._entry(a, self.st.ncards)
            self.st = saved
            if e.check == _check(b, self.tt_salt) and e.key1 == a:
                if maximizing and e.lower >= beta:
                    cutoff[0] = e.lower
                    self.etc_cut = i        # (moves[i] is still in place: only earlier
                    return n                # slots are written)
                if not maximizing and e.upper <= alpha:
                    cutoff[0] = e.upper
                    self.etc_cut = i
                    return n
            dup = False
            for j in range(kept):
                if keys1[j] == a and keys2[j] == b:
                    dup = True
                    break
            if dup:
                continue
            keys1[kept] = a
            keys2[kept] = b
            if kept != i:
                moves[kept] = moves[i]
            kept += 1
        return kept

    # ------------------------------------------------------------ moves

    cdef bint _may_bomb(self, int seat) noexcept nogil:
        # could this hand hold a bomb (4+ of a rank with wilds, the jokers, a straight flush)?
        cdef state_t* s = &self.st
        cdef int r, wilds = s.rc[seat][15]
        if s.sfpot[seat]:
            return True
        if s.rc[seat][13] == 2 and s.rc[seat][14] == 2:
            return True
        for r in range(13):
            if s.rc[seat][r] + wilds >= 4:
                return True
        return False

    cdef inline gd_move_t* _start_move(self, gd_move_t* m, int mtype, int label, int key) noexcept nogil:
        # a zeroed record of this reading, cards to be added
        memset(m, 0, sizeof(gd_move_t))
        m.type = mtype
        m.label = label
        m.key = key
        return m

    cdef inline void _put_naturals(self, gd_move_t* m, int rank, int count) noexcept nogil:
        # `count` natural cards of `rank` from the mover's hand, lowest suits first
        cdef const uint8_t* hand = self.st.hands[self.st.to_move]
        cdef int k, c, wk = self.level * 4 + 1
        for k in range(rank * 4, rank * 4 + 4):
            if k == wk:
                continue
            c = hand[k]
            while c > 0 and count > 0:
                m.cards[m.ncards] = k
                m.ncards += 1
                c -= 1
                count -= 1

    cdef inline void _put_wilds(self, gd_move_t* m, int count, int stands_for) noexcept nogil:
        cdef int c
        for c in range(count):
            m.cards[m.ncards] = self.level * 4 + 1
            m.ncards += 1
            m.wild_as[m.nwild & 1] = stands_for      # (as in the kernels' _add_wilds)
            m.nwild += 1

    cdef int _same_rank(self, gd_move_t* out, int size, int min_key) noexcept nogil:
        # The singles (size 1), pairs or triples above min_key of a hand with no bomb and
        # no straight flush, one per way the suit-free cards differ: what the kernel gives
        # after suit merging, in the kernel's order, without its general machinery.
        cdef const uint8_t* rc = self.st.rc[self.st.to_move]
        cdef int n = 0, r, j, key, c
        cdef int level = self.level, wk = level * 4 + 1, wilds = rc[15]
        cdef gd_move_t* m
        for r in range(13):
            key = _order_of(r, level)
            if key <= min_key or rc[r] == 0 and not (r == level and size == 2 and wilds == 2):
                continue
            for j in range(min(wilds, size - 1) + 1):
                if rc[r] >= size - j:
                    m = self._start_move(&out[n], size, r, key)
                    n += 1
                    self._put_naturals(m, r, size - j)
                    self._put_wilds(m, j, GD_WILD_ANY_SUIT + r)
            if size == 2 and r == level and wilds == 2:
                # two wilds alone: a pair of the level rank at face value
                m = self._start_move(&out[n], 2, r, key)
                n += 1
                self._put_wilds(m, 2, wk)
        if size <= 2:
            for j in range(2):
                if rc[13 + j] >= size and 14 + j > min_key:
                    m = self._start_move(&out[n], size, 13 + j, 14 + j)
                    n += 1
                    for c in range(size):
                        m.cards[c] = 52 + j
                    m.ncards = size
        if size == 1 and wilds and _order_of(level, level) > min_key:
            # a lone wild is read at face value
            m = self._start_move(&out[n], 1, level, _order_of(level, level))
            n += 1
            self._put_wilds(m, 1, wk)
        return n

    cdef int _full_houses(self, gd_move_t* out) noexcept nogil:
        # the three-with-twos of a hand with no bomb and no straight flush, suit-merged, in
        # the kernel's order (see _same_rank). Without a bomb no wild is ever left for the
        # pair: a triple of 3 - j naturals and j wilds leaves one only if the triple's rank
        # holds 3 - j naturals with at least j + 1 wilds, four cards: a bomb.
        cdef const uint8_t* rc = self.st.rc[self.st.to_move]
        cdef int n = 0, t, p, j, key, jk, level = self.level, wilds = rc[15]
        cdef gd_move_t* m
        for t in range(13):
            key = _order_of(t, level)
            for j in range(min(wilds, 2) + 1):
                if rc[t] < 3 - j:
                    continue
                for p in range(13):
                    if p == t or rc[p] < 2:
                        continue
                    m = self._start_move(&out[n], 4, t, key)
                    n += 1
                    if p < t:
                        self._put_naturals(m, p, 2)
                        self._put_naturals(m, t, 3 - j)
                    else:
                        self._put_naturals(m, t, 3 - j)
                        self._put_naturals(m, p, 2)
                    self._put_wilds(m, j, GD_WILD_ANY_SUIT + t)
                for jk in range(2):
                    if rc[13 + jk] == 2:
                        m = self._start_move(&out[n], 4, t, key)
                        n += 1
                        self._put_naturals(m, t, 3 - j)
                        m.cards[m.ncards] = 52 + jk
                        m.cards[m.ncards + 1] = 52 + jk
                        m.ncards += 2
                        self._put_wilds(m, j, GD_WILD_ANY_SUIT + t)
        return n

    cdef int _generate(self, int* count, bint every=False) noexcept nogil:
        # the moves of the seat to move into the arena; returns the arena index or -1.
        # Unless `every`, answers to a single, pair or triple come suit-merged already
        cdef state_t* s = &self.st
        cdef int base = self.arena_top, n, extra = 0
        cdef gd_move_t* out = self.arena + base
        self.generated_merged = False
        if s.owner >= 0:
            if base + 1 >= self.arena_moves:
                return -1
            memset(out, 0, sizeof(gd_move_t))
            out[0].type = GD_PASS
            out[0].label = GD_LABEL_PASS
            extra = 1
            if not every and self.use_merge and 1 <= s.table.type <= 3 \
                    and not self._may_bomb(s.to_move):
                if base + 64 >= self.arena_moves:
                    return -1
                n = self._same_rank(out + 1, s.table.type, s.table.key)
                self.generated_merged = True
            else:
                n = gd_enumerate(s.hands[s.to_move], self.level, &s.table, &self.rules,
                                 out + 1, self.arena_moves - base - 1)
        elif not every and self.use_merge and not s.seqpot[s.to_move] \
                and not self._may_bomb(s.to_move):
            # a lead of singles, pairs, triples and three-with-twos only (most leads)
            if base + 2048 >= self.arena_moves:
                return -1
            n = self._same_rank(out, 1, -1)
            n += self._same_rank(out + n, 2, -1)
            n += self._same_rank(out + n, 3, -1)
            n += self._full_houses(out + n)
            self.generated_merged = True
        else:
            n = gd_enumerate(s.hands[s.to_move], self.level, NULL, &self.rules,
                             out, self.arena_moves - base)
        if n < 0:
            if n != GD_EOVERFLOW:
                # not a full arena: say so at the entry point, not grow it in vain (a
                # record whose nwild no check read grew it to its most, then a MemoryError)
                self.refused = n
            return -1
        count[0] = n + extra
        return base

    cdef int _static_score(self, const gd_move_t* m) noexcept nogil:
        # the move order's score without what the search learns (table move, history)
        cdef int seat = self.st.to_move, sc
        if m.type == GD_PASS:
            return -1000    # after every play but bombs, even over a partner (measured)
        if m.ncards == self.st.ncards[seat]:
            return 100000
        sc = m.ncards * 100 - m.key
        if m.type >= GD_STRAIGHT_FLUSH:
            sc -= 3000
        if 1 <= m.type <= 3 and m.nwild == 0 and m.label < 13:
            # breaking up a pair or triple comes later (measured: ~10% fewer nodes)
            sc -= 60 * (self.st.rc[seat][m.label] - m.ncards)
        return sc

    cdef void _order(self, gd_move_t* moves, int n, uint16_t best_sig) noexcept nogil:
        # sort by a heuristic score, highest first (insertion sort: lists are short)
        cdef int scores[1024]
        cdef int i, j, sc, seat = self.st.to_move
        cdef gd_move_t tmp
        cdef int left = self.st.ncards[seat]
        if n > 1024:
            return
        for i in range(n):
            if best_sig != 0 and _sig16(&moves[i], self.level) == best_sig:
                sc = 1000000
            elif moves[i].type == GD_PASS and self._partner_holds_table():
                # right after going out (measured: 4x8 x0.87 nodes with the unbeatable
                # plays alone, x0.72 more with the high ones)
                sc = 99999
            else:
                sc = self._static_score(&moves[i])
                if self.use_history and moves[i].type != GD_PASS and moves[i].ncards != left:
                    sc += 16000 * min(self.history[seat][moves[i].type][moves[i].key & 63], 5)
            scores[i] = sc
        for i in range(1, n):
            sc = scores[i]
            tmp = moves[i]
            j = i - 1
            while j >= 0 and scores[j] < sc:
                scores[j + 1] = scores[j]
                moves[j + 1] = moves[j]
                j -= 1
            scores[j + 1] = sc
            moves[j + 1] = tmp

    cdef inline bint _can_beat(self, int seat, const gd_move_t* m) noexcept nogil:
        # does `seat` hold cards and a move that beats m? (capacity 0: the kernel stops
        # with an overflow at the first beating move)
        cdef gd_move_t scratch
        return self.st.ncards[seat] != 0 and \
            gd_enumerate(self.st.hands[seat], self.level, m, &self.rules, &scratch, 0) != 0

    cdef bint _partner_holds_table(self) noexcept nogil:
        # does the partner own the table with a high single, pair, triple or three-with-two
        # (HIGH_ORDER or above), or with a play neither opponent can beat? Then the pass
        # (the partner leads again unless an opponent answers) is usually right
        cdef int seat = self.st.to_move
        if self.st.owner != (seat ^ 2):
            return False
        if GD_SINGLE <= self.st.table.type <= GD_THREE_WITH_TWO and self.st.table.key >= HIGH_ORDER:
            return True
        return not self._can_beat((seat + 1) & 3, &self.st.table) \
            and not self._can_beat((seat + 3) & 3, &self.st.table)

    # ------------------------------------------------------------ running out

    cdef bint _unbeatable(self, const gd_move_t* m) noexcept nogil:
        # no other player holding cards has any move that beats m
        cdef int t
        for t in range(4):
            if t != self.st.to_move and self._can_beat(t, m):
                return False
        return True

    cdef bint _cover(self, uint8_t* left, int nleft, gd_move_t* moves, uint8_t* ok, int n) noexcept nogil:
        # can `left` be split exactly into moves marked ok? (always cover the lowest card)
        cdef int k, i, j, low = -1
        cdef bint fits, found
        if nleft == 0:
            return True
        for k in range(54):
            if left[k]:
                low = k
                break
        for i in range(n):
            if not ok[i]:
                continue
            found = False
            for j in range(moves[i].ncards):
                if moves[i].cards[j] == low:
                    found = True
                    break
            if not found:
                continue
            fits = True
            for j in range(moves[i].ncards):
                if left[moves[i].cards[j]] == 0:
                    fits = False
                left[moves[i].cards[j]] -= 1
            if fits and self._cover(left, nleft - moves[i].ncards, moves, ok, n):
                for j in range(moves[i].ncards):
                    left[moves[i].cards[j]] += 1
                self.cover_first = i        # the outermost call writes last
                return True
            for j in range(moves[i].ncards):
                left[moves[i].cards[j]] += 1
        return False

    cdef bint _can_run_out(self, gd_move_t* moves, int n) noexcept nogil:
        # the leader's hand splits into plays nobody else can beat: playing them one by one,
        # everyone else must pass each time, so the leader goes out uninterrupted
        cdef uint8_t ok[256]
        cdef uint8_t left[54]
        cdef int i, any_ok = 0
        if n > 256:
            return False
        for i in range(n):
            ok[i] = self._unbeatable(&moves[i])
            any_ok |= ok[i]
        if not any_ok:
            return False
        memcpy(left, self.st.hands[self.st.to_move], 54)
        return self._cover(left, self.st.ncards[self.st.to_move], moves, ok, n)

    cdef void _run_out(self) noexcept nogil:
        # the state after the leader has played out: out next, its partner leads
        cdef state_t* s = &self.st
        cdef int seat = s.to_move
        memset(s.hands[seat], 0, 54)
        memset(s.rc[seat], 0, 16)
        s.omask[seat] = 0
        s.ncards[seat] = 0
        s.sfpot[seat] = 0
        s.seqpot[seat] = 0
        s.order[s.nfinished] = seat
        s.nfinished += 1
        s.owner = -1
        s.to_move = seat ^ 2

    # ------------------------------------------------------------ search

    cdef inline int _child_value(self, int alpha, int beta, int ply) noexcept nogil:
        # value of the state just reached by a move: the outcome if the hand is over
        if _over(&self.st):
            return _outcome(&self.st)
        return self._search(alpha, beta, ply + 1)

    cdef int _search(self, int alpha, int beta, int ply) noexcept nogil:
        cdef pstate_t plain
        cdef state_t saved
        cdef undo_t undo
        cdef int base, n = 0, i, v, best, a0, b0
        cdef bint maximizing
        cdef uint64_t k1 = 0, k2 = 0
        cdef uint32_t check = 0
        cdef uint16_t best_sig = 0
        cdef tt_entry_t* e = NULL
        cdef uint32_t gen = 0
        cdef gd_move_t* moves
        cdef int best_i = -1
        if self.aborted:
            return ABORTED
        if self._plain_search_here():
            self._to_plain(&plain)
            return self._psearch(&plain, alpha, beta, ply)
        if self._budget_spent():
            return ABORTED
        self.nodes += 1
        if self.nodes >= self.grow_at:
            self._grow()
        if (self.nodes >= self.next_check and self._time_is_up()) or ply >= MAX_PLY - 1:
            self.aborted = True
            return ABORTED
        if self.use_bounds:
            v = _bound_cut(self.st.order, self.st.nfinished, alpha, beta)
            if v != NO_VALUE:
                return v
        base = self._generate(&n)
        if base < 0:
            # the arena is full: the search ends as at a limit, and its Python entry point
            # grows the arena and asks again (or raises)
            self.overflowed = OVERFLOW_MOVES
            self.aborted = True
            return ABORTED
        moves = self.arena + base
        if n == 1:
            # a forced move (a follower who can only pass): no table work
            self.arena_top = base + 1
            self._play_undoable(&moves[0], &undo)
            v = self._child_value(alpha, beta, ply)
            self._unplay(&moves[0], &undo)
            self.arena_top = base
            return v
        if self.use_tt:
            self._key(&k1, &k2)
            check = _check(k2, self.tt_salt)
            e = self._entry(k1, self.st.ncards)
            gen = self.tt_gen
            v = self._tt_probe(e, k1, check, &alpha, &beta, &best_sig)
            if v != NO_VALUE:
                return v
        # after the table: a cut-off there needs no merged moves (about 3% faster on 4x6)
        n = self._merged(moves, n)
        a0 = alpha   # the window actually searched, for the kind of bound we learn
        b0 = beta
        if self.use_etc and self.use_tt and self.st.owner < 0:
            # on lead only, where it pays: every child's canonical key, to search equivalent
            # moves once and to cut off on a child's table entry (measured: following moves
            # are few, and the keys cost more than they save there)
            n = self._dedupe(moves, n, alpha, beta, &v)
            if v != NO_VALUE:
                if ply == 0:
                    self._note_proof(&moves[self.etc_cut], v)
                return v
        if self.use_ordering:
            self._order(moves, n, best_sig)
        self.arena_top = base + n
        maximizing = _team(self.st.to_move) == 0
        best = -10 if maximizing else 10
        if self.use_runout and self.st.owner < 0 and self._can_run_out(moves, n):
            # a proven line: its value bounds this node from our side
            saved = self.st
            self._run_out()
            v = self._child_value(alpha, beta, ply)
            self.st = saved
            if v == ABORTED:
                self.arena_top = base
                return ABORTED
            best = v
            if ply == 0 and ((maximizing and v > alpha) or (not maximizing and v < beta)):
                self._note_proof(&moves[self.cover_first], v)   # its first play proves v
            if maximizing and v > alpha:
                alpha = v
            elif not maximizing and v < beta:
                beta = v
        for i in range(n):
            if alpha >= beta:
                break
            self._play_undoable(&moves[i], &undo)
            v = self._child_value(alpha, beta, ply)
            self._unplay(&moves[i], &undo)
            if v == ABORTED:
                self.arena_top = base
                return ABORTED
            if maximizing:
                if v > best:
                    best = v
                    best_i = i
                    if v > alpha:
                        alpha = v
            else:
                if v < best:
                    best = v
                    best_i = i
                    if v < beta:
                        beta = v
            if alpha >= beta:
                if self.use_history:
                    # cut-offs with more cards left count more (measured: ~5% fewer nodes)
                    _count_cut(&self.history[self.st.to_move][moves[i].type][moves[i].key & 63],
                               1 + self.st.ncards[self.st.to_move])
                break
        self.arena_top = base
        if ply == 0 and best_i >= 0 and ((maximizing and best > a0) or
                                         (not maximizing and best < b0)):
            self._note_proof(&moves[best_i], best)      # not a fail-low: a proven bound
        if self.use_tt and e != NULL:
            if self.tt_gen != gen:
                e = self._entry(k1, self.st.ncards)     # the table grew meanwhile
            self._tt_store(e, k1, check, best, a0, b0,
                           _sig16(&moves[best_i], self.level) if best_i >= 0 else 0)
        return best

    cdef inline bint _budget_spent(self) noexcept nogil:
        # before each node is counted: a search makes at most node_limit nodes
        if self.node_limit >= 0 and self.nodes >= self.node_limit:
            self.aborted = True
            return True
        return False

    cdef void _note_proof(self, const gd_move_t* m, int v) noexcept nogil:
        # at the root (self.st): playing `m` gets the mover's team at least v (team-0
        # terms: >= v when team 0 moves, <= v otherwise); keep the strongest such proof
        cdef uint64_t k1, k2
        cdef pstate_t ps
        cdef bint maximizing = _team(self.st.to_move) == 0
        self._key_here(&k1, &k2, &ps)
        if self.has_proof and self.proof_k1 == k1 and self.proof_k2 == k2 and \
                (v <= self.proof_value if maximizing else v >= self.proof_value):
            return
        self.proof_rec = m[0]
        self.proof_value = v
        self.proof_k1 = k1
        self.proof_k2 = k2
        self.has_proof = True

    # ------------------------------------------------------------ plain positions
    #
    # A position is plain when no hand can form a bomb, a sequence or a straight flush:
    # then every play is a single, pair, triple or three-with-two, suits cannot matter and
    # no hand can become anything else as cards leave it. Almost every node of a
    # four-hand endgame is plain, so they get a search of their own over a compact state
    # (4-bit card counts, six-byte moves, the state copied per move) with the same
    # techniques and move ordering as _search (its node counts agree within 0.01%: moves
    # come by card order instead of rank, which only reorders ties).

    cdef inline bint _plain_search_here(self) noexcept nogil:
        # does the plain search take over here? (with a switch it does not have, the
        # general search stays as it was)
        return self.use_plain and self.use_merge and self.use_compress and not self.use_etc \
            and not self.use_runout and self._is_plain()

    cdef bint _is_plain(self) noexcept nogil:
        # can no hand form a bomb, a sequence or a straight flush any more?
        cdef state_t* s = &self.st
        cdef int seat
        for seat in range(4):
            if s.sfpot[seat] or s.seqpot[seat]:
                return False
        for seat in range(4):
            if self._may_bomb(seat):
                return False
        return True

    cdef void _to_plain(self, pstate_t* p) noexcept nogil:
        # the current (plain) state in the plain search's terms
        cdef state_t* s = &self.st
        cdef int seat, r
        memset(p, 0, sizeof(pstate_t))
        for seat in range(4):
            for r in range(13):
                p.cnt[seat] |= (<uint64_t> s.rc[seat][r]) << (4 * _order_of(r, self.level))
            p.cnt[seat] |= (<uint64_t> s.rc[seat][13]) << 56
            p.cnt[seat] |= (<uint64_t> s.rc[seat][14]) << 60
            p.omask[seat] = s.omask[seat]
            p.wilds[seat] = s.rc[seat][15]
            p.ncards[seat] = s.ncards[seat]
            p.order[seat] = s.order[seat]
        p.nfinished = s.nfinished
        p.to_move = s.to_move
        p.owner = s.owner
        if s.owner >= 0:
            p.ttype = s.table.type
            p.tkey = s.table.key
            p.tncards = s.table.ncards
        p.present = (1 << 13) | p.omask[0] | p.omask[1] | p.omask[2] | p.omask[3]
        for seat in range(4):
            p.ccnt[seat] = p.cnt[seat] & 0x00ffffffffffffffULL
        # squeeze out the orders nobody holds, highest first
        for r in range(13, -1, -1):
            if not (p.present >> r) & 1:
                for seat in range(4):
                    p.ccnt[seat] = _drop_nibble(p.ccnt[seat], r)

    cdef inline void _padd(self, pmove_t* m, int mtype, int order, int nat, int nwild,
                           int pair, int size) noexcept nogil:
        m.type = mtype
        m.order = order
        m.nat = nat
        m.nwild = nwild
        m.pair = pair
        m.size = size

    cdef int _psame_rank(self, const pstate_t* p, pmove_t* out, int size, int min_key) noexcept nogil:
        # the singles (size 1), pairs or triples above min_key: _same_rank's moves, but by
        # card order (the level rank's after the ace) and only over the orders held
        cdef uint64_t w = p.cnt[p.to_move]
        cdef int wilds = p.wilds[p.to_move]
        cdef int n = 0, j, o, c, most = min(wilds, size - 1)
        cdef uint32_t held = p.omask[p.to_move]
        if size > 1:
            held &= _orders_holding(w, size - most)    # where a play of this size fits
        if size == 2 and wilds == 2:
            held |= 1 << 13             # two wilds alone: a pair of the level rank
        if min_key >= 0:
            held &= ~((<uint32_t> 2 << min_key) - 1)
        while held:
            o = _lowest_bit(held)
            held &= held - 1
            c = (w >> (4 * o)) & 15
            for j in range(most + 1):
                if c >= size - j:
                    self._padd(&out[n], size, o, size - j, j, NO_PAIR, size)
                    n += 1
            if size == 2 and o == 13 and wilds == 2:
                self._padd(&out[n], 2, 13, 0, 2, NO_PAIR, 2)
                n += 1
        if size <= 2:
            for j in range(2):
                if <int> ((w >> (56 + 4 * j)) & 15) >= size and 14 + j > min_key:
                    self._padd(&out[n], size, 14 + j, size, 0, NO_PAIR, size)
                    n += 1
        if size == 1 and wilds and 13 > min_key:
            self._padd(&out[n], 1, 13, 0, 1, NO_PAIR, 1)
            n += 1
        return n

    cdef int _pfull_houses(self, const pstate_t* p, pmove_t* out, int min_key) noexcept nogil:
        # the three-with-twos with a triple above min_key: _full_houses's moves, by card
        # order like _psame_rank
        cdef uint64_t w = p.cnt[p.to_move]
        cdef int wilds = p.wilds[p.to_move]
        cdef int n = 0, j, jk, o, q, c
        cdef uint32_t held = p.omask[p.to_move], triples, pairs = 0, rest
        if min_key >= 0:
            held &= ~((<uint32_t> 2 << min_key) - 1)
        triples = held & _orders_holding(w, 3 - min(wilds, 2))
        pairs = _orders_holding(w, 2)
        while triples:
            o = _lowest_bit(triples)
            triples &= triples - 1
            c = (w >> (4 * o)) & 15
            for j in range(min(wilds, 2) + 1):
                if c < 3 - j:
                    continue
                rest = pairs & ~((<uint32_t> 1) << o)
                while rest:
                    q = _lowest_bit(rest)
                    rest &= rest - 1
                    self._padd(&out[n], 4, o, 3 - j, j, q, 5)
                    n += 1
                for jk in range(2):
                    if (w >> (56 + 4 * jk)) & 15 == 2:
                        self._padd(&out[n], 4, o, 3 - j, j, 14 + jk, 5)
                        n += 1
        return n

    cdef int _pgenerate(self, const pstate_t* p, pmove_t* out) noexcept nogil:
        # the moves of the seat to move, the pass first when following (at most a few
        # hundred: the caller checks the arena). A plain hand answers only a single, pair,
        # triple or three-with-two.
        cdef int n = 0
        if p.owner >= 0:
            self._padd(&out[0], 0, 0, 0, 0, NO_PAIR, 0)
            n = 1
            if 1 <= p.ttype <= 3:
                n += self._psame_rank(p, out + 1, p.ttype, p.tkey)
            elif p.ttype == 4:
                n += self._pfull_houses(p, out + 1, p.tkey)
            return n
        n = self._psame_rank(p, out, 1, -1)
        n += self._psame_rank(p, out + n, 2, -1)
        n += self._psame_rank(p, out + n, 3, -1)
        n += self._pfull_houses(p, out + n, -1)
        return n

    cdef inline void _ptake(self, pstate_t* p, int seat, int o, int k) noexcept nogil:
        # k cards of order o (14, 15: the jokers) leave the seat's hand
        cdef int place, t
        p.cnt[seat] -= (<uint64_t> k) << (4 * o)
        if o > 13 or k == 0:
            return
        place = _popcount(p.present & (((<uint32_t> 1) << o) - 1))
        p.ccnt[seat] -= (<uint64_t> k) << (4 * place)
        if (p.cnt[seat] >> (4 * o)) & 15 == 0:
            p.omask[seat] &= ~((<uint32_t> 1) << o)
            if o != 13 and not ((p.omask[0] | p.omask[1] | p.omask[2] | p.omask[3]) >> o) & 1:
                # nobody holds the order any more: out of play
                p.present &= ~((<uint32_t> 1) << o)
                for t in range(4):
                    p.ccnt[t] = _drop_nibble(p.ccnt[t], place)

    cdef void _pplay(self, pstate_t* p, const pmove_t* m) noexcept nogil:
        cdef int seat = p.to_move
        if m.type == 0:
            _pass_on(p.ncards, seat, &p.to_move, &p.owner)
            return
        self._ptake(p, seat, m.order, m.nat)
        if m.pair != NO_PAIR:
            self._ptake(p, seat, m.pair, 2)
        p.wilds[seat] -= m.nwild
        p.ncards[seat] -= m.size
        p.ttype = m.type
        p.tkey = m.order
        p.tncards = m.size
        p.owner = seat
        if p.ncards[seat] == 0:
            p.order[p.nfinished] = seat
            p.nfinished += 1
        if not _over_of(p.ncards):
            _pass_on(p.ncards, seat, &p.to_move, &p.owner)

    cdef void _pkey(self, const pstate_t* p, uint64_t* k1, uint64_t* k2) noexcept nogil:
        # _key's compressed key: counts by their place among the orders in play, the
        # table's key by how many of the answering players' orders it covers (see _key);
        # a play no plain hand can answer (a bomb, a sequence) only by its type
        cdef uint64_t h1 = 0x452821e638d01377ULL ^ self.key_salt, w
        cdef uint64_t h2 = 0xbe5466cf34e90c6cULL + self.key_salt
        cdef uint32_t others = 1 << 13
        cdef int seat, tkey = 0
        if p.owner >= 0:
            for seat in range(4):
                if seat != p.owner:
                    others |= p.omask[seat]
            tkey = _covered(others, p.tkey) if 1 <= p.ttype <= 4 else 0
        for seat in range(4):
            w = p.ccnt[seat] | ((p.cnt[seat] >> 56) & 3) << 56 | ((p.cnt[seat] >> 60) & 3) << 58
            w |= (<uint64_t> p.wilds[seat]) << 60
            _absorb(&h1, &h2, w + <uint64_t> (seat * 8 + 7))
        w = _turn_word(p.to_move, p.owner, p.nfinished, p.order, p.ttype, tkey, p.tncards)
        w ^= (<uint64_t> _popcount(p.present & 0x1fff)) << 56
        _finish_key(h1, h2, w, k1, k2)

    cdef int _pprune(self, const pstate_t* p, pmove_t* moves, int n) noexcept nogil:
        # _prune_dominated on plain moves (the argument is there)
        cdef int seat = p.to_move, o, t, i, j, kept = 0, w, opp, c, wl
        cdef uint64_t mine = p.cnt[seat]
        cdef uint32_t partner = p.omask[seat ^ 2] if p.ncards[seat ^ 2] else 0
        cdef uint32_t blocked[5]
        cdef uint32_t full[12]
        cdef uint32_t pairs[16]
        cdef uint32_t triples[16]
        cdef uint32_t triple_orders
        if n > 1024:
            return n
        memset(full, 0, sizeof(full))
        memset(pairs, 0, sizeof(pairs))
        memset(triples, 0, sizeof(triples))
        for t in range(1, 5):
            blocked[t] = partner
        for j in range(1, 4, 2):
            # where an opponent could make a play of each kind, wild cards filling in
            opp = seat ^ j
            wl = p.wilds[opp]
            blocked[1] |= p.omask[opp]
            blocked[2] |= p.omask[opp] if wl >= 1 else _orders_holding(p.cnt[opp], 2)
            triple_orders = _orders_holding(p.cnt[opp], 3 - min(wl, 2))
            blocked[3] |= triple_orders
            blocked[4] |= triple_orders
        for i in range(n):
            t = moves[i].type
            o = moves[i].order
            if not (1 <= t <= 4 and o <= 12):
                continue
            if t == 4:
                w = moves[i].pair
                if moves[i].nwild or w > 12 or (mine >> (4 * w)) & 15 != 2:
                    continue
                pairs[o] |= (<uint32_t> 1) << w
                if (mine >> (4 * o)) & 15 == 3:
                    triples[w] |= (<uint32_t> 1) << o
            elif <int> ((mine >> (4 * o)) & 15) == moves[i].nat:
                full[t * 3 + moves[i].nwild] |= (<uint32_t> 1) << o
        for i in range(n):
            t = moves[i].type
            o = moves[i].order
            if 1 <= t <= 4 and o <= 12:
                c = (mine >> (4 * o)) & 15
                if t == 4:
                    w = moves[i].pair
                    if not moves[i].nwild and w <= 12 and (mine >> (4 * w)) & 15 == 2:
                        if self._lower_play_within(pairs[o], partner, w):
                            continue
                        if c == 3 and self._lower_play_within(triples[w], blocked[4], o):
                            continue
                elif self._breaks_cleanly(c, moves[i].nat, p.wilds[seat]):
                    if self._lower_play_within(full[t * 3 + moves[i].nwild], blocked[t], o):
                        continue
            if kept != i:
                moves[kept] = moves[i]
            kept += 1
        return kept

    cdef void _pscore(self, const pstate_t* p, const pmove_t* moves, int n, uint16_t best_sig,
                      int* scores) noexcept nogil:
        # _order's scores for plain moves; _pselect tries them by score
        cdef int i, sc, seat = p.to_move, left = p.ncards[p.to_move]
        for i in range(n):
            if best_sig != 0 and _psig16(&moves[i]) == best_sig:
                sc = 1000000
            elif moves[i].type == 0:
                sc = 99999 if self._ppartner_holds_table(p) else -1000
            elif moves[i].size == left:
                sc = 100000
            else:
                sc = moves[i].size * 100 - moves[i].order
                if moves[i].type <= 3 and moves[i].nwild == 0 and moves[i].order <= 13:
                    sc -= 60 * (<int> ((p.cnt[seat] >> (4 * moves[i].order)) & 15) - moves[i].nat)
                if self.use_history:
                    sc += 16000 * min(self.history[seat][moves[i].type][moves[i].order], 5)
            scores[i] = sc

    cdef inline void _pselect(self, pmove_t* moves, int* scores, int i, int n) noexcept nogil:
        # Move the first of the highest-scored moves from i on to place i, the ones it
        # passes keeping their order: tried one at a time, this is a stable sort by score,
        # done only as far as the search gets (usually its first move cuts off)
        cdef int j = i, k, sc = scores[i]
        cdef pmove_t tmp
        for k in range(i + 1, n):
            if scores[k] > sc:
                sc = scores[k]
                j = k
        if j == i:
            return
        tmp = moves[j]
        for k in range(j, i, -1):
            moves[k] = moves[k - 1]
            scores[k] = scores[k - 1]
        moves[i] = tmp
        scores[i] = sc

    cdef inline int _pchild(self, pstate_t* p, int alpha, int beta, int ply) noexcept nogil:
        # the value after a move: followers who can only pass pass here, each counted as
        # the node _psearch would have made of it (passes leave the bounds as they are)
        if _over_of(p.ncards):
            return _outcome_of(p.order, p.nfinished)
        if not self.use_bounds or _bound_cut(p.order, p.nfinished, alpha, beta) == NO_VALUE:
            while p.owner >= 0 and not self._pcan_answer(p):
                if self._budget_spent():
                    return ABORTED
                self.nodes += 1
                _pass_on(p.ncards, p.to_move, &p.to_move, &p.owner)
        return self._psearch(p, alpha, beta, ply + 1)

    cdef inline bint _pcan_answer(self, const pstate_t* p) noexcept nogil:
        # does the seat to move have a play that beats the table (a move of _pgenerate's
        # besides the pass)?
        return self._pcan_beat(p, p.to_move)

    cdef bint _ppartner_holds_table(self, const pstate_t* p) noexcept nogil:
        # _partner_holds_table for plain positions
        cdef int seat = p.to_move
        if p.owner != (seat ^ 2):
            return False
        if 1 <= p.ttype <= 4 and p.tkey >= HIGH_ORDER:
            return True
        return not (p.ncards[(seat + 1) & 3] and self._pcan_beat(p, (seat + 1) & 3)) \
            and not (p.ncards[(seat + 3) & 3] and self._pcan_beat(p, (seat + 3) & 3))

    cdef bint _pcan_beat(self, const pstate_t* p, int seat) noexcept nogil:
        # does `seat` hold a play that beats the table?
        cdef int k = p.tkey, t = p.ttype
        cdef uint64_t w = p.cnt[seat]
        cdef int wilds = p.wilds[seat]
        cdef uint32_t above, pairs
        if t < 1 or t > 4:
            return False
        above = p.omask[seat] & ~((<uint32_t> 2 << k) - 1)
        if t == 1:
            return above != 0 or (wilds and 13 > k) or ((w >> 56) & 15 and 14 > k) \
                or ((w >> 60) & 15 and 15 > k)
        if t == 2:
            return (wilds == 2 and 13 > k) or ((w >> 56) & 15 >= 2 and 14 > k) \
                or ((w >> 60) & 15 >= 2 and 15 > k) or (wilds and above) \
                or (above & _orders_holding(w, 2)) != 0
        above &= _orders_holding(w, 3 - min(wilds, 2))      # where a triple fits
        if above == 0 or t == 3:
            return above != 0
        # a three-with-two also needs a pair of another order: natural pairs, joker pairs
        pairs = _orders_holding(w, 2)
        if (w >> 56) & 15 == 2 or (w >> 60) & 15 == 2:
            pairs |= 1 << 16
        if pairs & (pairs - 1):
            return True                 # two pairs: one differs from any triple
        return pairs != 0 and (above & ~pairs) != 0

    cdef int _psearch(self, pstate_t* p, int alpha, int beta, int ply) noexcept nogil:
        # _search for plain positions
        cdef pstate_t saved
        cdef int base = self.parena_top, n, i, v, best, a0, b0, best_i = -1, mover, owner
        cdef gd_move_t proof
        cdef bint maximizing
        cdef uint64_t k1 = 0, k2 = 0
        cdef uint32_t check = 0
        cdef uint16_t best_sig = 0
        cdef tt_entry_t* e = NULL
        cdef uint32_t gen = 0
        cdef pmove_t* moves = self.parena + base
        cdef int* scores = self.pscores + base
        if self.aborted:
            return ABORTED
        if self._budget_spent():
            return ABORTED
        self.nodes += 1
        if self.nodes >= self.grow_at:
            self._grow()
        if (self.nodes >= self.next_check and self._time_is_up()) or ply >= MAX_PLY - 1:
            self.aborted = True
            return ABORTED
        if base + 1024 > PLAIN_ARENA:       # (plain positions hold a few dozen cards)
            self.overflowed = OVERFLOW_PLAIN
            self.aborted = True
            return ABORTED
        if self.use_bounds:
            v = _bound_cut(p.order, p.nfinished, alpha, beta)
            if v != NO_VALUE:
                return v
        if self.use_tt:
            # the entry is read at random: ask for it now, generate the moves meanwhile
            self._pkey(p, &k1, &k2)
            e = self._entry(k1, p.ncards)
            gen = self.tt_gen
            __builtin_prefetch(e)
        n = self._pgenerate(p, moves)
        if n == 1:
            # a forced move (a follower who can only pass, or a lead of one play): no
            # table work
            self.parena_top = base + 1
            if moves[0].type == 0:
                # a pass changes only whose turn it is (no state copy)
                mover = p.to_move
                owner = p.owner
                self._pplay(p, &moves[0])
                v = self._pchild(p, alpha, beta, ply)
                p.to_move = mover
                p.owner = owner
            else:
                saved = p[0]
                self._pplay(p, &moves[0])
                v = self._pchild(p, alpha, beta, ply)
                p[0] = saved
            self.parena_top = base
            return v
        if self.use_tt:
            check = _check(k2, self.tt_salt)
            v = self._tt_probe(e, k1, check, &alpha, &beta, &best_sig)
            if v != NO_VALUE:
                return v
        if self.use_dominance and n - (p.owner >= 0) >= 2:
            # (it takes two plays for one to dominate the other)
            n = self._pprune(p, moves, n)
        a0 = alpha
        b0 = beta
        if self.use_ordering:
            self._pscore(p, moves, n, best_sig, scores)
        self.parena_top = base + n
        maximizing = _team(p.to_move) == 0
        best = -10 if maximizing else 10
        saved = p[0]
        for i in range(n):
            if alpha >= beta:
                break
            if self.use_ordering:
                self._pselect(moves, scores, i, n)
            self._pplay(p, &moves[i])
            v = self._pchild(p, alpha, beta, ply)
            p[0] = saved
            if v == ABORTED:
                self.parena_top = base
                return ABORTED
            if maximizing:
                if v > best:
                    best = v
                    best_i = i
                    if v > alpha:
                        alpha = v
            else:
                if v < best:
                    best = v
                    best_i = i
                    if v < beta:
                        beta = v
            if alpha >= beta:
                if self.use_history:
                    _count_cut(&self.history[p.to_move][moves[i].type][moves[i].order],
                               1 + p.ncards[p.to_move])
                break
        self.parena_top = base
        if ply == 0 and best_i >= 0 and ((maximizing and best > a0) or
                                         (not maximizing and best < b0)):
            # (at the root self.st is this position; suits cannot matter in it)
            self._from_plain(&moves[best_i], &proof)
            self._note_proof(&proof, best)
        if self.use_tt:
            if self.tt_gen != gen:
                e = self._entry(k1, p.ncards)           # the table grew meanwhile
            self._tt_store(e, k1, check, best, a0, b0, _psig16(&moves[best_i]) if best_i >= 0 else 0)
        return best

    cdef inline bint _time_is_up(self) noexcept nogil:
        # checked at the first node and then every 1,024 nodes: the deadline passed, or
        # stop() was called, or (every 65,536 nodes, a few milliseconds) a signal handler
        # raised, as Ctrl-C's does
        self.next_check = self.nodes + 1024
        if self.gil_held and self.nodes >= self.gil_release_at:
            self.gil_held = False
            self.gil_state = PyEval_SaveThread()
        if gd_flag_load(&self.stop_flag) != 0 or (self.deadline > 0 and _now() > self.deadline):
            return True
        if self.nodes >= self.next_signal_check:
            return self._now_and_then()
        return False

    cdef bint _now_and_then(self) noexcept nogil:
        # every 65,536 nodes (a few milliseconds): Python's signal handlers and the
        # heartbeat, when they are on (kept out of the inlined check above)
        self.next_signal_check = self.nodes + 65536
        if self.check_signals_ and self._signalled():
            return True
        if self.heartbeat_every > 0 and _now() >= self.next_heartbeat:
            return self._beat()
        return False

    cdef bint _beat(self) noexcept nogil:
        # the heartbeat's call, with the GIL (taken back if the search gave it up, as in
        # _signalled); True (the search ends, as at a limit) when it raised: its exception
        # stays set and goes on up as a signal handler's does
        cdef bint raised
        if self.gil_held:
            return self._beat_holding_gil()
        PyEval_RestoreThread(self.gil_state)
        raised = self._beat_holding_gil()
        self.gil_state = PyEval_SaveThread()
        return raised

    cdef bint _beat_holding_gil(self) noexcept nogil:
        cdef PyObject* result = PyObject_CallNoArgs(self.heartbeat_ptr)
        # counted from the call's end, so that a slow heartbeat cannot fill the search
        self.next_heartbeat = _now() + self.heartbeat_every
        if result == NULL:
            return True
        Py_DecRef(result)
        return False

    cdef bint _signalled(self) noexcept nogil:
        cdef bint raised
        if self.gil_held:
            return PyErr_CheckSignals() != 0
        # the GIL taken back on the thread state the search gave up, and given up again:
        # `with gil` (PyGILState_Ensure) takes the thread's default state, which in a
        # sub-interpreter is the main interpreter's: the exception went there, the search
        # returned None and the main interpreter failed
        PyEval_RestoreThread(self.gil_state)
        raised = PyErr_CheckSignals() != 0
        self.gil_state = PyEval_SaveThread()
        return raised

    cdef void _begin(self) noexcept:
        # a compiled search is about to run from a Python entry point, with the GIL held:
        # other calls are refused meanwhile, and it gives up the GIL once it is long
        # enough to be worth it. Every _begin is followed by an _end, with nothing that
        # can raise between (the searches are noexcept).
        self.searching = True
        self.overflowed = 0             # (left set if a signal's exception ended the last)
        self.refused = 0
        self.gil_held = True
        self.gil_release_at = self.nodes + GIL_NODES
        self.gil_state = NULL

    cdef void _end(self) noexcept:
        # the search has returned: the GIL back if it gave it up
        if self.gil_state != NULL:
            PyEval_RestoreThread(self.gil_state)
            self.gil_state = NULL
        self.gil_held = False
        self.searching = False

    # ------------------------------------------------------------ Python entry points

    def limits(self, node_limit=None, time_limit=None):
        """Set a node budget and a time budget (seconds from now); None for no limit. The
        node budget bounds ``nodes``, which counts from the last reset_counters() (solve()
        and probe() call both before each question), not from this call. Also withdraws a
        stop() request, and the end of a search a limit stopped: until this is called
        again, every later search returns None at once, reset_counters() or not."""
        self._check_idle()
        time_limit, node_limit = _checked_limits(time_limit, node_limit)
        self.node_limit = -1 if node_limit is None else node_limit
        self.deadline = -1 if time_limit is None else _now() + time_limit
        gd_flag_store(&self.stop_flag, 0)
        self.aborted = False

    def stop(self):
        """End the search running on this searcher (in whatever thread) at its next check,
        within about 1,024 nodes (3,000 right after a search starts, while it holds the GIL
        this call needs), as if its time limit had run out; searches after it end as
        quickly until limits() is called again. Safe to call from any thread."""
        gd_flag_store(&self.stop_flag, 1)

    cdef int _arena_full(self) except -1:
        raise MemoryError(f"the moves along a line of play do not fit the search's move "
                          f"arena ({self.arena_moves:,} moves"
                          f"{', its most' if self.arena_moves >= ARENA_MAX_MOVES else ''}"
                          f"): hands of very many moves, long sequences?")

    cdef bint _retry_larger(self) except -1:
        # after a search from a Python entry point: True when it ran out of move arena
        # and the arena is now 4 times larger, to ask again (no search holds a pointer
        # into it now); a MemoryError when it cannot grow
        cdef gd_move_t* bigger
        cdef int kind = self.overflowed
        cdef size_t size = <size_t> self.arena_moves * 4 * sizeof(gd_move_t)
        if self.refused:
            status, self.refused, self.overflowed, self.aborted = self.refused, 0, 0, False
            raise RuntimeError(f"the move kernel refused what the search gave it (status "
                               f"{status}): a position or record that no check caught")
        if kind == 0:
            return False
        self.overflowed = 0
        # no limit stopped it: the next search must not end at once as if one had
        self.aborted = False
        if kind == OVERFLOW_PLAIN:
            raise MemoryError(f"the plain search's move arena ({PLAIN_ARENA:,} moves, a "
                              f"fixed size) is full")
        if self.arena_moves >= ARENA_MAX_MOVES:
            self._arena_full()
        bigger = <gd_move_t*> realloc(self.arena, size)
        if bigger == NULL:
            raise MemoryError(f"cannot allocate a move arena of {self.arena_moves * 4:,} "
                              f"moves ({size:,} bytes)")
        self.arena = bigger
        self.arena_moves *= 4
        return True

    def reset_counters(self):
        self._check_idle()
        self.nodes = 0
        self.tt_hits = 0
        self.next_check = 0
        self.next_signal_check = 65536
        self._set_grow_at()

    def search(self, alpha, beta):
        """Fail-soft alpha-beta value for team 0 within (alpha, beta), -4 <= alpha < beta
        <= 4 (else a ValueError: an empty window stored a value out of range); None if
        aborted."""
        cdef int v
        self._check_loaded()
        # (C ints before _begin(): nothing may raise between it and _end())
        cdef int a = _value_number("alpha", alpha), b = _value_number("beta", beta)
        if a >= b:
            raise ValueError(f"the window ({a}, {b}) is empty: alpha < beta")
        if _over(&self.st):
            return _outcome(&self.st)
        while True:
            self._begin()
            v = self._search(a, b, 0)
            self._end()
            _raise_pending()
            if not self._retry_larger():
                break
        if v == ABORTED:
            return None
        return v

    def is_over(self):
        self._check_loaded()
        return bool(_over(&self.st))

    def key(self, bint plain=False):
        """The canonical table key of the current state (for tests and debugging).
        ``plain``: the plain positions' search's key (ValueError if not plain)."""
        self._check_loaded()
        cdef uint64_t a, b
        cdef pstate_t ps
        if plain:
            self._plain_here(&ps)
            self._pkey(&ps, &a, &b)
        else:
            self._key(&a, &b)
        return (a, b)

    def outcome(self):
        self._check_loaded()
        return _outcome(&self.st)

    def proof_move(self, value):
        """The root move that proved the mover's team gets ``value`` or better in the
        current position (team-0 terms: at least ``value`` when team 0 moves, at most it
        otherwise), as an index into root_moves(); -1 when no search from this position
        proved it with a move (a forced move, or a bound that holds whatever is played)."""
        self._check_loaded()
        value = _value_number("value", value)
        cdef uint64_t k1, k2
        cdef pstate_t ps
        cdef gd_move_t* moves
        cdef sig_t want, si
        cdef int n = 0, i, j, base
        cdef bint same
        if not self.has_proof or _over(&self.st):
            return -1
        self._key_here(&k1, &k2, &ps)
        if k1 != self.proof_k1 or k2 != self.proof_k2:
            return -1
        if (self.proof_value < value) if _team(self.st.to_move) == 0 else \
                (self.proof_value > value):
            return -1
        base = self._generate(&n, True)
        if base < 0:
            self._arena_full()
        moves = self.arena + base
        for i in range(n):          # the very cards first
            same = moves[i].type == self.proof_rec.type and \
                moves[i].key == self.proof_rec.key and \
                moves[i].ncards == self.proof_rec.ncards
            for j in range(moves[i].ncards if same else 0):
                if moves[i].cards[j] != self.proof_rec.cards[j]:
                    same = False
                    break
            if same:
                return i
        # a plain move's suits are the lowest ones (suits cannot matter in a plain
        # position): the same play up to suits
        want = _signature(&self.proof_rec, self.level)
        for i in range(n):
            si = _signature(&moves[i], self.level)
            if _same_signature(&si, &want):
                return i
        return -1

    def holds_position(self):
        """Whether the table holds an entry for the current position (for tests)."""
        self._check_loaded()
        cdef uint64_t k1, k2
        cdef pstate_t ps
        cdef tt_entry_t* e
        if not self.use_tt or _over(&self.st):
            return False
        e = self._entry_here(&k1, &k2, &ps)
        return e.check == _check(k2, self.tt_salt) and e.key1 == k1

    def forget_position(self):
        """Drop the table's entry of the current position, if it holds one. solve() does
        this for its root, so that its first question is searched there and proof_move()
        can name the move that answered it (a root decided by the table alone would not)."""
        self._check_loaded()
        cdef uint64_t k1, k2
        cdef tt_entry_t* e
        cdef pstate_t ps
        if not self.use_tt or _over(&self.st):
            return
        e = self._entry_here(&k1, &k2, &ps)
        if e.check == _check(k2, self.tt_salt) and e.key1 == k1:
            memset(e, 0, sizeof(tt_entry_t))

    cdef tt_entry_t* _entry_here(self, uint64_t* k1, uint64_t* k2,
                                 pstate_t* ps) noexcept nogil:
        # the current position's slot, as the search that starts here keys it (``ps``: the
        # position in the plain search's form, filled when that search starts here)
        if self._key_here(k1, k2, ps):
            return self._entry(k1[0], ps.ncards)
        return self._entry(k1[0], self.st.ncards)

    cdef bint _key_here(self, uint64_t* k1, uint64_t* k2, pstate_t* ps) noexcept nogil:
        # the current position's table key, as the search that starts here makes it;
        # True when that is the plain search (``ps`` then holds the position in its form)
        if self._plain_search_here():
            self._to_plain(ps)
            self._pkey(ps, k1, k2)
            return True
        self._key(k1, k2)
        return False

    def to_move(self):
        self._check_loaded()
        return self.st.to_move

    def root_moves(self, bint merge=True):
        """The moves of the seat to move as MOVE_DTYPE bytes, in a fixed order (the pass
        first when following); for each the index of its merge group's first move; and for
        each its score in the move order without what the search learned (higher first):
        a preference that depends on the position alone. No moves once the hand is over."""
        self._check_loaded()
        cdef int base, n = 0, i
        cdef gd_move_t* moves
        cdef sig_t si
        if _over(&self.st):
            return b"", [], []      # (nobody is to move: as Position.legal_moves())
        base = self._generate(&n, True)
        if base < 0:
            self._arena_full()
        moves = self.arena + base
        data = bytes((<uint8_t*> moves)[:n * sizeof(gd_move_t)])
        groups = list(range(n))
        scores = [self._static_score(&moves[i]) for i in range(n)]
        if merge and self._suits_free():
            sigs = []
            for i in range(n):
                si = _signature(&moves[i], self.level)
                sigs.append((si.ranks, si.shape))
            first = {}
            for i in range(n):
                groups[i] = first.setdefault(sigs[i], i)
        return data, groups, scores

    cdef int _reaches_here(self, int value, bint maximizing) noexcept nogil:
        # whether the side to move holds the team-0 value at `value` or better for it
        # (>= value for team 0, <= value for team 1): 1 or 0, ABORTED at a limit. One
        # null-window probe, none where the answer needs no search
        cdef int t = value if maximizing else value + 1, r
        if _over(&self.st):
            r = _outcome(&self.st)
            return (r >= value) if maximizing else (r <= value)
        if t <= -3:         # every value is at least the lowest (whatever the limits)
            r = 1
        elif t > 3:         # and none is above the highest
            r = 0
        else:
            r = self._search(t - 1, t, 0)
            if r == ABORTED:
                return ABORTED
            r = r >= t
        return r if maximizing else not r

    cdef int _best_here(self, int value, gd_move_t* best) noexcept nogil:
        # the best move for the side to move when the team-0 value is `value`: the first,
        # in the order of preference that root_moves() gives (its scores, higher first,
        # ties in legal order; one move per merge group, the group's first), that keeps
        # the value. Its index among root_moves(), copied to `best`; ABORTED at a limit
        # (or with the move arena full: overflowed), BEST_NONE when no move keeps it (the
        # side to move does not reach the value), BEST_NO_MEMORY when malloc failed
        cdef int base, n = 0, i, j, k, r, found = BEST_NONE
        cdef int last_score = 0, last_i = -1, sc
        cdef bint maximizing = _team(self.st.to_move) == 0, merge
        cdef gd_move_t* moves
        cdef gd_move_t m
        cdef int* scores
        cdef sig_t* sigs = NULL
        cdef state_t saved
        base = self._generate(&n, True)
        if base < 0:
            self.overflowed = OVERFLOW_MOVES
            self.aborted = True
            return ABORTED
        moves = self.arena + base
        self.arena_top = base + n       # (the searches below generate above them)
        scores = <int*> malloc(n * sizeof(int) + 1)
        merge = self._suits_free()
        if merge:
            sigs = <sig_t*> malloc(n * sizeof(sig_t) + 1)
        if scores == NULL or (merge and sigs == NULL):
            free(scores)
            free(sigs)
            self.arena_top = base
            return BEST_NO_MEMORY
        for i in range(n):
            scores[i] = self._static_score(&moves[i])
            if merge:
                sigs[i] = _signature(&moves[i], self.level)
        saved = self.st
        for k in range(n):
            # the next move in the order: the highest score below the last one tried, or
            # the same score at a later index
            i = -1
            for j in range(n):
                sc = scores[j]
                if last_i >= 0 and (sc > last_score or (sc == last_score and j <= last_i)):
                    continue
                if i < 0 or sc > scores[i]:
                    i = j
            last_score, last_i = scores[i], i
            for j in range(i if merge else 0):
                if _same_signature(&sigs[j], &sigs[i]):
                    break           # not its group's first: searched as that one
            else:
                m = moves[i]
                self._play(&m)
                r = self._reaches_here(value, maximizing)
                self.st = saved
                if r == ABORTED:
                    found = ABORTED
                    break
                if r:
                    found = i
                    best[0] = m
                    break
        free(scores)
        free(sigs)
        self.arena_top = base
        return found

    def reaches(self, value, maximizing):
        """Whether the side to move holds the team-0 value at ``value`` or better for it
        (>= for team 0, ``maximizing``; <= for team 1); None when a limit stopped it."""
        self._check_loaded()
        cdef int v = _value_number("value", value)
        cdef bint side = _checked_switch("maximizing", maximizing)
        cdef int r
        while True:
            self._begin()
            r = self._reaches_here(v, side)
            self._end()
            _raise_pending()
            if not self._retry_larger():
                break
        return None if r == ABORTED else bool(r)

    def child_reaches(self, const uint8_t[::1] record, value, maximizing):
        """:meth:`reaches` after playing ``record`` (a legal move of the seat to move; the
        position is left as it was)."""
        self._check_loaded()
        cdef int v = _value_number("value", value)
        cdef bint side = _checked_switch("maximizing", maximizing)
        cdef gd_move_t m
        cdef int r
        cdef state_t saved = self.st
        self._check_move(record, &m)
        while True:
            self._begin()
            self._play(&m)
            r = self._reaches_here(v, side)
            self._end()
            self.st = saved
            _raise_pending()
            if not self._retry_larger():
                break
        return None if r == ABORTED else bool(r)

    def best_move(self, value):
        """The best move of the seat to move when the team-0 value is ``value`` (the first
        in the order of preference of :meth:`root_moves` that keeps it; it depends on the
        position alone, not on the table): its index among root_moves(), None when a
        limit stopped the choice. ``value`` must be one the side to move reaches (the
        position's value, or one worse for it), else ValueError; so is a hand that is
        over (nobody is to move)."""
        self._check_loaded()
        cdef int v = _value_number("value", value)
        cdef gd_move_t m
        cdef int r
        if _over(&self.st):
            raise ValueError("the hand is over: no move to choose")
        while True:
            self._begin()
            r = self._best_here(v, &m)
            self._end()
            _raise_pending()
            if not self._retry_larger():
                break
        return self._chosen(r, v)

    cdef object _chosen(self, int r, int value,
                        str why="the side to move does not reach it"):
        if r == BEST_NONE:
            # (from solve(): a search inconsistency; from a caller: a value the side to
            # move does not reach, or a first move that does not keep it)
            raise ValueError(f"no move keeps the team-0 value {value}: {why}")
        if r == BEST_NO_MEMORY:
            raise MemoryError("cannot allocate the best move's scores (a few bytes a move)")
        return None if r == ABORTED else r

    cdef int _line_here(self, gd_move_t m, int value, gd_move_t* line, int8_t* seats,
                        int most, int* n) noexcept nogil:
        # principal_line's walk from here, `m` first: the moves and their seats into
        # line/seats (n[0] of them, at most `most`); 0, or _best_here's failure code
        cdef int r = 0
        while n[0] < most:
            line[n[0]] = m
            seats[n[0]] = self.st.to_move
            n[0] += 1
            self._play(&m)
            if _over(&self.st):
                return 0
            r = self._best_here(value, &m)
            if r < 0:
                return r
        return BEST_NONE    # (cannot happen: a play comes at least every 4 moves)

    def principal_line(self, const uint8_t[::1] first, value):
        """The line from here when the team-0 value is ``value``: ``first`` (a legal move
        of the seat to move that keeps it), then the best move (:meth:`best_move`) of each
        seat in turn to the end of the hand. Returns (the moves as MOVE_DTYPE bytes, the
        seat of each, whether a limit cut the line short); the position is left as it
        was."""
        self._check_loaded()
        cdef int v = _value_number("value", value)
        cdef gd_move_t m
        cdef int n = 0, r = 0, most = 4, seat
        cdef state_t root = self.st
        self._check_move(first, &m)
        for seat in range(4):
            most += 4 * self.st.ncards[seat]    # a play at least every fourth move
        cdef gd_move_t* line = <gd_move_t*> malloc(most * sizeof(gd_move_t))
        cdef int8_t* seats = <int8_t*> malloc(most)
        if line == NULL or seats == NULL:
            free(line)
            free(seats)
            raise MemoryError()
        try:
            while True:
                n = 0
                self._begin()
                r = self._line_here(m, v, line, seats, most, &n)
                self._end()
                self.st = root
                _raise_pending()
                if not self._retry_larger():
                    break
            self._chosen(r, v, f"the line stopped after {n} move(s): the first move given "
                               "does not keep that value")
            return (bytes((<uint8_t*> line)[:n * sizeof(gd_move_t)]),
                    [seats[i] for i in range(n)], r == ABORTED)
        finally:
            free(line)
            free(seats)

    cdef int _plain_here(self, pstate_t* ps) except -1:
        # the current state for the plain search's test hooks; ValueError if not plain
        if not self._is_plain():
            raise ValueError("not a plain position")
        self._to_plain(ps)
        return 0

    def searched_moves(self, bint plain=False):
        """The moves the search tries at the current state, after its merges (suits that
        cannot matter) and without dominated plays, as MOVE_DTYPE bytes (for tests).
        ``plain``: those of the plain positions' search (ValueError if not plain)."""
        self._check_loaded()
        cdef int base, n = 0, i
        cdef pstate_t ps
        cdef pmove_t pm[1024]
        if plain:
            self._plain_here(&ps)
            n = self._pgenerate(&ps, pm)
            if self.use_dominance:
                n = self._pprune(&ps, pm, n)
            for i in range(n):
                self._from_plain(&pm[i], &self.arena[i])
            return bytes((<uint8_t*> self.arena)[:n * sizeof(gd_move_t)])
        base = self._generate(&n)
        if base < 0:
            self._arena_full()
        n = self._merged(self.arena + base, n)
        return bytes((<uint8_t*> (self.arena + base))[:n * sizeof(gd_move_t)])

    def plain_can_answer(self):
        """Whether the seat to move at the current (plain) state could beat the table, as
        the plain search decides it before passing for it (for tests)."""
        self._check_loaded()
        cdef pstate_t ps
        self._plain_here(&ps)
        return ps.owner >= 0 and bool(self._pcan_answer(&ps))

    def partner_holds_table(self, bint plain=False):
        """Whether the partner of the seat to move owns the table with a single, pair, triple
        or three-with-two of a queen or higher, or with a play neither opponent can beat, as
        the move order decides it (for tests). ``plain``: the plain positions' search's test
        (ValueError if not plain)."""
        self._check_loaded()
        cdef pstate_t ps
        if plain:
            self._plain_here(&ps)
            return bool(self._ppartner_holds_table(&ps))
        return bool(self._partner_holds_table())

    def plain_children(self):
        """For each move of the plain positions' search at the current (plain) state: its
        record and the table key of the state it leads to, as the search's incremental
        play computes it (for tests: it must equal the key computed afresh)."""
        self._check_loaded()
        cdef pstate_t ps, child
        cdef pmove_t pm[1024]
        cdef gd_move_t rec
        cdef uint64_t a, b
        cdef int n, i
        self._plain_here(&ps)
        n = self._pgenerate(&ps, pm)
        out = []
        for i in range(n):
            child = ps
            self._pplay(&child, &pm[i])
            self._pkey(&child, &a, &b)
            self._from_plain(&pm[i], &rec)
            out.append((bytes((<uint8_t*> &rec)[:sizeof(gd_move_t)]),
                        None if _over_of(child.ncards) else (a, b)))
        return out

    cdef void _from_plain(self, const pmove_t* pm, gd_move_t* m) noexcept nogil:
        # the move record of a plain move of the seat to move (lowest suits first)
        cdef int level = self.level, wk = level * 4 + 1
        cdef int rank = level if pm.order == 13 else pm.order
        cdef int pair_rank = level if pm.pair == 13 else pm.pair
        cdef int i
        if pm.type == 0:
            self._start_move(m, GD_PASS, GD_LABEL_PASS, 0)
            return
        if pm.order >= 14:
            self._start_move(m, pm.type, 13 + pm.order - 14, pm.order)
            for i in range(pm.nat):
                m.cards[i] = 52 + pm.order - 14
            m.ncards = pm.nat
            return
        self._start_move(m, pm.type, rank, pm.order)
        if pm.type == 4 and pm.pair <= 13 and pair_rank < rank:
            self._put_naturals(m, pair_rank, 2)
        self._put_naturals(m, rank, pm.nat)
        if pm.type == 4 and pm.pair <= 13 and pair_rank > rank:
            self._put_naturals(m, pair_rank, 2)
        elif pm.type == 4 and pm.pair >= 14:
            m.cards[m.ncards] = 52 + pm.pair - 14
            m.cards[m.ncards + 1] = 52 + pm.pair - 14
            m.ncards += 2
        # wild cards alone are read at face value, with naturals as the naturals' rank
        self._put_wilds(m, pm.nwild, wk if pm.nat == 0 else GD_WILD_ANY_SUIT + rank)

    cdef int _check_move(self, const uint8_t[::1] record, gd_move_t* m) except -1:
        """Copy ``record`` into ``m`` once it is a legal move of the seat to move here (a
        ValueError naming what is not): a reading of its cards at this level and rules,
        held by the mover, the pass only over a play and a play only if it beats it. A
        card the mover does not hold would wrap its count to 255."""
        cdef int i, k, seat
        cdef uint8_t need[54]
        _check_record(record, m)
        _check_reading(m, self.level, &self.rules)
        if _over(&self.st):
            raise ValueError("the hand is over: no move to play")
        seat = self.st.to_move
        if m.type == GD_PASS:
            if self.st.owner < 0:
                raise ValueError(f"seat {seat} leads: it cannot pass")
            return 0
        memset(need, 0, sizeof(need))
        for i in range(m.ncards):
            k = m.cards[i]
            need[k] += 1
            if need[k] > self.st.hands[seat][k]:
                raise ValueError(f"seat {seat} does not hold the cards of the move (card kind "
                                 f"{k} {need[k]} times)")
        if self.st.owner >= 0 and not gd_beats(m, &self.st.table):
            raise ValueError(f"the move (type {m.type}, key {m.key}) does not beat the table "
                             f"play (type {self.st.table.type}, key {self.st.table.key})")
        return 0

    def push(self, const uint8_t[::1] record):
        """Play a legal move record of the seat to move (else a ValueError naming what is
        wrong); returns an undo token for :meth:`pop`."""
        self._check_loaded()
        cdef gd_move_t m
        self._check_move(record, &m)
        cdef state_t* saved = <state_t*> malloc(sizeof(state_t))
        if saved == NULL:
            raise MemoryError()
        saved[0] = self.st
        self._play(&m)
        return _Undo.wrap(saved, self, self.loads)

    def pop(self, _Undo token):
        """Take back the push that gave ``token`` (a ValueError for a token that is not one
        of this searcher's since its last load())."""
        self._check_idle()
        if token is None or token.state == NULL or token.owner is not self \
                or token.loads != self.loads:
            raise ValueError("pop takes an undo token that push gave on this searcher since "
                             f"its last load(), not {quoted(token)}")
        self.st = token.state[0]

    def hands(self):
        self._check_loaded()
        return np.array([[self.st.hands[s][k] for k in range(54)] for s in range(4)],
                        dtype=np.uint8)

    def finished(self):
        self._check_loaded()
        return [self.st.order[i] for i in range(self.st.nfinished)]

    def owner(self):
        self._check_loaded()
        return self.st.owner


cdef class _Undo:
    cdef state_t* state
    cdef object owner           # the Searcher that pushed, and its load count then
    cdef uint64_t loads

    @staticmethod
    cdef _Undo wrap(state_t* s, object owner, uint64_t loads):
        cdef _Undo u = _Undo.__new__(_Undo)
        u.state = s
        u.owner = owner
        u.loads = loads
        return u

    def __dealloc__(self):
        free(self.state)
