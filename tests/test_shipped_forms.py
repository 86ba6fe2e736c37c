"""Parsed forms shipped with the catalogue (kantensor/syntax/forms.py for signatures,
kantensor/ops/callspec.py for calls): each decodes to what the parser makes of its text
now, a form answers only its own text, and a form that does not decode, or of another
version, is never used (the text is parsed)."""

from __future__ import annotations

import json
import tomllib

import pytest

import kantensor as kt
from fuzzing import mutants
from kantensor import TensorType
from kantensor.onnx import registry
from kantensor.ops import callspec, catalogue, shipped
from kantensor.ops.callspec import CallSpec, _parse_call, call_form
from kantensor.ops.catalogue import catalogue_files, catalogue_root
from kantensor.syntax import ast as A
from kantensor.syntax import forms
from kantensor.syntax.ast.names import WordSet
from kantensor.syntax.errors import SignatureSyntaxError, TypeInferenceError
from kantensor.syntax.parser import parse_alternatives, parse_fresh, parse_template
from kantensor.syntax.template import Template
from test_fuzz_text import PIECES_SIG, SIGNATURES
from test_onnx_keyed import _built


def _shipped() -> dict:
    return json.loads((catalogue_root() / shipped.FORMS).read_text(encoding="utf-8"))


def _shipped_forms() -> list[tuple[str, bool, str]]:
    """(text, template?, form) of every signature form the package ships."""
    made = _shipped()
    assert made["version"] == shipped.forms_version()
    return [(text, template, form)
            for key, template in (("signatures", False), ("templates", True))
            for text, form in made[key].items()]


def test_the_shipped_forms_are_those_of_the_catalogue_now():
    """signatures/forms.json is what ``make catalogue-index`` makes of the catalogue
    files now (if this fails: run it and commit the file)."""
    assert (catalogue_root() / shipped.FORMS).read_text(encoding="utf-8") == \
        shipped.serialized_forms()


def test_every_shipped_form_is_a_fresh_parse_of_its_text(monkeypatch):
    monkeypatch.setattr(forms, "_SHIPPED", {})
    found = _shipped_forms()
    assert sum(t for _, t, _ in found) > 150 and sum(not t for _, t, _ in found) > 40
    for text, template, form in found:
        made = forms.decode(json.loads(form))
        fresh = parse_fresh(text, template)
        assert made == fresh and str(Template(made)) == str(Template(fresh)), text
        # every field, also those equality skips (a clause's message: a decoded
        # clause has none, so its form is made again)
        assert forms.encode(made) == json.loads(form), text
        forms.register({text: form}, template)
        assert forms.known(text, template) == fresh


def test_every_signature_text_of_the_catalogue_has_its_forms():
    """Every signature text of a shipped file (as the file has it now) has a form as a
    template, and one as a signature where it has no placeholder."""
    found = {(text, template) for text, template, _ in _shipped_forms()}
    for folder in (None, "onnx"):
        for _, text in catalogue_files(folder):
            for table in tomllib.loads(text)["op"]:
                sig = table.get("signature")
                if isinstance(sig, str):
                    assert (sig, True) in found
                    assert ("{" in sig) or (sig, False) in found


def test_forms_round_trip_on_fuzzed_signatures():
    """encode then decode gives the parse back, on the fuzz seeds and their mutants (the
    ones that parse), as signatures and as templates."""
    done = 0
    for text in SIGNATURES + mutants(SIGNATURES, 1500, PIECES_SIG, seed=11):
        for template in (False, True):
            try:
                parsed = parse_fresh(text, template)
            except SignatureSyntaxError:
                continue
            form = json.loads(json.dumps(forms.encode(parsed)))
            assert forms.decode(form) == parsed
            assert forms.encode(forms.decode(form)) == form  # (fields == skips too)
            done += 1
    assert done > 80


def test_a_decoded_clause_has_no_message_and_keeps_its_choice():
    """A form's fields are read by name: ``message`` is never written, and the field
    after it (``otherwise``) once landed in its place, so ``x.item()`` on a tensor of
    two elements failed with TypeError ('str' object is not callable) instead of
    saying which where-clause fails."""
    chosen = A.Compare(">=", A.DimVar("n"), A.FixedDim(0), otherwise="counted from the end")
    made = forms.decode(json.loads(json.dumps(forms.encode(chosen))))
    assert made.message is None and made.otherwise == "counted from the end"
    assert forms.decode(json.loads(json.dumps(forms.encode(A.Compare(
        "==", A.DimVar("n"), A.FixedDim(1)))))).message is None
    with pytest.raises(ValueError, match="fields"):
        forms.decode(["Compare", "==", ["DimVar", "n"], ["FixedDim", 1], "", "extra"])


def test_item_of_two_elements_says_which_clause_fails():
    with pytest.raises(TypeInferenceError, match="a0 == 1 fails: 2 == 1 is false"):
        kt.tensor("x", "float32", (2,)).item()


