"""Settings are read in one module (cue.core.settings), every variable is in the README, and
bad values fall back as documented there."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from cue.core import config, paths, settings
from cue.core.config import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def _reads_environ(tree: ast.AST) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr in ("environ", "getenv")
               and isinstance(n.value, ast.Name) and n.value.id == "os" for n in ast.walk(tree))


def test_only_the_settings_module_reads_cue_variables():
    readers = []
    for path in sorted((ROOT / "cue").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "CUE_" in text and _reads_environ(ast.parse(text)):
            readers.append(path.relative_to(ROOT).as_posix())
    assert readers == ["cue/core/settings.py"]


def test_every_variable_is_in_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in (settings.HOME, settings.DEBUG, settings.SPACY_MODEL, settings.API_KEY,
                 "CUE_<SECTION>_<KEY>"):
        assert f"`{name}`" in readme, name


def test_bad_values_fall_back_as_documented(monkeypatch, tmp_path):
    monkeypatch.setenv("CUE_HOME", "   ")
    assert paths.home() == Path.home() / ".cue"
    monkeypatch.setenv("CUE_HOME", str(tmp_path))
    assert paths.home() == tmp_path
    for value, on in (("", False), ("0", False), (" 0 ", False), ("1", True), ("yes", True)):
        monkeypatch.setenv("CUE_DEBUG", value)
        assert settings.debug() is on, value
    monkeypatch.setenv("CUE_SPACY_MODEL", "  ")
    assert settings.spacy_model() is None
    monkeypatch.setenv("CUE_DIGEST_BACKEND", "")  # empty: not set, the default stands
    cfg = config.load()
    assert cfg["digest.backend"] == "cloud" and cfg.sources["digest.backend"] == "default"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "  ")  # empty: the key file decides
    assert settings.anthropic_api_key() is None


def test_a_bad_setting_override_names_its_variable(monkeypatch):
    monkeypatch.setenv("CUE_DIGEST_MAX_FRAMES", "many")
    with pytest.raises(ConfigError, match="CUE_DIGEST_MAX_FRAMES"):
        config.load()


def test_a_spacy_model_that_is_not_there_is_an_error_not_a_download(monkeypatch):
    from cue.core.errors import CueError
    from cue.pii import engine

    monkeypatch.setenv("CUE_SPACY_MODEL", "en_core_web_not_installed")
    with pytest.raises(CueError, match="CUE_SPACY_MODEL=en_core_web_not_installed"):
        engine.spacy_model()
    monkeypatch.setenv("CUE_SPACY_MODEL", "None")
    assert engine.spacy_model() is None
