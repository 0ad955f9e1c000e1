"""The installable package (issue 32): a wheel built from the Docker build context holds
``tokenizer_core``, the compiled kernel, the app and its data; installed in a virtual environment it
works from site-packages, outside the source tree: imports, the bundled samples, the CLI, the
``tokenizer-playground`` command, the app's first run, and the container's entry command with the
image's environment and health check. A failed compile still gives a wheel, with one warning.

One wheel is built per module (about 5 s: pip's build isolation, the C compiled once) and one venv
made from it (system site-packages give the dependencies, nothing is downloaded but the build tools).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from bench.app_server import free_port
from tests._packaging import ROOT, build_wheel, context_files, copy_context, env_outside, run, venv_with
from tokenizer_core import __version__
from tokenizer_core.cli import playground

pytestmark = pytest.mark.slow

KERNEL_WARNING = "WARNING: the compiled kernel"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    source = copy_context(tmp_path_factory.mktemp("context"))
    return build_wheel(source, tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def wheel_names(built):
    with zipfile.ZipFile(built[0]) as z:
        return set(z.namelist())


@pytest.fixture(scope="module")
def env_bin(built, tmp_path_factory):
    return venv_with(built[0], tmp_path_factory.mktemp("venv") / "env")


def _dist_file(names: set[str], wheel: Path, name: str) -> str:
    info = next(n for n in names if n.endswith(f".dist-info/{name}"))
    with zipfile.ZipFile(wheel) as z:
        return z.read(info).decode("utf-8")


def test_the_wheel_holds_the_packages_the_kernel_and_the_app(built, wheel_names):
    wheel, log = built
    assert any(n.startswith("tokenizer_kernel.") and n.endswith(".so") for n in wheel_names), "no compiled kernel"
    assert KERNEL_WARNING not in log
    app = {"ui/_app/app.py", "ui/_app/.streamlit/config.toml",
           *(f"ui/_app/pages/{p.name}" for p in (ROOT / "pages").glob("*.py"))}
    assert app <= wheel_names
    assert not any(n.startswith(("tests/", "bench/", "pages/", "app.py")) for n in wheel_names)
    lessons = {f"lessons/{p.name}" for p in (ROOT / "lessons").glob("*.yaml")}
    assert lessons <= wheel_names


def test_every_data_file_of_the_packages_is_in_the_wheel(wheel_names):
    """Bundled samples, shipped statistics and any data a module reads beside itself."""
    tracked = subprocess.run(["git", "ls-files", "tokenizer_core", "ui"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    data = [f for f in tracked if not f.endswith(".py") and (ROOT / f).is_file()]
    assert "tokenizer_core/corpus/samples/default.txt.xz" in data
    assert [f for f in data if f not in wheel_names] == []


def test_metadata_version_commands_and_pins(built, wheel_names):
    wheel = built[0]
    meta = _dist_file(wheel_names, wheel, "METADATA")
    assert f"\nVersion: {__version__}\n" in meta
    requires = sorted(line.split(": ", 1)[1] for line in meta.splitlines() if line.startswith("Requires-Dist: "))
    pins = [line.split("#")[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    pins = [p for p in pins if p and p != "."]
    assert [r.replace(" ", "") for r in requires] == sorted(p.replace(" ", "") for p in pins)
    entry_points = _dist_file(wheel_names, wheel, "entry_points.txt")
    assert "tokenizer-playground = tokenizer_core.cli.playground:main" in entry_points
    assert "tokenizer-core = tokenizer_core.cli:main" in entry_points


def test_imports_and_data_work_from_site_packages(env_bin, tmp_path):
    code = ("import json, tokenizer_core, ui, tokenizer_kernel\n"
            "from tokenizer_core import load_sample\n"
            "from tokenizer_core.kernel import native\n"
            "from tokenizer_core.corpus.stats_cache import SHIPPED_FOLDER\n"
            "print(json.dumps({'files': [tokenizer_core.__file__, ui.__file__, tokenizer_kernel.__file__],"
            " 'kernel': native.available(), 'default': len(load_sample('default').text),"
            " 'stats': sorted(p.name for p in SHIPPED_FOLDER.glob('stats-*')),"
            " 'version': tokenizer_core.__version__}))")
    done = run([str(env_bin / "python"), "-c", code], cwd=tmp_path, env=env_outside())
    got = json.loads(done.stdout)
    venv_root = str(env_bin.parent)
    assert all(f.startswith(venv_root) for f in got["files"]), got["files"]
    assert got["kernel"] and got["default"] > 1_000_000 and got["stats"] and got["version"] == __version__


def test_the_built_in_lessons_load_from_site_packages(env_bin, tmp_path):
    code = ("import tokenizer_core.lessons as lessons\n"
            "print(lessons.BUILTIN_DIR); print(len(lessons.builtin_lessons()))")
    done = run([str(env_bin / "python"), "-c", code], cwd=tmp_path, env=env_outside())
    folder, count = done.stdout.split()
    assert folder.startswith(str(env_bin.parent)) and int(count) == len(list((ROOT / "lessons").glob("*.yaml")))


def test_the_commands_work_from_site_packages(env_bin, tmp_path):
    env = env_outside()
    assert run([str(env_bin / "tokenizer-playground"), "--version"], cwd=tmp_path, env=env).stdout == \
        f"tokenizer-playground {__version__}\n"
    assert "streamlit run" in run([str(env_bin / "tokenizer-playground"), "--help"], cwd=tmp_path, env=env).stdout
    out = tmp_path / "bpe.json"
    run([str(env_bin / "python"), "-m", "tokenizer_core", "train", "--sample", "sennrich-low-lower-newest-widest",
         "--model", "bpe", "--vocab-size", "30", "-q", "-o", str(out)], cwd=tmp_path, env=env)
    done = run([str(env_bin / "tokenizer-core"), "encode", "-t", str(out), "--tokens"], cwd=tmp_path, env=env,
               input="lowest\n")
    assert done.stdout.strip()


def test_the_installed_app_runs_its_first_page(env_bin, tmp_path):
    """The router and the first page, run by Streamlit's AppTest from the installed copy."""
    code = ("from streamlit.testing.v1 import AppTest\n"
            "from tokenizer_core.cli.playground import app_script\n"
            "script = app_script(); assert '/_app/' in script.as_posix(), script\n"
            "at = AppTest.from_file(str(script), default_timeout=120).run()\n"
            "assert not at.exception, [e.value for e in at.exception]\n"
            "print([h.value for h in at.header] + [t.value for t in at.title])")
    done = run([str(env_bin / "python"), "-c", code], cwd=tmp_path, timeout=240,
               env=env_outside(TOKENIZER_PLAYGROUND_DB=str(tmp_path / "store.sqlite3")))
    assert "Corpus" in done.stdout


