"""Rule options that change which combinations exist (RULES.md section 9).

>>> Rules.standard().sf_wild_any_suit, Rules.platform().sf_wild_any_suit
(True, False)
>>> Rules.by_name("platform") == Rules.platform()
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .usertext import quoted

__all__ = ["Rules", "RulesError", "PRESET_NAMES"]


class RulesError(ValueError):
    """A rule set that does not exist: an unknown preset name, or an option of a wrong value."""


@dataclass(frozen=True)
class Rules:
    """The combination options of RULES.md section 9.

    * ``sf_is_bomb``: straight flushes exist and rank as bombs (off: five consecutive
      cards of one suit are just a straight).
    * ``sf_wild_any_suit``: a wild card may complete a straight flush of any suit (off:
      hearts only, the AI competition platform's behaviour).
    * ``long_sequences``: straights of 5 or more ranks that leave the level rank out,
      tubes of 2 or more pairs, plates of 2 or more triples (casual rules).
    """

    sf_is_bomb: bool = True
    sf_wild_any_suit: bool = True
    long_sequences: bool = False

    def __post_init__(self):
        for name in ("sf_is_bomb", "sf_wild_any_suit", "long_sequences"):
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"{name} must be True or False, not "
                                 f"{quoted(getattr(self, name))}")

    @classmethod
    def of(cls, rules) -> "Rules":
        """What every ``rules=`` argument takes: None (standard), a Rules or a preset name.

        >>> Rules.of("platform") == Rules.platform(), Rules.of(None) == Rules.standard()
        (True, True)
        >>> Rules.of(3)
        Traceback (most recent call last):
        ...
        TypeError: rules must be a Rules, a preset name or None, not 3
        """
        if rules is None:
            return _STANDARD
        if isinstance(rules, cls):
            return rules
        if isinstance(rules, str):
            return cls.by_name(rules)
        raise TypeError(f"rules must be a Rules, a preset name or None, not {quoted(rules)}")

    @classmethod
    def standard(cls) -> "Rules":
        """Tournament rules (Jiangsu 2023 / national trial rules 2022)."""
        return cls()

    @classmethod
    def platform(cls) -> "Rules":
        """The public Guandan AI competition platform's engine."""
        return cls(**_PRESETS["platform"])

    @classmethod
    def by_name(cls, name: str) -> "Rules":
        """A preset by name, one of :data:`PRESET_NAMES`: ``standard``, ``platform``,
        ``no-sf-bomb``, ``long-sequences``."""
        try:
            return cls(**_PRESETS[name])
        except (KeyError, TypeError):       # TypeError: a name that is not hashable
            raise RulesError(
                f"unknown rules {quoted(name)} (known: {', '.join(PRESET_NAMES)})") from None

    def replace(self, **changes) -> "Rules":
        """These rules with some options changed; a :class:`RulesError` names an option
        that is none of them."""
        unknown = sorted(set(changes) - set(self.__dataclass_fields__))
        if unknown:
            raise RulesError(f"unknown rule option(s) {', '.join(map(quoted, unknown))} "
                             f"(known: {', '.join(self.__dataclass_fields__)})")
        return replace(self, **changes)

    def flags(self) -> tuple[int, int, int]:
        """The options as the kernel takes them."""
        return int(self.sf_is_bomb), int(self.sf_wild_any_suit), int(self.long_sequences)


_STANDARD = Rules.standard()      # what rules=None means
_PRESETS = {            # the options each preset name sets (the others stay standard)
    "standard": {},
    "platform": {"sf_wild_any_suit": False},
    "no-sf-bomb": {"sf_is_bomb": False},
    "long-sequences": {"long_sequences": True},
}
PRESET_NAMES = tuple(_PRESETS)      # what every --rules option takes


def _preset_name(rules: Rules) -> str | None:
    """The name of the preset ``rules`` equals, or None for rules equal to no preset."""
    return next((name for name in PRESET_NAMES if Rules.by_name(name) == rules), None)
