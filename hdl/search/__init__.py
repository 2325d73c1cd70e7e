"""The search layer: a legal move generator with make and unmake, and perft,
in gateware beside the repetition detector."""

from .attack import AttackTest
from .board import Board, ReadSignature, WriteSignature
from .layout import Candidate, GenState, Move, StackEntry
from .make import MoveWrites, WritePhase
from .movegen import MoveGenerator
from .perft import Perft
from .unit import SearchUnit


__all__ = ["AttackTest", "Board", "ReadSignature", "WriteSignature", "Candidate", "GenState",
           "Move", "StackEntry", "MoveWrites", "WritePhase", "MoveGenerator", "Perft",
           "SearchUnit"]
