"""Build of balance-control: the rules engine (``bc_env/rules``) and the observation encoder
(``bc_env/encoding/observation.py``) compiled to C extensions by mypyc when mypyc and a C compiler are available,
else the pure-Python engine and encoder (same sources, same behaviour; ``bc_env.rules.COMPILED`` says which one
runs). Everything else is in pyproject.toml.

``BC_PURE_PYTHON=1 pip install ...`` skips the compilation (and removes the extensions that an earlier editable build
left beside the sources). A compilation that fails (no C compiler, a module mypyc
rejects) prints a warning and installs the pure-Python engine: the package always installs.
"""

from __future__ import annotations

import glob
import os
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

#: Modules of bc_env/rules that stay pure Python (mypyc cannot compile them), and why.
NOT_COMPILED = {
    "bc_env/rules/errors.py": "exception classes deriving from builtin ValueError / NotImplementedError "
    "(mypyc: inheriting from most builtin types is unimplemented); never on a hot path",
    "bc_env/rules/config.py": "RulesConfig(...) checks its arguments itself and names the field (ConfigError); as a "
    "compiled dataclass its typed fields would reject a wrong type first with a bare TypeError",
    "bc_env/rules/replay.py": "replay() checks the JSON actions itself (IllegalActionError naming the action); "
    "compiled, its list[int | str] annotation would reject a float or null first with a bare TypeError",
}

#: Modules outside bc_env/rules compiled with the engine (same group: they read the engine's native classes directly).
#: The hot paths of an environment step beside the engine (issue 19, item 3) and the batched env's loop (issue 26).
COMPILED_OUTSIDE_RULES = ["bc_env/encoding/observation.py", "bc_env/encoding/compact.py", "bc_env/vector/_loop.py"]

#: The shared library that holds the compiled modules: a top-level module bc_env_rules__mypyc.
GROUP = "bc_env_rules"

#: setup.py commands that build extensions (metadata queries such as egg_info / dist_info skip mypyc).
BUILD_COMMANDS = {"build", "build_ext", "bdist_wheel", "editable_wheel", "install", "develop"}


def _warn(message: str) -> None:
    print(f"balance-control build: {message}; installing the pure-Python engine", file=sys.stderr)


def remove_inplace_extensions() -> None:
    """The extensions an earlier compiled editable install left beside the sources (they would be imported)."""
    suffixes = (".so", ".pyd")
    found = glob.glob("bc_env/rules/**/*.*", recursive=True) + glob.glob(f"{GROUP}__mypyc*")
    found += [p for m in COMPILED_OUTSIDE_RULES for p in glob.glob(m[: -len(".py")] + ".*")]
    for path in sorted(p for p in found if p.endswith(suffixes)):
        print(f"balance-control build: removing {path}", file=sys.stderr)
        os.remove(path)


def engine_modules() -> list[str]:
    """Every module under bc_env/rules (modules added later are compiled too), minus NOT_COMPILED, and
    COMPILED_OUTSIDE_RULES."""
    paths = sorted(glob.glob("bc_env/rules/**/*.py", recursive=True))
    rules = [p.replace(os.sep, "/") for p in paths if p.replace(os.sep, "/") not in NOT_COMPILED]
    return rules + COMPILED_OUTSIDE_RULES


def compiled_extensions() -> list:  # type: ignore[type-arg]
    if not BUILD_COMMANDS.intersection(sys.argv[1:]):
        return []
    if os.environ.get("BC_PURE_PYTHON", "").strip() not in ("", "0"):
        print("balance-control build: BC_PURE_PYTHON is set; installing the pure-Python engine", file=sys.stderr)
        remove_inplace_extensions()
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _warn("mypyc is not installed")
        return []
    try:
        # --ignore-missing-imports: NumPy need not be installed in the build environment (mypyc treats its
        # objects as plain Python objects either way). The rest of the configuration is pyproject's [tool.mypy].
        # multi_file: one C file per module instead of one for the whole group, compiled in parallel (below): the
        # build takes about a third of the single file's time on two cores.
        modules = engine_modules()
        return mypycify(["--ignore-missing-imports", *modules], opt_level="3", group_name=GROUP, multi_file=True)
    except (Exception, SystemExit) as e:  # mypyc exits on a module it cannot compile
        _warn(f"mypyc could not compile the engine ({e!r})")
        return []


def parallel_compile(compiler, sources, output_dir=None, macros=None, include_dirs=None, debug=0, extra_preargs=None,
                     extra_postargs=None, depends=None):  # fmt: skip
    """distutils' ``CCompiler.compile`` with the object files compiled in parallel, one per core: the group's
    extension has one C file per module (multi_file), which ``build_ext`` would compile one after another."""
    from concurrent.futures import ThreadPoolExecutor

    macros, objects, extra_postargs, pp_opts, build = compiler._setup_compile(
        output_dir, macros, include_dirs, sources, depends, extra_postargs
    )
    cc_args = compiler._get_cc_args(pp_opts, debug, extra_preargs)

    def one(obj: str) -> None:
        if obj in build:
            src, ext = build[obj]
            compiler._compile(obj, src, ext, cc_args, extra_postargs, pp_opts)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        list(pool.map(one, objects))  # list: an error in any compile is raised here
    return objects


class OptionalBuildExt(build_ext):
    """A C build that fails (no compiler, a compile error) leaves the pure-Python engine, never half of each."""

    def build_extensions(self) -> None:
        compiler = self.compiler
        compiler.compile = lambda sources, *args, **kwargs: parallel_compile(compiler, sources, *args, **kwargs)
        super().build_extensions()

    def run(self) -> None:
        try:
            super().run()
        except Exception as e:
            _warn(f"the C build failed ({e!r})")
            self._remove_outputs()
            self.extensions = []

    def _remove_outputs(self) -> None:
        for ext in self.extensions:
            path = self.get_ext_fullpath(ext.name)
            if os.path.exists(path):
                os.remove(path)


setup(ext_modules=compiled_extensions(), cmdclass={"build_ext": OptionalBuildExt})
