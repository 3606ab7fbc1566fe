"""Run PettingZoo's and Gymnasium's checkers with their warnings as failures (not a test module).

``api_test`` reports NaN or infinite observations, all-zero action masks, non-boolean masks, mismatched spaces and
more only as warnings, and ``check_env`` (Gymnasium's and SB3's) likewise. Under :func:`strict_warnings` every
warning is an error except the known-benign ones named below, each with the reason it is no defect here.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

#: PettingZoo's api_test: our observation is a dict {"observation": ..., "action_mask": ...} as for PettingZoo's
#: own chess, not a Box or a NumPy array; api_test then checks the inner array and the mask (NaNs, all zeros, ...).
PETTINGZOO_DICT_OBSERVATION = (
    r"Observation space for each agent probably should be gymnasium\.spaces\.box or gymnasium\.spaces\.discrete",
    r"Observation is not a NumPy array",
)
#: Gymnasium's check_env: the env is built directly, not through gymnasium.make, so it has no spec to re-create
#: it with other render modes (the modes are tested in tests/test_env_aec.py).
GYMNASIUM_NO_SPEC = (r".*Not able to test alternative render modes due to the environment not having a spec",)
#: SB3's check_env on the "planes" format: SB3 takes the (C, 15, 15) float planes in [0, 1] for an image for its
#: CnnPolicy; they are not one (our own feature extractor reads them, docs/observation.md), so the image advice
#: (uint8, [0, 255], 36x36 minimum, channel order) does not apply.
SB3_PLANES_NOT_AN_IMAGE = (
    r"It seems that your observation planes is an image but its `dtype` is \(float32\)",
    r"It seems that your observation space planes is an image but the upper and lower bounds are not in \[0, 255\]",
    r"The minimal resolution for an image is 36x36 for the default `CnnPolicy`",
    r"Treating image space as channels-last, while second dimension was smallest of the three",
)


@contextmanager
def strict_warnings(*benign: str) -> Iterator[None]:
    """Every warning raised inside is an error, except those whose message matches one of ``benign``."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for pattern in benign:
            warnings.filterwarnings("ignore", message=pattern)
        yield
