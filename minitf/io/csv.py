"""`tf.io.decode_csv`: lines of comma-separated values to one tensor per column.

Each column's dtype and default come from `record_defaults` (a tensor per column: one value is the default for an
empty field, no value makes the column required). One op (`DecodeCSV`) does the work, so `dataset.map` traces it
like any other op and runs it on each batch of lines. Fields are split the way TensorFlow's kernel splits them:
a field may be quoted ("a,b" keeps its comma, "" inside a quoted field is one quote), an unquoted field may hold
no quote and no line break, and a line ending in the delimiter has an empty last field.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, kernel_prefix
from minitf.core.op import Op, bind
from minitf.core.tensor_shape import TensorShape

_ALLOWED = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)
# TensorFlow's names for the column types in its messages.
_TYPE_NAMES = {"float32": "float", "float64": "double", "int32": "int32", "int64": "int64"}
_INTEGER = re.compile(r"\s*[+-]?[0-9]+\s*")
_DECIMAL = re.compile(r"\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\s*")
_SPECIAL = re.compile(r"\s*[+-]?(inf|infinity|nan)\s*", re.IGNORECASE)
_HEX = re.compile(r"\s*[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][+-]?[0-9]+)?\s*")


def _error(columns: int, message: str, hint: str) -> Exception:
    """TensorFlow's message: its wrapped function's name counts the columns, and no `name:` follows."""
    return InvalidArgumentError(
        None, None, f"{kernel_prefix(f'DecodeCSV_OUT_TYPE_{columns}')}{message} [Op:DecodeCSV]\nHint: {hint}"
    )


def split_fields(line: str, delim: str, use_quote_delim: bool, select_cols: tuple, columns: int) -> list[str]:
    """The fields of one line (only the selected ones, if `select_cols`), scanned as TensorFlow's kernel scans."""
    fields: list[str] = []
    at = parsed = 0
    while at < len(line):
        include = not select_cols or select_cols[len(fields)] == parsed
        field: list[str] = []
        if not (use_quote_delim and line[at] == '"'):
            while at < len(line) and line[at] != delim:
                if (use_quote_delim and line[at] == '"') or line[at] in "\r\n":
                    raise _error(
                        columns,
                        "Unquoted fields cannot have quotes/CRLFs inside",
                        'put a field that holds a quote in quotes and double its quotes ("say ""hi"""), and strip '
                        "line breaks from the lines first.",
                    )
                field.append(line[at])
                at += 1
            at += 1
        else:
            at += 1
            while at < len(line) - 1 and not (line[at] == '"' and line[at + 1] == delim):
                if line[at] != '"':
                    field.append(line[at])
                    at += 1
                elif line[at + 1] == '"':
                    field.append('"')
                    at += 2
                else:
                    raise _error(
                        columns,
                        "Quote inside a string has to be escaped by another quote",
                        'double each quote inside a quoted field ("say ""hi""").',
                    )
            if not (at < len(line) and line[at] == '"' and (at == len(line) - 1 or line[at + 1] == delim)):
                raise _error(
                    columns,
                    "Quoted field has to end with quote followed by delim or end",
                    "close each quoted field with a quote right before the delimiter or the end of the line.",
                )
            at += 2
        parsed += 1
        if include:
            fields.append("".join(field))
            if select_cols and len(fields) == len(select_cols):
                return fields
    if line and line[-1] == delim and (not select_cols or select_cols[len(fields)] == parsed):
        fields.append("")  # a line ending in the delimiter has an empty last field
    return fields


def _number(text: str, dtype: dtypes.DType) -> Any:
    """`text` as a number of `dtype`, or None when TensorFlow would not read it as one."""
    if dtype.is_integer:
        if not _INTEGER.fullmatch(text):
            return None
        value = int(text)
        info = np.iinfo(dtype._np)
        return value if info.min <= value <= info.max else None
    if _DECIMAL.fullmatch(text) or _SPECIAL.fullmatch(text):
        return float(text)
    if _HEX.fullmatch(text):
        return float.fromhex(text.strip())
    return None


