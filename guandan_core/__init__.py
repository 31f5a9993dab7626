"""guandan_core: a fast Guandan (掼蛋) engine with a compiled move generator.

>>> from guandan_core import Hand, legal_moves
>>> moves = legal_moves(Hand("S3 H3 C3 SB SB"), level="2")
>>> len(moves)
10
"""

try:
    from . import _kernels      # the compiled core, which everything below uses
except ImportError as exc:
    raise ImportError(
        f"guandan_core's compiled extension (_kernels) cannot be imported from "
        f"{__path__[0]}: build it there (pip install -e . or python setup.py build_ext "
        f"--inplace), or, with the package installed, run Python from another directory, "
        f"where this source tree does not hide the installed one ({exc})") from exc

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
