"""The environment's ids in Gymnasium's and PettingZoo's registries, registered without ``import bc_env`` importing
either library.

* ``gymnasium.make("balance_control/BalanceControl-v0", config="core-2p")``: the single-agent view
  (:func:`bc_env.balance_control_v0.gymnasium_env`);
* ``pettingzoo.make("aec", "balance_control/balance_control_v0", config="core-4p")`` (PettingZoo 1.27's registry,
  where it exists): the AEC env (:func:`bc_env.balance_control_v0.env`).

``import bc_env`` calls :func:`install`: a registry module that is already imported gets the id at once; for the
others a finder on ``sys.meta_path`` waits until the library imports its registry module and adds the id right
after that module has loaded. So the engine's users never load Gymnasium or PettingZoo, and ``import bc_env``
followed by ``gymnasium.make(GYMNASIUM_ID)`` works in either import order.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from importlib import import_module
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

GYMNASIUM_ID = "balance_control/BalanceControl-v0"
PETTINGZOO_ID = "balance_control/balance_control_v0"
MODULE = "bc_env.balance_control_v0"


def register_gymnasium() -> None:
    from gymnasium.envs.registration import register, registry

    if GYMNASIUM_ID not in registry:
        register(id=GYMNASIUM_ID, entry_point=f"{MODULE}:gymnasium_env")


def register_pettingzoo() -> None:
    registration = import_module("pettingzoo.env_registry.registration")  # untyped: no static import
    if registration.EnvSpec(id=PETTINGZOO_ID).id not in registration.aec_registry:  # the id as PettingZoo keys it
        registration.register("aec", PETTINGZOO_ID, entry_point=f"{MODULE}:env")


#: Each registry module and what registers the environment in it.
REGISTRIES: dict[str, Callable[[], None]] = {
    "gymnasium.envs.registration": register_gymnasium,
    "pettingzoo.env_registry.registration": register_pettingzoo,
}


class _RegisterAfter(Loader):
    """Loads a module with its own loader, then runs ``then``."""

    def __init__(self, loader: Loader, then: Callable[[], None]) -> None:
        self.loader = loader
        self.then = then

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        self.then()

    def __getattr__(self, name: str) -> Any:  # get_source & co. (tracebacks) come from the real loader
        return getattr(self.loader, name)


class _WaitForRegistries(MetaPathFinder):
    """Finds nothing itself: when a registry module of :data:`REGISTRIES` is imported, it asks the other finders for
    it and wraps its loader in :class:`_RegisterAfter`."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        then = REGISTRIES.get(fullname)
        if then is None:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _RegisterAfter(spec.loader, then)
                return spec
        return None


def install() -> None:
    """Register now in the registries already imported, and later in the others."""
    for module, register in REGISTRIES.items():
        if module in sys.modules:
            register()
    if not any(isinstance(f, _WaitForRegistries) for f in sys.meta_path):
        sys.meta_path.insert(0, _WaitForRegistries())
