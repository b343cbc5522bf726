"""The seed's name for keyframe preparation: the code is `cue.digest.image_preprocess`."""
from __future__ import annotations

from cue.digest.image_preprocess import prepare_for_digest

__all__ = ["prepare_for_digest"]
