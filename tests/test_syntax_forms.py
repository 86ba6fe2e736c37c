"""Parsed forms shipped with the catalogue (kantensor/syntax/forms.py): each decodes to
what the parser makes of its text now, a form answers only its own text, and a form that
does not decode, or of another version, is never used (the text is parsed)."""

from __future__ import annotations

import json
import tomllib

import pytest

from fuzzing import mutants
from kantensor.ops import shipped
from kantensor.ops.catalogue import catalogue_files, catalogue_root
from kantensor.syntax import forms
from kantensor.syntax.errors import SignatureSyntaxError
from kantensor.syntax.parser import parse_alternatives, parse_fresh, parse_template
from kantensor.syntax.template import Template
from test_fuzz_text import PIECES_SIG, SIGNATURES


def _shipped_forms() -> list[tuple[str, bool, str]]:
    """(text, template?, form) of every form the package ships."""
    out = []
    for folder in (None, "onnx"):
        path = catalogue_root() / folder / shipped.TABLES if folder else \
            catalogue_root() / shipped.TABLES
        for entry in json.loads(path.read_text(encoding="utf-8")).values():
            made = entry["forms"]
            assert made["version"] == forms.version()
            for key, template in (("signatures", False), ("templates", True)):
                out += [(text, template, form) for text, form in made[key].items()]
    return out


def test_every_shipped_form_is_a_fresh_parse_of_its_text(monkeypatch):
    monkeypatch.setattr(forms, "_SHIPPED", {})
    found = _shipped_forms()
    assert sum(t for _, t, _ in found) > 150 and sum(not t for _, t, _ in found) > 40
    for text, template, form in found:
        made = forms.decode(json.loads(form))
        fresh = parse_fresh(text, template)
        assert made == fresh and str(Template(made)) == str(Template(fresh)), text
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
            assert forms.decode(json.loads(json.dumps(forms.encode(parsed)))) == parsed
            done += 1
    assert done > 80


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
    """A file's forms made by another encoding or grammar are left out: its texts parse."""
    monkeypatch.setattr(forms, "_SHIPPED", {})
    name, text = next((n, t) for n, t in catalogue_files("onnx") if n == "math.toml")
    index = shipped.precompiled("onnx")
    entry = dict(index[name], forms={**index[name]["forms"], "version": "0:old"})
    assert shipped.tables_of(name, text, {name: entry}) == index[name]["tables"]
    assert forms._SHIPPED == {}
    shipped.tables_of(name, text, index)
    assert forms._SHIPPED
