"""`Value`: the base of the small record classes on ctx's hook path, in place of `@dataclass`.

Why not dataclasses there: `import dataclasses` brings in `inspect` (and with it ast, dis and
tokenize), and every `@dataclass` compiles its generated methods from source when its class
is created — about 0.4 ms per class on our interpreter. A Stop hook touches some fifty record
classes: 30 ms of a 2.5×-bare budget (SPEC §6) before it does any work. `typing.NamedTuple`
costs `import typing` for the same reason; the hook path uses `collections.namedtuple`.

A `Value` subclass keeps its fields in `__slots__` and writes its `__init__` out with one
parameter per field, in the fields' order (the order `repr` and pattern matching use;
`__slots__` itself may be sorted). From the fields it gets what a
frozen dataclass would give it: `==` between instances of the same class, `hash`, `repr`,
`replace(**changes)` (a copy with some fields changed), `as_dict()` and positional
`__match_args__`. Instances are treated as immutable; that is a convention, not enforced.
A class whose equality ignores a field overrides `_key()`.

tests/test_layers.py keeps dataclasses, typing and pathlib out of the hooks' imports.
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
