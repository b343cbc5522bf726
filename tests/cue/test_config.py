"""cue config: TOML in CUE_HOME, env overrides, validation, the API key rules, the CLI."""
from __future__ import annotations

import json
import os
import stat
import subprocess

import pytest
from typer.testing import CliRunner

from cue.cli.app import app
from cue.core import config as cue_config
from cue.core import paths
from cue.core.config import ConfigError

runner = CliRunner()


def test_defaults_without_a_file():
    cfg = cue_config.load(env={})
    assert cfg["digest.backend"] == "cloud"  # the seed's default
    assert cfg["digest.allow_cloud_fallback"] is False  # fail closed unless opted in
    assert cfg["cloud.model"] == "claude-haiku-4-5"
    assert set(cfg.sources.values()) == {"default"}


def test_set_writes_a_private_file_that_load_reads_back():
    cue_config.set_value("digest.backend", "local")
    cue_config.set_value("local.timeout", "45")
    cue_config.set_value("digest.allow_cloud_fallback", "yes")
    cue_config.set_value("local.model", '/models/g "e2b".gguf')
    path = paths.config_path()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    cfg = cue_config.load(env={})
    assert cfg["digest.backend"] == "local" and cfg.sources["digest.backend"] == "file"
    assert cfg["local.timeout"] == 45.0
    assert cfg["digest.allow_cloud_fallback"] is True
    assert cfg["local.model"] == '/models/g "e2b".gguf'
    cue_config.unset_value("local.timeout")
    assert cue_config.load(env={})["local.timeout"] == 120.0


def test_env_overrides_the_file():
    cue_config.set_value("digest.backend", "local")
    cfg = cue_config.load(env={"CUE_DIGEST_BACKEND": "server", "CUE_LOCAL_THREADS": "3",
                               "CUE_DIGEST_ALLOW_CLOUD_FALLBACK": "false"})
    assert cfg["digest.backend"] == "server" and cfg.sources["digest.backend"] == "env"
    assert cfg["local.threads"] == 3
    with pytest.raises(ConfigError, match="CUE_LOCAL_THREADS.*number"):
        cue_config.load(env={"CUE_LOCAL_THREADS": "many"})


@pytest.mark.parametrize("text, message", [
    ("[digest\nbackend = 1", "not valid TOML"),
    ("[digest]\nbackend = \"gpt\"\n", "must be one of cloud, local, server"),
    ("[digest]\nbakend = \"local\"\n", "unknown setting `digest.bakend`"),
    ("[local]\ntimeout = \"soon\"\n", "must be float"),
    ("[local]\ntimeout = -1\n", "must be positive"),
    ("[digest]\nwindow = \"forever\"\n", "cannot read duration"),
    ("digest = 3\n", "must be a \\[table\\]"),
])
def test_invalid_files_are_one_clear_error(text, message):
    path = paths.ensure_home() / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        cue_config.load(env={})


def test_set_rejects_bad_values_and_writes_nothing():
    for key, value, message in [("digest.backend", "gpt", "one of"),
                                ("nope.key", "1", "unknown setting"),
                                ("local.threads", "x", "number"),
                                ("cloud.api_key", "sk-123", "not stored in config.toml")]:
        with pytest.raises(ConfigError, match=message):
            cue_config.set_value(key, value)
    assert not paths.config_path().exists()


def test_api_key_from_env_or_a_0600_file_only(tmp_path):
    cfg = cue_config.load(env={})
    assert cue_config.api_key(cfg, env={}) is None
    assert cue_config.api_key(cfg, env={"ANTHROPIC_API_KEY": "sk-env"}) == "sk-env"
    keyfile = paths.ensure_home() / "anthropic-api-key"  # the default location
    keyfile.write_text("sk-file\n")
    keyfile.chmod(0o644)
    with pytest.raises(ConfigError, match="can be read by others.*chmod 600"):
        cue_config.api_key(cfg, env={})
    keyfile.chmod(0o600)
    assert cue_config.api_key(cfg, env={}) == "sk-file"


def test_cli_show_get_set_and_errors(monkeypatch):
    r = runner.invoke(app, ["config", "set", "digest.backend", "local"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["config", "get", "digest.backend"])
    assert r.stdout == "local\n"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-value")
    r = runner.invoke(app, ["config", "show", "--format", "json"])
    rows = {row["key"]: row for row in json.loads(r.stdout)}
    assert rows["digest.backend"]["value"] == "local" and rows["digest.backend"]["source"] == "file"
    assert rows["anthropic_api_key"]["source"] == "env ANTHROPIC_API_KEY"
    r = runner.invoke(app, ["config", "show"])
    assert "digest.backend" in r.stdout and "sk-ant-secret-value" not in r.stdout


def test_cli_bad_config_is_one_error_line(cue_bin):
    path = paths.ensure_home() / "config.toml"
    path.write_text("[digest]\nbackend = \"gpt\"\n")
    for args in (["config", "show"], ["digest", "--dry-run"], ["config", "get", "x.y"]):
        proc = subprocess.run([cue_bin, *args], capture_output=True, text=True, env=os.environ,
                              check=False)
        assert proc.returncode == 1, (args, proc.stderr)
        assert proc.stdout == ""
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), proc.stderr
