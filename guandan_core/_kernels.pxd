# cython: language_level=3
# Declarations of the compiled move kernels, for `cimport guandan_core._kernels`.
#
# A hand is `const uint8_t hand[54]`: one count (0..2) per card kind, kinds numbered
# rank * 4 + suit (ranks 2..A = 0..12, suits S H C D = 0..3), small joker 52, big joker 53.
# A level is a rank index 0..12 (level 2 is 0, level A is 12).
# Kernels never allocate and never touch Python objects; they report failure by a
# negative return code (see the GD_E* constants) and the Python layer raises.
#
# Using them from your own Cython module: `from guandan_core._kernels cimport ...` and
# build it with guandan-core installed in the build environment (pip's
# --no-build-isolation with it, Cython and "wheel" installed, or "guandan-core" in your
# build-system requires with a wheel of it where pip looks, e.g. --find-links: it is not
# on PyPI); no include path is needed. Move records hold an int16 (`key`), so a gd_move_t buffer must be 2-byte
# aligned (any array of gd_move_t, or a numpy MOVE_DTYPE array numpy allocated, is). When
# your module loads, check `gd_abi_version() == GD_ABI_VERSION`: a different number means
# it was compiled against another layout of these records.

from libc.stdint cimport uint8_t, int16_t, int32_t

cdef extern from *:
    """
    /* One move: the exact cards and one declared reading of them. 18 bytes. */
    typedef struct {
        uint8_t type;      /* GD_* combination type */
        uint8_t label;     /* platform rank label: 0..12 rank, 13 'B', 14 'R', 15 'JOKER', 16 'PASS' */
        uint8_t ncards;    /* number of cards, 0 for a pass */
        uint8_t nwild;     /* wild cards among the cards (they come last in cards[]) */
        int16_t key;       /* order within the type; for bombs the global bomb power */
        uint8_t cards[10]; /* card kinds: natural cards ascending, then the wild cards */
        uint8_t wild_as[2];/* per wild: a card kind 0..51 (in a straight flush, and the wild's own
                              kind in a lone wild single or a pair of two wilds), or
                              64 + rank (any suit) */
    } gd_move_t;

    /* The rule options of RULES.md section 9 that change combinations: 0 off, any other
       value on. */
    typedef struct {
        uint8_t sf_is_bomb;       /* on: straight flushes exist and are bombs */
        uint8_t sf_wild_any_suit; /* on: a wild may complete a straight flush of any suit; off: hearts only */
        uint8_t long_sequences;   /* on: straights of 5+, tubes of 2+ pairs, plates of 2+ triples */
    } gd_rules_t;
    """
    ctypedef struct gd_move_t:
        uint8_t type
        uint8_t label
        uint8_t ncards
        uint8_t nwild
        int16_t key
        uint8_t cards[10]
        uint8_t wild_as[2]

    ctypedef struct gd_rules_t:
        uint8_t sf_is_bomb
        uint8_t sf_wild_any_suit
        uint8_t long_sequences

# combination types
cdef enum:
    GD_PASS = 0
    GD_SINGLE = 1
    GD_PAIR = 2
    GD_TRIPS = 3
    GD_THREE_WITH_TWO = 4
    GD_STRAIGHT = 5
    GD_THREE_PAIR = 6
    GD_TWO_TRIPS = 7
    GD_STRAIGHT_FLUSH = 8
    GD_BOMB = 9
    GD_JOKER_BOMB = 10
    GD_NUM_TYPES = 11

# labels beyond the 13 ranks
cdef enum:
    GD_LABEL_SMALL_JOKER = 13
    GD_LABEL_BIG_JOKER = 14
    GD_LABEL_JOKER_BOMB = 15
    GD_LABEL_PASS = 16

# wild_as values at or above this mean "this rank, any suit"
cdef enum:
    GD_WILD_ANY_SUIT = 64

# status codes
cdef enum:
    GD_OK = 0
    GD_EOVERFLOW = -1   # the output buffer is too small: call again with a larger one
    GD_EBADLEVEL = -2
    GD_EBADHAND = -3    # a count above 2
    GD_EBADMOVE = -4    # a beat move of an unknown type or of one the rules given do not
                        # have (a straight flush with sf_is_bomb off), or with a number of
                        # cards (or of wild cards) its type cannot have under those rules

# the layout of the records above and the meaning of the functions below, version 1
cdef enum:
    GD_ABI_VERSION = 1

# GD_ABI_VERSION of the compiled kernels
cdef int gd_abi_version() noexcept nogil
# a rank's order at a level (RULES sec. 2): ranks 0..12 (the level rank above the ace),
# 13 small joker, 14 big joker -> 0..15; for a rank 0..14 and a level 0..12 only (no
# status: other arguments give no order, not an error code)
cdef int gd_card_order(int rank, int level) noexcept nogil
# whether `move` is a bomb (RULES sec. 4); gd_is_bomb and gd_beats take records that
# gd_enumerate or gd_classify wrote (or a pass) and check nothing: for a record of no type
# (type GD_NUM_TYPES or more) their answers mean nothing
cdef bint gd_is_bomb(const gd_move_t* move) noexcept nogil
# whether move `a` beats move `b` as a play on the table (RULES sec. 5); both readings at
# the same level (the records carry their keys, not the level)
cdef bint gd_beats(const gd_move_t* a, const gd_move_t* b) noexcept nogil
# every legal move of `hand` at `level`: leading when `beat` is NULL (or a pass), else the
# moves that beat it (the pass itself is not written). Writes at most `capacity` records to
# `out` and returns how many there are, or GD_EOVERFLOW when they do not fit (call again
# with a larger buffer; what `out` holds then is unspecified. A dealt 27-card hand has
# about 500 moves at the median under the standard rules and at most a few thousand;
# under long sequences, at random levels, about 1,300 at the median, 26,000 at the 99th
# percentile and up to 125,000 in 24,000 dealt hands, and at level 2 about 2,250, 38,000
# and 120,000: size a buffer to grow on GD_EOVERFLOW rather than by these), or GD_EBADLEVEL / GD_EBADHAND / GD_EBADMOVE (checked
# in that order). Of `beat` only the type, ncards, nwild and key are read. `rules` NULL:
# the standard rules (straight flushes are bombs, a wild completes one of any suit, no
# long sequences).
cdef int gd_enumerate(const uint8_t* hand, int level, const gd_move_t* beat,
                      const gd_rules_t* rules, gd_move_t* out, int capacity) noexcept nogil
# every reading of exactly these cards (a move that plays them all), returned and written
# like gd_enumerate's: `out` needs room for the readings only (none for no cards or more
# than 10; a handful at most otherwise), `rules` NULL the standard rules
cdef int gd_classify(const uint8_t* cards, int level, const gd_rules_t* rules,
                     gd_move_t* out, int capacity) noexcept nogil
