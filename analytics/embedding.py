"""The embedding interface the pure computations accept: texts in, unit-length vectors out.

Analytics never loads a model; callers pass an ``Embedder`` (the warehouse's MiniLM loader in
production and in tests).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

EMBEDDING_DIM = 384

FloatMatrix = npt.NDArray[np.float32]


class Embedder(Protocol):
    """Maps texts to an ``(n, 384)`` float32 matrix whose rows have unit L2 norm."""

    def __call__(self, texts: Sequence[str]) -> FloatMatrix: ...
