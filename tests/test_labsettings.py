"""JupyterLab's own switches for the course (autograder/learner/labsettings.py): the Save and check extension
is installed from its committed build, and the learner's launch (make lab) alone turns nbgrader's instructor
tools off. The browser proves both in tests/test_browser_check.py."""

import json
import os
import re
import subprocess
import sys

from autograder.learner import labsettings

EXTENSION = labsettings.EXTENSION_BUILD.parent


def test_the_committed_build_is_the_source_built():
    """CI and learners never run npm: the build in dist/ must carry what lib/index.js says (rebuild with
    docs/architecture.md says how after an edit)."""
    meta = json.loads((labsettings.EXTENSION_BUILD / "package.json").read_text())
    assert meta["name"] == labsettings.EXTENSION_NAME
    assert (labsettings.EXTENSION_BUILD / meta["jupyterlab"]["_build"]["load"]).is_file()
    built = "".join(p.read_text() for p in (labsettings.EXTENSION_BUILD / "static").glob("*.js"))
    source = (EXTENSION / "lib" / "index.js").read_text()
    for literal in set(re.findall(r"'([^'\n]{6,})'", source)) - {"@jupyterlab/notebook", "@jupyterlab/ui-components"}:
        assert literal in built, f"dist/ is older than lib/index.js: {literal!r} is not in the build"
    schema = json.loads((labsettings.EXTENSION_BUILD / "schemas" / "@ptlab" / "selfcheck" / "plugin.json").read_text())
    assert schema == json.loads((EXTENSION / "schema" / "plugin.json").read_text())


def test_jupyterlab_finds_the_linked_extension(tmp_path):
    link = labsettings.install_extension(tmp_path)
    assert labsettings.install_extension(tmp_path) == link and link.resolve() == labsettings.EXTENSION_BUILD.resolve()
    env = dict(os.environ, JUPYTER_PATH=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "jupyter", "labextension", "list"], env=env, capture_output=True,
                          text=True, timeout=120)
    line = next((x for x in (done.stdout + done.stderr).splitlines() if labsettings.EXTENSION_NAME in x), "")
    assert "enabled" in line and "OK" in line, done.stdout + done.stderr


def test_the_learners_config_turns_off_nbgraders_instructor_tools_only_in_its_own_folder(tmp_path):
    config = labsettings.write_learner_config(str(tmp_path))
    assert config == tmp_path / "etc" / "ptlab-learner"
    page = json.loads((config / "labconfig" / "page_config.json").read_text())
    assert page["disabledExtensions"] == {p: True for p in labsettings.INSTRUCTOR_LAB_PLUGINS}
    assert "@jupyter/nbgrader:validate-assignment" in labsettings.INSTRUCTOR_LAB_PLUGINS
    server = json.loads((config / "jupyter_server_config.json").read_text())
    assert server["ServerApp"]["jpserver_extensions"] == {e: False for e in labsettings.INSTRUCTOR_SERVER_EXTENSIONS}
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.json")) == [
        "etc/ptlab-learner/jupyter_server_config.json", "etc/ptlab-learner/labconfig/page_config.json"], \
        "nothing may be written where every jupyter launch reads it"


def test_make_lab_puts_the_learners_config_on_jupyter_config_path_for_its_launch_only():
    from tests.tiny_course import ROOT

    done = subprocess.run(["make", "-n", "lab"], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, MAKEFLAGS=""))
    launch = [line for line in done.stdout.replace("\\\n", " ").splitlines() if "jupyter lab" in line]
    assert launch and all("JUPYTER_CONFIG_PATH=" in line and "lab-settings --learner-dir" in line for line in launch), \
        done.stdout
