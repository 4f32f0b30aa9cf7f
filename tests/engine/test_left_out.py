"""A left-out name says what is missing and how to switch to TensorFlow, and still behaves as a missing attribute."""

import pytest

from minitf import left_out


def test_a_left_out_name_raises_an_error_that_names_it_and_the_switch() -> None:
    getattr_ = left_out.module_getattr("tf.keras.layers", {"Foo": "no foo here"})
    with pytest.raises(left_out.LeftOutError) as caught:
        getattr_("Foo")
    text = str(caught.value)
    assert "tf.keras.layers.Foo" in text and "no foo here" in text and "import tensorflow as tf" in text
    assert isinstance(caught.value, AttributeError) and isinstance(caught.value, NotImplementedError)


def test_any_other_missing_name_is_a_plain_attribute_error() -> None:
    getattr_ = left_out.module_getattr("tf.keras.layers", {"Foo": "no foo here"})
    with pytest.raises(AttributeError, match="module 'tf.keras.layers' has no attribute 'Bar'") as caught:
        getattr_("Bar")
    assert not isinstance(caught.value, left_out.LeftOutError)


def test_a_left_out_identifier_is_a_value_error_that_names_it() -> None:
    with pytest.raises(ValueError, match='optimizer identifier "ftrl": needs a server'):
        left_out.refuse_identifier("optimizer", "ftrl", "needs a server")
