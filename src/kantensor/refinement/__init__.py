"""Whole-graph refinement: every node's relation solved jointly, back to the inputs."""

from .explain import Conflict, RefinementError, Step
from .result import Refinement
from .solve import refine

__all__ = ["Conflict", "Refinement", "RefinementError", "Step", "refine"]
