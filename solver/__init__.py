"""The Guandan endgame solver: exact team outcome, best move, line of play, move scores.

>>> from solver import solve
>>> solve({"level": "2", "hands": [["S5"], ["S3", "S4"], [], ["HR"]],
...        "finished": [2], "to_move": 0, "table": None}).value
3
"""

from .search import (DEFAULT_MAX_TABLE_BITS, DEFAULT_TABLE_BITS, MoveScore, Searcher, SolveResult, Stop,
                     as_position, clear_tables, free_tables, probe, read_result, solve)
from .batch import available_cores, solve_many
from .sampling import (SampledMove, SampledResult, hidden_pool, merge_sampled, parse_known,
                       position_from_view, read_position, read_sampled, sample_deals,
                       solve_sampled, view_of_observation)

__all__ = ["solve", "solve_many", "available_cores", "probe", "solve_sampled", "sample_deals",
           "merge_sampled", "read_sampled", "hidden_pool", "parse_known", "position_from_view",
           "view_of_observation", "read_position", "read_result",
           "SampledResult", "SampledMove", "clear_tables", "free_tables", "Stop", "SolveResult",
           "MoveScore", "Searcher", "as_position", "DEFAULT_TABLE_BITS",
           "DEFAULT_MAX_TABLE_BITS"]
