"""`Value`: the one way records are declared in cue-ctx (ctx, cue, cuectx, bench, tests).

Why not `@dataclass` (or named tuples): the hooks run in a fresh interpreter whenever the
hook server is bypassed, and a hook touches some sixty record classes. `import dataclasses`
brings in `inspect` (and with it ast, dis and tokenize), and every `@dataclass` compiles its
generated methods from source when its class is created; `typing.NamedTuple` costs
`import typing`. Measured, the records as frozen slotted dataclasses would add 50–70 ms of
CPU to every in-process hook (docs/DEVELOPING.md, "Records"). One style everywhere, so no
module has to know whether it is on the hook path.

A `Value` subclass keeps its fields in `__slots__` and writes its `__init__` out with one
parameter per field, in the fields' order (the order `repr` and pattern matching use;
`__slots__` itself may be sorted). From the fields it gets what a
frozen dataclass would give it: `==` between instances of the same class, `hash`, `repr`,
`replace(**changes)` (a copy with some fields changed), `as_dict()` (shallow) and positional
`__match_args__`. A default that must be fresh per instance (a list, a dict) is `None` in
the signature and made in `__init__`. Instances are treated as immutable unless the class
says otherwise (a report filled in as work goes); that is a convention, not enforced.
A class whose equality ignores a field overrides `_key()`.

tests/test_layers.py fails on a record declared another way.
"""
from __future__ import annotations

__all__ = ["Value"]


class Value:
    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        slots: set[str] = set()
        for klass in cls.__mro__:
            names = klass.__dict__.get("__slots__", ())
            slots.update((names,) if isinstance(names, str) else names)
        code = getattr(cls.__init__, "__code__", None)  # None: object's, no fields
        fields = code.co_varnames[1:code.co_argcount + code.co_kwonlyargcount] if code else ()
        missing = [f for f in fields if f not in slots]
        if missing:
            raise TypeError(f"{cls.__qualname__}.__init__ takes {missing[0]!r}, which is not "
                            f"in __slots__")
        cls._fields = fields
        cls.__match_args__ = fields

    def _values(self) -> tuple:
        return tuple(getattr(self, n) for n in self._fields)

    def _key(self) -> tuple:
        """What equality and hashing compare (every field, unless a class says otherwise)."""
        return self._values()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key() == other._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self.__class__.__name__, *self._key()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields)
        return f"{self.__class__.__qualname__}({fields})"

    def as_dict(self) -> dict:
        """The fields as a dict (shallow: values are not copied)."""
        return {n: getattr(self, n) for n in self._fields}

    def replace(self, **changes):
        """A copy with `changes` applied (like `dataclasses.replace`)."""
        unknown = set(changes) - set(self._fields)
        if unknown:
            raise TypeError(f"{self.__class__.__qualname__} has no field {min(unknown)!r}")
        return self.__class__(**{**self.as_dict(), **changes})
