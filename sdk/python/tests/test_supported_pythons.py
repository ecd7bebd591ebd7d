"""The SDK installs and imports on every Python it claims (``requires-python = ">=3.9"``).

Checked on the machine's Python whatever its version: every ``.py`` file of the SDK (package, examples,
tests) parses with Python 3.9's grammar, and no annotation evaluated at run time uses a 3.10+ form
(``X | Y``) unless the module postpones annotations (``from __future__ import annotations``). With
``DAUTH_PYTHON39`` (a Python 3.9 interpreter) the unit suite also runs under it.
"""

from __future__ import annotations

import ast
import os
import pathlib
import re
import subprocess
import sys
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _sources() -> list[pathlib.Path]:
    return sorted(
        p for p in ROOT.rglob("*.py") if "build" not in p.relative_to(ROOT).parts[:1] and ".egg-info" not in str(p)
    )


def _postpones_annotations(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.ImportFrom)
        and node.module == "__future__"
        and any(alias.name == "annotations" for alias in node.names)
        for node in tree.body
    )


def _annotations(tree: ast.Module):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if arg is not None and arg.annotation is not None:
                    yield arg.annotation
            if node.returns is not None:
                yield node.returns
        elif isinstance(node, ast.AnnAssign):
            yield node.annotation


class SupportedPythons(unittest.TestCase):
    def test_requires_python_is_3_9(self) -> None:
        pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
        self.assertRegex(pyproject, re.compile(r'^requires-python = ">=3\.9"$', re.M))

    def test_every_file_parses_with_the_3_9_grammar(self) -> None:
        sources = _sources()
        self.assertGreater(len(sources), 10)
        for path in sources:
            with self.subTest(path=str(path.relative_to(ROOT))):
                ast.parse(path.read_text(encoding="utf-8"), filename=str(path), feature_version=(3, 9))

    def test_no_run_time_annotation_needs_3_10(self) -> None:
        for path in _sources():
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            if _postpones_annotations(tree):
                continue
            for annotation in _annotations(tree):
                uses_union = any(
                    isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr) for n in ast.walk(annotation)
                )
                with self.subTest(path=str(path.relative_to(ROOT)), line=annotation.lineno):
                    self.assertFalse(uses_union, "X | Y in an annotation needs Python 3.10 without postponed annotations")

    @unittest.skipUnless(os.environ.get("DAUTH_PYTHON39"), "set DAUTH_PYTHON39 to a Python 3.9 interpreter")
    def test_unit_suite_under_python_3_9(self) -> None:
        python = os.environ["DAUTH_PYTHON39"]
        version = subprocess.run([python, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True, text=True)
        self.assertEqual(version.stdout.strip(), "(3, 9)")
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "DAUTH_PYTHON39": ""}
        run = subprocess.run(
            [python, "-m", "unittest", "discover"], cwd=ROOT, capture_output=True, text=True, env=env, timeout=600
        )
        self.assertEqual(run.returncode, 0, run.stderr[-4000:])


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]])