def test_the_container_entry_command_serves_the_health_check(env_bin, tmp_path):
    """The image's ENTRYPOINT with its final stage's environment (the volume a temporary folder, a free
    port), checked with the image's own HEALTHCHECK command."""
    from dockerfile_parse import DockerfileParser

    parsed = DockerfileParser(str(ROOT / "Dockerfile"), env_replace=False)
    final = parsed.envs  # the last stage's ENV
    entry = json.loads(next(i["value"] for i in reversed(parsed.structure) if i["instruction"] == "ENTRYPOINT"))
    health = next(i["value"] for i in reversed(parsed.structure) if i["instruction"] == "HEALTHCHECK")
    check = json.loads(health[health.index("CMD") + 3:].strip())
    port = str(free_port())
    data = tmp_path / "data"
    env = env_outside(**{k: v.replace("/data", str(data)) for k, v in final.items() if k != "PATH"})
    env.update(STREAMLIT_SERVER_PORT=port, STREAMLIT_SERVER_ADDRESS="127.0.0.1",
               PATH=f"{env_bin}:{env['PATH']}")
    server = subprocess.Popen([str(env_bin / entry[0]), *entry[1:]], cwd=tmp_path, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 90
        while True:
            probe = subprocess.run([str(env_bin / check[0]), *check[1:]], env=env, capture_output=True, text=True)
            if probe.returncode == 0:
                break
            assert server.poll() is None, server.stdout.read()
            assert time.monotonic() < deadline, probe.stderr
            time.sleep(0.5)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=5) as resp:
            assert resp.read() == b"ok"
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_failed_compile_still_gives_the_pure_python_package(tmp_path):
    """No working compiler (CC=false): the wheel has no kernel, pip succeeds, the build says so once."""
    source = copy_context(tmp_path / "context")
    env = env_outside(CC="false")
    wheel, log = build_wheel(source, tmp_path / "wheel", env=env)
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
    assert not any(n.startswith("tokenizer_kernel") for n in names)
    assert "tokenizer_core/__init__.py" in names and "ui/_app/app.py" in names
    assert log.count(KERNEL_WARNING) == 1, [line for line in log.splitlines() if "WARNING" in line]


def test_the_build_context_leaves_out_what_the_image_does_not_need():
    files = context_files()
    assert {"setup.py", "pyproject.toml", "requirements.txt", "README.md", "app.py", ".streamlit/config.toml"} <= set(files)
    assert any(f.startswith("kernels/src/") and f.endswith(".c") for f in files)
    assert not [f for f in files if f.startswith((".git/", "build/", "tests/", "bench/")) or "__pycache__" in f
                or f.endswith((".so", ".pyc"))]


def test_the_launcher_passes_the_app_settings_then_the_users_options():
    script = ROOT / "app.py"
    cmd = playground.streamlit_command(["--server.port", "9000"], script=script)
    assert cmd[:5] == [sys.executable, "-m", "streamlit", "run", str(script)]
    assert "--server.maxUploadSize=200" in cmd and "--runner.postScriptGC=false" in cmd
    assert cmd[-2:] == ["--server.port", "9000"]
    assert "--server.fileWatcherType=none" not in cmd  # only for an installed copy


def test_the_launcher_says_when_the_app_is_missing(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(playground, "app_script", lambda: tmp_path / "app.py")
    assert playground.main(["--server.headless", "true"]) == 2
    assert "reinstall" in capsys.readouterr().err