def test_a_form_answers_its_own_text_only(monkeypatch):
    monkeypatch.setattr(forms, "_SHIPPED", {})
    form = json.dumps(forms.encode(parse_fresh("(m,n)->(n,m)")))
    forms.register({"(a,b)->(b,a)": form}, template=False)  # (a form filed under a text)
    assert parse_alternatives("(a,b)->(b,a)") == parse_fresh("(m,n)->(n,m)")
    # another text, or the same text as a template, is parsed
    assert forms.known("(a,b)->(b, a)", False) is None
    assert forms.known("(a,b)->(b,a)", True) is None
    assert str(parse_template("(a,b)->(b,a)")) == "(a,b)->(b,a)"


@pytest.mark.parametrize("form", [
    "not json", "[]", '["NoSuchNode", "n"]', '["", ["DimVar", "n"]]',  # not alternatives
    '["", ["Alternative", ["", ["TensorPattern", ["", ["DimVar", "1n"]], null]], '
    '["", ["TensorPattern", ["", ], null]], ["", ], null, null]]',  # a node refuses it
    '["", ["Alternative", ["", ], ["", ["TensorPattern", ["", ["DimVar", "q"]], null]], '
    '["", ], null, null]]',  # ill-formed: q is bound by no input
])
def test_a_form_that_does_not_decode_to_alternatives_is_not_used(monkeypatch, form):
    monkeypatch.setattr(forms, "_SHIPPED", {})
    forms.register({"(n)->(n)": form}, template=False)
    assert forms.known("(n)->(n)", False) is None
    assert parse_alternatives("(n)->(n)") == parse_fresh("(n)->(n)")


def test_forms_of_another_version_are_not_registered(monkeypatch):
    """Forms made by another encoding or grammar are left out: their texts parse."""
    monkeypatch.setattr(forms, "_SHIPPED", {})
    monkeypatch.setattr(callspec, "_SHIPPED", {})
    with monkeypatch.context() as patched:
        patched.setattr(shipped, "forms_version", lambda: "0:old")
        shipped.register_forms()
    assert forms._SHIPPED == {} and callspec._SHIPPED == {}
    shipped.register_forms()
    assert len(forms._SHIPPED) > 150 and len(callspec._SHIPPED) > 100


@pytest.mark.parametrize("text", ["[" * 100_000, None])
def test_forms_too_deep_to_decode_or_unreadable_are_not_registered(monkeypatch, text):
    """A forms.json nested deeper than json decodes (RecursionError), or a folder of
    that name: nothing registered (every text is parsed), not an error at first use."""
    class Folder:
        def __truediv__(self, name: str) -> Folder:
            return self

        def read_text(self, encoding: str) -> str:
            if text is None:
                raise IsADirectoryError("forms.json is a folder")
            return text

    monkeypatch.setattr(forms, "_SHIPPED", {})
    monkeypatch.setattr(callspec, "_SHIPPED", {})
    monkeypatch.setattr(shipped, "catalogue_root", Folder)
    shipped.register_forms()
    assert forms._SHIPPED == {} and callspec._SHIPPED == {}


def _same(a: object, b: object) -> bool:
    """Equal, with the same types throughout (``(0,)`` is not ``[0]``, True is not 1)."""
    if type(a) is not type(b):
        return False
    return a == b if not isinstance(a, tuple | list) else \
        len(a) == len(b) and all(map(_same, a, b))


def test_every_shipped_call_form_gives_the_parameters_of_its_text(monkeypatch):
    monkeypatch.setattr(callspec, "_SHIPPED", {})
    calls = _shipped()["calls"]
    tables = [table for folder in (None, "onnx") for _, text in catalogue_files(folder)
              for table in tomllib.loads(text)["op"]]
    texts = {table["call"] for table in tables if "call" in table}
    # every call of the catalogue has its form, and so has the call an entry without
    # one takes (x, x1, x2, ...: catalogue._default_call)
    defaults = {catalogue._default_call(t["signature"]) for t in tables
                if "call" not in t and "signature" in t}
    assert set(calls) == texts | defaults and {"x", "x1, x2"} <= defaults
    callspec.register_calls(calls)
    for text in texts:
        shipped_params, fresh = callspec._shipped_params(text), _parse_call(text)
        assert shipped_params == fresh, text
        assert all(_same(a.default, b.default) for a, b in zip(shipped_params, fresh,
                                                               strict=True)), text


