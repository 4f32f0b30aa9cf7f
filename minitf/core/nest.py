"""`tf.nest`: flatten nested lists, tuples and dicts to a list of leaves, and pack leaves back."""

from __future__ import annotations

from typing import Any


def is_nested(structure: Any) -> bool:
    return isinstance(structure, list | tuple | dict)


def flatten(structure: Any, expand_composites: bool = False) -> list[Any]:
    """Leaves in a fixed order (dicts by sorted key, as TensorFlow does).

    With `expand_composites=True`, a SparseTensor or RaggedTensor counts as its component tensors.
    """
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure, key=_sort_key) for leaf in flatten(structure[key], expand_composites)]
    if isinstance(structure, list | tuple):
        return [leaf for item in structure for leaf in flatten(item, expand_composites)]
    if expand_composites and hasattr(structure, "_components"):
        return list(structure._components())
    return [structure]


def _sort_key(key: Any) -> Any:
    return (0, key) if isinstance(key, int | float) else (1, str(key))


def pack_sequence_as(structure: Any, flat_sequence: Any, expand_composites: bool = False) -> Any:
    """Rebuild `structure`'s shape with the leaves from `flat_sequence`."""
    leaves = iter(list(flat_sequence))
    result = _pack(structure, leaves, expand_composites)
    return result


def _pack(structure: Any, leaves: Any, expand_composites: bool = False) -> Any:
    if isinstance(structure, dict):
        packed = {key: _pack(structure[key], leaves, expand_composites) for key in sorted(structure, key=_sort_key)}
        return (
            type(structure)((key, packed[key]) for key in structure)
            if type(structure) is not dict
            else {key: packed[key] for key in structure}
        )
    if expand_composites and hasattr(structure, "_components"):
        return structure._with_components([next(leaves) for _ in structure._components()])
    if isinstance(structure, list | tuple):
        items = [_pack(item, leaves, expand_composites) for item in structure]
        if hasattr(structure, "_fields"):  # namedtuple
            return type(structure)(*items)
        return type(structure)(items)
    return next(leaves)


def map_structure(func: Any, *structures: Any, **kwargs: Any) -> Any:
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [func(*leaves) for leaves in zip(*flats)])


def assert_same_structure(a: Any, b: Any, check_types: bool = True, expand_composites: bool = False) -> None:
    if len(flatten(a)) != len(flatten(b)):
        raise ValueError(
            f"The two structures don't have the same number of elements.\n\nFirst structure: {a}\n\n"
            f"Second structure: {b}"
        )
