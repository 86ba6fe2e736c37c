import pytest

import kantensor as kt


@pytest.fixture
def default_float64():
    """Switch the default float dtype to float64 for one test."""
    old = kt.get_default_dtype()
    kt.set_default_dtype("float64")
    yield
    kt.set_default_dtype(old)
