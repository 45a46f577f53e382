"""The gold set on disk: manifest, transcripts, one label file per rater, the adjudicated
consensus, and the checker's stored safety verdicts (`goldset`); its split by case into
calibration and held-out items (`splits`)."""

from __future__ import annotations

from .goldset import CONSENSUS, GoldItem, GoldSet, PairRef, load_gold, rater_names, read_manifest
from .splits import (
    HELDOUT_SHARE,
    MIN_HELDOUT_CASES,
    NEAR_DUPLICATE,
    TEXTS,
    agent_text,
    case_groups,
    choose_case_split,
    conversation_text,
    drawn_case_split,
    max_similarity,
    new_joins,
    similar_pairs,
    split_problems,
)
from .splits import case_draw as case_draw

__all__ = [
    "GoldItem",
    "GoldSet",
    "load_gold",
    "read_manifest",
    "CONSENSUS",
    "choose_case_split",
    "drawn_case_split",
    "HELDOUT_SHARE",
    "split_problems",
    "new_joins",
    "case_groups",
    "conversation_text",
    "agent_text",
    "MIN_HELDOUT_CASES",
    "NEAR_DUPLICATE",
    "PairRef",
    "TEXTS",
    "max_similarity",
    "rater_names",
    "similar_pairs",
]