def _decode_kernel(
    records: Any, *defaults: Any, field_delim: str, use_quote_delim: bool, na_value: str, select_cols: tuple
) -> tuple:
    columns = len(defaults)
    defaults = tuple(np.asarray(default) for default in defaults)
    if len(field_delim) != 1:
        raise _error(columns, "field_delim should be only 1 char", "pass one character, such as ',' or '\\t'.")
    for index, default in enumerate(defaults):
        if np.ndim(default) > 1:
            raise _error(columns, "Each record default should be at most rank 1", "give one value per column.")
        if np.size(default) > 1:
            raise _error(
                columns,
                f"There should only be 1 default per field but field {index} has {np.size(default)}",
                "give each column one default value (or none, to make the column required).",
            )
    lines = np.asarray(records, dtype=object)
    outputs = [np.empty(lines.shape, dtype=object if d.dtype.kind in "SUO" else d.dtype) for d in defaults]
    for number, record in enumerate(lines.reshape(-1)):
        line = record.decode("utf-8", errors="surrogateescape") if isinstance(record, bytes) else str(record)
        fields = split_fields(line, field_delim, use_quote_delim, select_cols, columns)
        if len(fields) != columns:
            raise _error(
                columns,
                f"Expect {columns} fields but have {len(fields)} in record {number}",
                "give each line as many fields as record_defaults has entries (or choose columns with select_cols).",
            )
        for column, (field, default, out) in enumerate(zip(fields, defaults, outputs, strict=True)):
            if field == "" or field == na_value:
                if np.size(default) != 1:
                    raise _error(
                        columns,
                        f"Field {column} is required but missing in record {number}!",
                        "fill the field in, or give the column a default value in record_defaults.",
                    )
                out.reshape(-1)[number] = default.reshape(-1).tolist()[0]
            elif out.dtype == object:
                out.reshape(-1)[number] = field.encode("utf-8", errors="surrogateescape")
            else:
                dtype = dtypes.as_dtype(out.dtype)
                value = _number(field, dtype)
                if value is None:
                    raise _error(
                        columns,
                        f"Field {column} in record {number} is not a valid {_TYPE_NAMES[dtype.name]}: {field}",
                        "the field must hold a number of the column's dtype (record_defaults sets it).",
                    )
                out.reshape(-1)[number] = value
    return tuple(outputs)


def _decode_rule(shapes: Any, types: Any, attrs: dict) -> list:
    return [(TensorShape(shapes[0]), dtype) for dtype in types[1:]]


DecodeCSV = Op("DecodeCSV", _decode_kernel, shape=_decode_rule, num_outputs=-1)


def decode_csv(
    records: Any,
    record_defaults: Any,
    field_delim: str = ",",
    use_quote_delim: bool = True,
    na_value: str = "",
    select_cols: Any = None,
    name: str | None = None,
) -> list[Any]:
    """Lines of CSV (a string tensor of any shape) to a list of tensors of that shape, one per column."""
    if select_cols is not None:
        select_cols = [int(c) for c in select_cols]
        if any(a >= b for a, b in zip(select_cols, select_cols[1:])):
            raise ValueError("select_cols is not strictly increasing.")
        if select_cols and select_cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    defaults = [convert_to_tensor(default) for default in record_defaults]
    _check_types(defaults)
    return list(
        bind(
            DecodeCSV,
            convert_to_tensor(records, dtype=dtypes.string),
            *defaults,
            field_delim=field_delim,
            use_quote_delim=bool(use_quote_delim),
            na_value=na_value,
            select_cols=tuple(select_cols or ()),
        )
    )


def _check_types(defaults: list[Any]) -> None:
    """The op's attribute check: at least one column, each of a type a CSV field can hold."""
    signature = (
        "\n\t; NodeDef: {{node DecodeCSV}}; Op<name=DecodeCSV; signature=records:string, record_defaults: -> "
        "output:; attr=OUT_TYPE:list(type),min=1,allowed=[DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, DT_STRING]; "
        'attr=field_delim:string,default=","; attr=use_quote_delim:bool,default=true; '
        'attr=na_value:string,default=""; attr=select_cols:list(int),default=[]> [Op:DecodeCSV]'
    )
    if not defaults:
        raise InvalidArgumentError(
            None,
            None,
            f"Length for attr 'OUT_TYPE' of 0 must be at least minimum 1{signature}\n"
            "Hint: give record_defaults one entry per column.",
        )
    for default in defaults:
        if default.dtype not in _ALLOWED:
            raise InvalidArgumentError(
                None,
                None,
                f"Value for attr 'OUT_TYPE' of {default.dtype.name} is not in the list of allowed values: float, "
                f"double, int32, int64, string{signature}\nHint: give each column's default as an int32, int64, "
                "float32, float64 or string value.",
            )
