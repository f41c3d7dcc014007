"""JSON Schema's integer for models validated in pydantic's strict mode.

Strict mode takes a value only in its own type, as JSON Schema does, with one difference: JSON Schema's integer
is any number with a zero fractional part (20.0 is one; the dataplane's loader agrees, dp/json_walk.c
jw_elem_integer), which pydantic's strict int refuses. `JsonInt` makes only that number an int before the strict
check; every other value reaches the check unchanged (a bool is not a float: true stays refused).

Bounds of an optional or list-item integer go inside the annotation, before INTEGRAL
(`Annotated[int, Field(ge=0), INTEGRAL]`): put on the validator instead of the int, pydantic would write them
into the schema as "ge"/"le", which JSON Schema does not know.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator


def _integral_number_as_int(value: object) -> object:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


INTEGRAL = BeforeValidator(_integral_number_as_int)
JsonInt = Annotated[int, INTEGRAL]
OptionalJsonInt = Annotated[int | None, INTEGRAL]
