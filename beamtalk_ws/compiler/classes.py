"""Class definitions: method functions and the ClassBuilder description."""

from __future__ import annotations

from .codegen import GenError


class ClassGen:
    def __init__(self, gen):
        self.gen = gen

    def define_dynamic(self, cdef, body, ctx, source):
        raise GenError("A class definition is not supported by the compiler yet", cdef)

    def add_method_dynamic(self, sm, body, ctx, source):
        raise GenError("A method definition is not supported by the compiler yet", sm)
