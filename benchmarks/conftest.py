"""Shared inputs of the benchmarks: the fixed hand sets in benchmarks/data/."""

import json
from pathlib import Path

import numpy as np
import pytest

from guandan_core import parse_level
from guandan_core.hand import to_counts

DATA = Path(__file__).parent / "data"


def load_hand_set(name: str):
    items = json.loads((DATA / f"{name}.json").read_text())["items"]
    hands = np.stack([to_counts(item["hand"]) for item in items])
    levels = np.array([parse_level(item["level"]) for item in items], dtype=np.int32)
    return hands, levels


@pytest.fixture(scope="session", params=["hands_level2", "hands_wild"])
def hand_set(request):
    hands, levels = load_hand_set(request.param)
    return request.param, hands, levels
