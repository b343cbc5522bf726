"""cuectx.value.Value: the record base of the hook path (what a frozen dataclass gave)."""
from __future__ import annotations

import pytest

from cuectx.value import Value


class Point(Value):
    __slots__ = ("label", "x", "y")  # sorted; the fields' order is __init__'s

    def __init__(self, x: int, y: int, label: str = "") -> None:
        self.x = x
        self.y = y
        self.label = label


class Labelled(Point):
    __slots__ = ()

    def _key(self) -> tuple:  # the label is not compared
        return (self.x, self.y)


def test_fields_follow_init_and_give_eq_hash_repr():
    p = Point(1, 2, "a")
    assert Point._fields == ("x", "y", "label") and Point.__match_args__ == ("x", "y", "label")
    assert p == Point(1, 2, "a") and p != Point(1, 2, "b") and hash(p) == hash(Point(1, 2, "a"))
    assert repr(p) == "Point(x=1, y=2, label='a')"
    assert p.as_dict() == {"x": 1, "y": 2, "label": "a"}
    assert p != (1, 2, "a")  # not a tuple


def test_replace_copies_and_refuses_unknown_fields():
    p = Point(1, 2)
    q = p.replace(y=5)
    assert (q.x, q.y, q.label) == (1, 5, "") and p.y == 2
    with pytest.raises(TypeError, match="no field 'z'"):
        p.replace(z=1)


def test_a_subclass_can_leave_a_field_out_of_equality_and_is_never_equal_to_its_base():
    assert Labelled(1, 2, "a") == Labelled(1, 2, "b")
    assert Labelled(1, 2) != Point(1, 2)


def test_pattern_matching_uses_the_fields():
    match Point(3, 4):
        case Point(x, y):
            assert (x, y) == (3, 4)


def test_an_init_parameter_without_a_slot_is_refused_at_class_creation():
    with pytest.raises(TypeError, match="not in __slots__"):
        class Broken(Value):
            __slots__ = ("a",)

            def __init__(self, a: int, b: int) -> None:
                self.a = a
