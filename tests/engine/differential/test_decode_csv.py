"""tf.io.decode_csv on both engines: the columns' dtypes and defaults from record_defaults, quoted fields, another
delimiter, na_value, select_cols, records of any shape, inside tf.function and Dataset.map; and the errors for a
missing required field, a field that is not a number, a line with the wrong number of fields, bad quoting and
bad arguments (TensorFlow's class and message, with a hint)."""

from __future__ import annotations

from typing import Any

import pytest
from harness import assert_same_error, examples, minitf, real_tf, same, same_error, same_program
from hypothesis import given
from hypothesis import strategies as st

pytestmark = pytest.mark.tf


def columns_of_each_type(tf: Any) -> Any:
    lines = tf.constant(["1,2.5,7,0.25,a", "-3,,8,1e3,b", " 4 ,inf,,nan,", '5,-0.5,9,-2,"x,y"'])
    defaults = [tf.constant(0), tf.constant(1.5), tf.constant([6], tf.int64), tf.constant([0.0], tf.float64), "?"]
    return tf.io.decode_csv(lines, defaults)


def quoted_fields(tf: Any) -> Any:
    lines = tf.constant(['"a,b",1', '"he said ""hi""",2', '"",3', '"line\nbreak",4'])
    return tf.io.decode_csv(lines, [["empty"], [0]])


def other_delimiter_and_na_value(tf: Any) -> Any:
    lines = tf.constant(["1\tNA\tx", "NA\t2.5\tNA"])
    return tf.io.decode_csv(lines, [[-1], [0.0], ["none"]], field_delim="\t", na_value="NA")


def quotes_as_plain_characters(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant(['"a,b"', 'c"d,e']), [[""], [""]], use_quote_delim=False)


def selected_columns(tf: Any) -> Any:
    lines = tf.constant(["1,skip,3,skip,5", "6,skip,,skip,10,extra"])
    return tf.io.decode_csv(lines, [[0], [-1], [0.0]], select_cols=[0, 2, 4])


def last_field_empty(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant(["1,", ",", "2,3"]), [[7], [8]])


def records_of_any_shape(tf: Any) -> Any:
    scalar = tf.io.decode_csv(tf.constant("1,2"), [[0], [0.0]])
    matrix = tf.io.decode_csv(tf.constant([["1,a", "2,b"], ["3,c", "4,d"]]), [[0], [""]])
    empty = tf.io.decode_csv(tf.constant([], tf.string), [[0], [""]])
    return scalar, matrix, empty


def numbers_as_tensorflow_reads_them(tf: Any) -> Any:
    floats = tf.io.decode_csv(tf.constant(["+5,.5,5.,1E2,-Inf,infinity,0x1p3,1e40"]), [[0.0]] * 8)
    ints = tf.io.decode_csv(tf.constant(["+5,-3, 7 ,2147483647"]), [[0]] * 4)
    return floats, ints, tf.io.decode_csv(tf.constant(["99999999999"]), [tf.constant([0], tf.int64)])


@pytest.mark.parametrize(
    "case",
    [
        columns_of_each_type,
        quoted_fields,
        other_delimiter_and_na_value,
        quotes_as_plain_characters,
        selected_columns,
        last_field_empty,
        records_of_any_shape,
        numbers_as_tensorflow_reads_them,
    ],
)
def test_decode_csv_reads_lines_as_tensorflow_does(case: Any) -> None:
    same(case)


def decode_inside_dataset_map(tf: Any, seen: list) -> None:
    lines = tf.data.Dataset.from_tensor_slices(["1.5,2,cat", "2.5,,dog", "3.5,4,bird"]).batch(2)
    for features in lines.map(lambda line: tf.io.decode_csv(line, [[0.0], [-1], ["?"]])):
        seen.append(features)
        print([f.dtype.name for f in features], features[2].numpy())


def test_decode_csv_runs_in_dataset_map() -> None:
    same_program(decode_inside_dataset_map)


def required_field_missing(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant(["1,2,3", "4,,6"]), [[0], tf.constant([], tf.int32), [0]])


def required_string_missing(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant(['a,""']), [[""], tf.constant([], tf.string)])


def required_field_is_na(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant(["1,?"]), [[0], tf.constant([], tf.float32)], na_value="?")


def too_few_fields(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant(["1,2", "3"]), [[0], [0]])


def too_many_fields(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant(["1,2,3"]), [[0], [0]])


def empty_line(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant([""]), [[0]])


def not_an_int(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant(["1,2", "3,4.5"]), [[0], [0]])


def int32_overflow(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant(["2147483648"]), [[0]])


def not_a_float(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant(["1_0"]), [[0.0]])


def not_a_double(tf: Any) -> Any:
    return tf.io.decode_csv([" "], [tf.constant([0.0], tf.float64)])


