"""guandan_core: a fast Guandan (掼蛋) engine with a compiled move generator.

>>> from guandan_core import Hand, legal_moves
>>> moves = legal_moves(Hand("S3 H3 C3 SB SB"), level="2")
>>> len(moves)
10
"""

try:
    from ._kernels import py_enumerate as _built     # the compiled core everything uses
except ModuleNotFoundError:     # (a broken build's own ImportError is left as it is)
    raise ImportError(
        f"guandan_core's compiled extension (_kernels) is not built in {__path__[0]}: "
        f"build it there (pip install -e ., or the CMake build of docs/DEVELOPING.md), or, "
        f"with the package installed, run Python from another directory, where this "
        f"source tree does not hide the installed one") from None
del _built

from .cards import CardError, LevelError, format_card, format_cards, parse_card, parse_cards, parse_level
from .hand import Hand
from .moves import (MOVE_DTYPE, LegalMoves, Move, MoveError, beats, bomb_order_key, classify,
                    legal_moves, moves_array, moves_array_batch)
from .rules import Rules, RulesError

__version__ = "0.1.0"

__all__ = [
    "Hand", "Move", "Rules", "classify", "beats", "legal_moves", "moves_array",
    "moves_array_batch", "bomb_order_key", "LegalMoves", "MOVE_DTYPE",
    "CardError", "LevelError", "MoveError", "RulesError",
    "parse_card", "parse_cards", "format_card", "format_cards", "parse_level",
]
