"""The platform's messages of a real match, recorded for the tests of PlatformSeat.

:class:`RecordingGame` is :class:`guandan_core.platform_server.PlatformGame` keeping every
message each seat got and every answer, and at each act the match's own Observation next
to the one the client showed its player, so that a test can compare them.
"""

from __future__ import annotations

from guandan_core.platform_server import PlatformGame


class RecordingGame(PlatformGame):
    """``clients``: four objects with ``receive(text) -> answer or None``."""

    def __init__(self, clients, seed, **options):
        super().__init__(clients, seed, **options)
        self.sent = [[] for _ in range(4)]     # the messages each seat got, as dicts
        self.answers = [[] for _ in range(4)]  # and the answers it gave
        self.acts = []                         # (seat, true Observation) at each act play
        self.shown = []                        # the client's own Observation at each
        self.returns_shown = []                # (true, client's) Observation at act back

    def send(self, seat: int, message: dict):
        self.sent[seat].append(message)
        answer = super().send(seat, message)
        if answer is not None:
            self.answers[seat].append(answer)
        return answer

    def ask_play(self, seat: int, obs):
        self.acts.append((seat, obs))
        move = super().ask_play(seat, obs)
        # what the client showed its player (None for a client without one)
        self.shown.append(getattr(self.clients[seat], "observation", None))
        return move

    def ask_return(self, seat: int, obs, allowed_cards):
        card = super().ask_return(seat, obs, allowed_cards)
        self.returns_shown.append((obs, getattr(self.clients[seat], "observation", None)))
        return card
