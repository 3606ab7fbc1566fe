"""The game's one explicit random number generator (SplitMix64).

Pure integer arithmetic, so the same seed gives the same sequence on every machine and Python
version. Its whole state is one 64-bit integer, serialized as a hex string (safe for JavaScript).
"""

from __future__ import annotations

from typing import Any

_MASK = (1 << 64) - 1


class Rng:
    __slots__ = ("state",)

    def __init__(self, state: int) -> None:
        self.state = state & _MASK

    @classmethod
    def from_seed(cls, seed: int) -> Rng:
        # Mix the seed once so that nearby seeds start far apart.
        rng = cls(seed ^ 0x5DEECE66D)
        rng.next64()
        return rng

    def next64(self) -> int:
        self.state = s = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform integer in [0, n) without modulo bias."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = ((1 << 64) // n) * n
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def shuffle(self, items: list[Any]) -> None:
        """Fisher-Yates shuffle in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def to_json(self) -> str:
        return f"{self.state:#018x}"

    @classmethod
    def from_json(cls, text: str) -> Rng:
        return cls(int(text, 16))