@pytest.mark.parametrize("text", [
    "x, *, given: ints = (0,)", "x, y, *rest, k: int = 1, flag: bool = True",
    'x, *, mode: "full|same" = "same", value: dtyped_number = ["float32", 0.0]',
    "x, *, pads: axis_pairs = ((0, 1), (2, 3))", "*xs, scale: number = -1.5",
    "a, *, rtol: cutoff = UNSET",
])
def test_a_call_form_round_trips_with_its_types(monkeypatch, text):
    monkeypatch.setattr(callspec, "_SHIPPED", {})
    callspec.register_calls({text: call_form(text)})
    made = CallSpec(text)
    fresh = _parse_call(text)
    assert made.params == fresh
    assert all(_same(a.default, b.default) for a, b in zip(made.params, fresh, strict=True))


@pytest.mark.parametrize("form", [
    "not json", "{}", '[["x", "no such kind", [], false]]', '[["x", "tensor", [], 0]]',
    '[["k", "int", [], true, {"tuple": 3}]]', '[["x"]]', '[["x", "tensor", [], false, 1]]',
    '[["k", "choice", [], true, "a"]]', '[["k", "int", ["a"], true, 2]]',
    '[["k", "int", [], true, {"marker": "NO_SUCH_MARKER"}]]',
])
def test_a_call_form_that_is_not_one_is_not_used(monkeypatch, form):
    monkeypatch.setattr(callspec, "_SHIPPED", {})
    callspec.register_calls({"x, *, k: int = 2": form})
    assert callspec._shipped_params("x, *, k: int = 2") is None
    assert CallSpec("x, *, k: int = 2").params == _parse_call("x, *, k: int = 2")


def test_the_onnx_registry_decodes_only_the_tables_a_model_uses(monkeypatch):
    """Indexing the ONNX folder reads each precompiled table's keys, not its data; an
    op type's tables are decoded when its entries are built."""
    decoded = []
    data = shipped.ShippedTable.data
    monkeypatch.setattr(shipped.ShippedTable, "data",
                        lambda self: decoded.append(json.loads(self.text)["name"]) or data(self))
    index = registry._tables.__wrapped__()
    assert decoded == [] and len(index) > 150
    monkeypatch.setattr(registry, "_tables", lambda: index)
    built = _built(registry, "Softmax")  # (its tables, one per opset range)
    assert len(decoded) == len(built) >= 1  # (each table its own name: Softmax-11)
    assert all(name.partition("-")[0] == "Softmax" for name in decoded)
    assert {entry.op_type for entry in built} == {"Softmax"}


def test_a_precompiled_table_that_is_not_json_is_not_used():
    name, text = next((n, t) for n, t in catalogue_files() if n == "elementwise.toml")
    index = shipped.precompiled()
    garbled = dict(index[name], tables=[[{"name": "Add"}, "{not json"]])
    assert shipped.tables_of(name, text, {name: garbled}) is None
    deep = dict(index[name], tables=[[{"name": "Add"}, "[" * 100_000]])  # (RecursionError)
    assert shipped.tables_of(name, text, {name: deep}) is None
    assert shipped.tables_of(name, text, {name: dict(index[name], tables=[["x", "{}"]])}) \
        is None
    for line in ("{not", "[" * 100_000):
        with pytest.raises(registry.CatalogueError, match="not JSON"):
            registry._table("onnx/math.toml", 0, shipped.ShippedTable({}, line), ("", "Add"),
                            frozenset())


def test_a_dtype_added_to_the_table_retires_the_forms(monkeypatch):
    """A name's meaning in a signature depends on the dtype names (``float4`` is a dtype
    variable until the table names a dtype so): forms made under other dtype names are
    not registered."""
    more = WordSet("dtype names")
    more.define([*A.DTYPE_NAMES, "float99"])
    shipped_version = shipped.forms_version()
    monkeypatch.setattr(forms, "_VERSION", [])
    monkeypatch.setattr(A, "DTYPE_NAMES", more)
    assert shipped.forms_version() != shipped_version
    monkeypatch.setattr(forms, "_SHIPPED", {})
    shipped.register_forms()
    assert forms._SHIPPED == {}



def test_a_decoded_form_sets_each_field_by_name():
    """A form leaves out ``message`` (never in a parsed text): decoding it must not put
    the next field (a where-clause's ``otherwise``) in its place. It did, so every
    shipped where-clause had the message '' and its failure raised "'str' object is not
    callable" while the error was worded (FlexAttention's ``hq % hk == 0``), and a
    builder's choice would lose its ``otherwise``."""
    chosen = A.chosen(A.Compare(">=", A.DimVar("n"), A.FixedDim(1)), "counted from the end")
    back = forms.decode(json.loads(json.dumps(forms.encode((chosen,)))))[0]
    assert back.message is None and back.otherwise == "counted from the end"
    op = registry.lookup("FlexAttention", "ai.onnx.preview", 1, "n").op
    with pytest.raises(TypeInferenceError, match="hq%hk == 0"):
        op(*(TensorType.parse(t)() for t in
             ("float32[1,3,4,16]", "float32[1,2,6,16]", "float32[1,2,6,16]")))