def not_an_int64(tf: Any) -> Any:
    return tf.io.decode_csv(["0x10"], [tf.constant([0], tf.int64)])


def quote_inside_unquoted_field(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant(['a"b,1']), [[""], [0]])


def line_break_inside_unquoted_field(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant(["a,1\n"]), [[""], [0]])


def unescaped_quote(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant(['"ab"c,1']), [[""], [0]])


def unclosed_quote(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant(['"ab,1']), [[""], [0]])


def two_character_delimiter(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant(["1;;2"]), [[0], [0]], field_delim=";;")


def two_defaults_for_one_field(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant(["1"]), [[0, 1]])


def default_of_rank_two(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant(["1"]), [[[0]]])


@pytest.mark.parametrize(
    "case",
    [
        required_field_missing,
        required_string_missing,
        required_field_is_na,
        too_few_fields,
        too_many_fields,
        empty_line,
        not_an_int,
        int32_overflow,
        not_a_float,
        not_a_double,
        not_an_int64,
        quote_inside_unquoted_field,
        line_break_inside_unquoted_field,
        unescaped_quote,
        unclosed_quote,
        two_character_delimiter,
        two_defaults_for_one_field,
        default_of_rank_two,
    ],
)
def test_decode_csv_rejects_a_bad_line_with_tensorflows_error(case: Any) -> None:
    same_error(case)


def missing_field_in_a_function(tf: Any, seen: list) -> None:
    decode = tf.function(lambda lines: tf.io.decode_csv(lines, [[0], tf.constant([], tf.int32)]))
    seen.append(decode(tf.constant(["1,2"])))
    decode(tf.constant(["1,"]))


def test_decode_csv_in_a_function_reports_the_failing_node() -> None:
    same_program(missing_field_in_a_function, "Field 1 is required but missing in record 0!", hint=True)


def unsorted_columns(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant(["1,2,3"]), [[0], [0]], select_cols=[2, 0])


def negative_column(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant(["1,2,3"]), [[0], [0]], select_cols=[-1, 0])


def columns_and_defaults_differ(tf: Any) -> Any:
    return tf.io.decode_csv(tf.constant(["1,2,3"]), [[0], [0]], select_cols=[0])


@pytest.mark.parametrize("case", [unsorted_columns, negative_column, columns_and_defaults_differ])
def test_decode_csv_checks_its_arguments_as_tensorflow_does(case: Any) -> None:
    same_error(case, hint=False)


@pytest.mark.parametrize(
    ("defaults", "fragment"),
    [
        (lambda tf: [[True]], "Value for attr 'OUT_TYPE' of bool is not in the list of allowed values"),
        (lambda tf: [], "Length for attr 'OUT_TYPE' of 0 must be at least minimum 1"),
        (lambda tf: [tf.int32], "Attempt to convert a value (tf.int32) with an unsupported type"),
    ],
)
def test_decode_csv_refuses_a_column_type_tensorflow_refuses(defaults: Any, fragment: str) -> None:
    mine, theirs = minitf_and_tensorflow_errors(lambda tf: tf.io.decode_csv(["1"], defaults(tf)))
    assert_same_error(mine, theirs, fragment=fragment)


def minitf_and_tensorflow_errors(case: Any) -> tuple[BaseException, BaseException]:
    mine, theirs = _outcome(case, minitf), _outcome(case, real_tf)
    assert isinstance(theirs, BaseException) and isinstance(mine, BaseException), (mine, theirs)
    return mine, theirs


FIELD_TEXT = st.sampled_from(["", "0", "-12", "3.5", "1e-3", "x", "NA", " 7 ", '"q,1"', '"a""b"', '"NA"', "nan", "2_0"])


@pytest.mark.slow
@examples
@given(st.lists(st.lists(FIELD_TEXT, min_size=3, max_size=3), min_size=1, max_size=4), st.booleans())
def test_decode_csv_agrees_on_generated_lines(rows: list[list[str]], quotes: bool) -> None:
    lines = [",".join(row) for row in rows]

    def case(tf: Any) -> Any:
        return tf.io.decode_csv(tf.constant(lines), [[0], [0.5], ["-"]], na_value="NA", use_quote_delim=quotes)

    mine, theirs = _outcome(case, minitf), _outcome(case, real_tf)
    if isinstance(theirs, BaseException):
        assert isinstance(mine, BaseException), f"{lines}: TensorFlow raised {theirs!r}, minitf returned {mine}"
        assert_same_error(mine, theirs, str(lines), message="within")
    else:
        same(case)


def _outcome(case: Any, tf: Any) -> Any:
    try:
        return case(tf)
    except Exception as error:  # the error is the outcome compared
        return error
