"""Rules configuration: one typed, validated object with every rules option (RULINGS R1..R22).

Presets live as TOML files in ``configs/rules/`` and load by name (``RulesConfig.preset("core-4p")``)
or by path (``RulesConfig.load("my.toml")``). Every bad value raises :class:`ConfigError` naming the
field and the allowed values.
"""

from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from .errors import ConfigError, StateError
from .jsonread import check_data, strict_loads

#: Resorts in canonical order. CORE-01-02-04A defines the first three; each expansion adds one
#: (EXP-01-00-03 ECO, EXP-02-00-03 SEC, EXP-03-00-03 CLM).
ALL_RESORTS = ("DOM", "FOR", "INF", "ECO", "SEC", "CLM")
# ECO (EXP-01-01-01..08 / EXP-01-01-01..06 (v1.3)) is one more resort that behaves like the others: every
# "any resort" cost slot accepts it and it counts as a distinct resort for "different resorts"
# (EXP-01-07-01..03 (Rule Interaction) / EXP-01-10-01/02 (v1.3)); it exists only while EXP-01 is active
# (EXP-01-01-08, EXP-01-07-04 (Rule Interaction) / EXP-01-01-06, EXP-01-10-03 (v1.3)). Its Resources live
# in the same zones as the others: supplies, Bank, Noise (EXP-01-02-17).

TOPOLOGIES = ("square", "hex")
EDITIONS = ("standalone", "v1.3")
PAY_RULES = ("same", "distinct", "any")
GAIN_RULES = ("different", "any")
TIE_BREAKS = ("shared", "resources")

PRESET_DIR = Path(__file__).resolve().parents[2] / "configs" / "rules"


@dataclass(frozen=True)
class GrassrootsText:
    """A Grassroots tile's ConvertResources text as data (CORE-01-04-22, RULINGS R16).

    Pay ``pay`` Resources to the Bank, chosen by ``pay_rule`` (``same``: all of one resort,
    ``distinct``: pairwise different resorts, ``any``), then take ``gain`` Resources of one resort
    from the Bank (``gain_rule``: ``different`` from every paid resort, or ``any``).
    """

    pay: int = 2
    pay_rule: str = "same"
    gain: int = 1
    gain_rule: str = "different"
    text: str = (
        "ConvertResources: pay 2 Resources of one resort to the Bank; "
        "take 1 Resource of a different resort from the Bank."
    )

    def validate(self, where: str) -> None:
        _check_int(f"{where}.pay", self.pay, 1, 6)
        _check_choice(f"{where}.pay_rule", self.pay_rule, PAY_RULES)
        _check_int(f"{where}.gain", self.gain, 1, 6)
        _check_choice(f"{where}.gain_rule", self.gain_rule, GAIN_RULES)
        _check_text(f"{where}.text", self.text)


def _check_int(name: str, value: Any, lo: int, hi: int | None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be an integer, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        allowed = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise ConfigError(f"{name} must be in {allowed}, got {value!r}")


def _check_text(name: str, value: Any) -> None:
    """A string of Unicode text: a lone surrogate (``"\\ud800"`` from JSON) could never be printed or saved."""
    if not isinstance(value, str):
        raise ConfigError(f"{name} must be a string, got {value!r}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigError(f"{name} holds a lone surrogate ({ascii(value[:64])}): not Unicode text") from None


def _check_bool(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be true or false, got {value!r}")


def _check_choice(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ConfigError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")


@dataclass(frozen=True)
class RulesConfig:
    """Every rules option. Defaults are the rulings' defaults (RULINGS R1..R22)."""

    players: int = 4
    #: VAR-01-01 TileRecycling (RULINGS R4).
    tile_recycling: bool = False
    #: VAR-01-02 FirstPlayerHandicap.
    first_player_handicap: bool = False
    #: RULINGS R1.
    topology: str = "square"
    #: RULINGS R2: the table is table_size x table_size cells (hex: radius table_size // 2).
    table_size: int = 15
    #: RULINGS R15.
    action_tiles_require_control: bool = False
    #: RULINGS R17: None = unlimited Bank; an integer = finite stock per resort.
    bank_stock: int | None = None
    #: RULINGS R16: Grassroots texts; tile k (in catalogue order) gets text k mod len.
    grassroots_texts: tuple[GrassrootsText, ...] = (GrassrootsText(),)
    exp01: bool = False
    exp02: bool = False
    exp03: bool = False
    #: RULINGS R22.
    exp01_edition: str = "standalone"
    #: RULINGS R28 (EXP-02): production on a tile with Control / Administration costs each recipient the surcharge
    #: or yields nothing for them (docs/rulings.md BC-42). Default false: production is never surcharged.
    cost_regulations_tax_production: bool = False
    #: RULINGS R58: CountdownMarkers in the CountdownSupply at Setup (EXP-03-02-C-02); written only with EXP-03.
    countdown_supply: int = 10
    #: RULINGS R36 option: without EXP-01 keep the four EXP-03 cards whose cost names ECO as dead cards (they can
    #: be taken, never played) instead of removing them; written only with EXP-03.
    exp03_dead_eco_cards: bool = False
    #: RULINGS R34 option: Measures that grant a benefit but name no owner benefit only their owner, within the R31
    #: window: EXP-02-08-M06, EXP-02-08-M15, EXP-03-08-M08; written only with EXP-02 or EXP-03.
    owner_only_benefits: bool = False
    # Design options (docs/rulings.md BC-67): NOT part of the printed rules, off by default, for designers comparing
    # variants (`balance-control compare`); each is written to the state only when set.
    #: The Influence cap (supply + Board); None: as printed, 7 (8 with ADD56-01), RULINGS R12.
    influence_cap: int | None = None
    #: Set aside (pile size mod players) random tiles face down at Setup, so every player gets the same number of
    #: turns (71 mod n in the core game, 89 mod n with ADD56-01).
    equal_turns: bool = False
    #: A tie for the most Influence: `shared` as printed (CORE-01-09-04), or `resources`: the tied player with the
    #: most Resources in their PersonalSupply wins; players still tied share.
    tie_break: str = "shared"
    #: Informational label (the preset's name); not a rule.
    name: str = "custom"

    def __post_init__(self) -> None:
        self.validate()

    # ------------------------------------------------------------------ validation
    def validate(self) -> None:
        _check_int("players", self.players, 2, 6)
        _check_bool("tile_recycling", self.tile_recycling)
        _check_bool("first_player_handicap", self.first_player_handicap)
        _check_choice("topology", self.topology, TOPOLOGIES)
        _check_int("table_size", self.table_size, 3, 41)
        if self.table_size % 2 == 0:
            raise ConfigError(
                f"table_size must be odd so the Start Committee sits in the centre, got {self.table_size}"
            )
        _check_bool("action_tiles_require_control", self.action_tiles_require_control)
        if self.bank_stock is not None:
            _check_int("bank_stock", self.bank_stock, 0, None)
        if not isinstance(self.grassroots_texts, tuple) or not self.grassroots_texts:
            raise ConfigError("grassroots_texts must be a non-empty list of Grassroots texts")
        for i, text in enumerate(self.grassroots_texts):
            if not isinstance(text, GrassrootsText):
                raise ConfigError(f"grassroots_texts[{i}] must be a Grassroots text table, got {text!r}")
            text.validate(f"grassroots_texts[{i}]")
        for flag in ("exp01", "exp02", "exp03"):
            _check_bool(flag, getattr(self, flag))
        _check_choice("exp01_edition", self.exp01_edition, EDITIONS)
        _check_bool("cost_regulations_tax_production", self.cost_regulations_tax_production)
        _check_int("countdown_supply", self.countdown_supply, 0, 99)
        _check_bool("exp03_dead_eco_cards", self.exp03_dead_eco_cards)
        _check_bool("owner_only_benefits", self.owner_only_benefits)
        if self.influence_cap is not None:  # at least every player's Starting Influence (CORE-01-03-04..06)
            _check_int("influence_cap", self.influence_cap, 4, 20)
        _check_bool("equal_turns", self.equal_turns)
        _check_choice("tie_break", self.tie_break, TIE_BREAKS)
        _check_text("name", self.name)

    # ------------------------------------------------------------------ derived values
    @property
    def addon56(self) -> bool:
        """ADD56-01 is active with 5 or 6 players."""
        return self.players >= 5

    @property
    def cap(self) -> int:
        """The Influence cap in force: CORE-01-08-01 (7) / ADD56-01-03-00-01 (8), RULINGS R12, unless the design
        option ``influence_cap`` sets another (docs/rulings.md BC-67)."""
        if self.influence_cap is not None:
            return self.influence_cap
        return 8 if self.addon56 else 7

    @property
    def starting_influence(self) -> int:
        """CORE-01-03-04..06, ADD56-01-02-01/02."""
        return {2: 4, 3: 3, 4: 2, 5: 2, 6: 2}[self.players]

    @property
    def resorts(self) -> tuple[str, ...]:
        """Active Resource resorts in canonical order."""
        active = list(ALL_RESORTS[:3])
        if self.exp01:
            active.append("ECO")
        if self.exp02:
            active.append("SEC")
        if self.exp03:
            active.append("CLM")
        return tuple(active)

    # ------------------------------------------------------------------ (de)serialisation
    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["grassroots_texts"] = [asdict(t) for t in self.grassroots_texts]
        for name in OMITTED_AT_DEFAULT:  # options added later: written only when set, so older states keep digests
            if data[name] == getattr(RulesConfig, name):
                del data[name]
        if not self.exp03:  # EXP-03 options (RULINGS R36, R58): core and EXP-01 states stay as they were
            del data["countdown_supply"]
            del data["exp03_dead_eco_cards"]
        if not (self.exp02 or self.exp03):  # RULINGS R34 option (EXP-02-08-M06, -M15, EXP-03-08-M08)
            del data["owner_only_benefits"]
        return data

    @classmethod
    def from_dict(cls, data: Any) -> RulesConfig:
        if not isinstance(data, dict):
            raise ConfigError(f"a rules configuration must be a table/object, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(
                f"unknown rules option(s) {', '.join(unknown)}; allowed options: {', '.join(sorted(known))}"
            )
        values = dict(data)
        if "grassroots_texts" in values:
            raw = values["grassroots_texts"]
            if not isinstance(raw, list | tuple):
                raise ConfigError(f"grassroots_texts must be a list of tables, got {raw!r}")
            texts = []
            allowed = {f.name for f in fields(GrassrootsText)}
            for i, item in enumerate(raw):
                if not isinstance(item, dict):
                    raise ConfigError(f"grassroots_texts[{i}] must be a table, got {item!r}")
                bad = sorted(set(item) - allowed)
                if bad:
                    raise ConfigError(
                        f"grassroots_texts[{i}] has unknown field(s) {', '.join(bad)}; "
                        f"allowed: {', '.join(sorted(allowed))}"
                    )
                texts.append(GrassrootsText(**item))
            values["grassroots_texts"] = tuple(texts)
        if values.get("bank_stock") == "unlimited":
            values["bank_stock"] = None
        return cls(**values)

    @classmethod
    def load(cls, path: str | Path) -> RulesConfig:
        """Load a rules configuration from a ``.toml`` or ``.json`` file."""
        path = Path(path)
        if not path.is_file():
            raise ConfigError(f"rules configuration file not found: {path}")
        raw = path.read_bytes()
        try:
            if path.suffix == ".json":
                data = strict_loads(raw, "rules")
            else:
                data = tomllib.loads(raw.decode("utf-8"))
                check_data(data, "rules")  # TOML has nan and inf literals
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from None
        except StateError as exc:
            raise ConfigError(f"{path}: {exc}") from None
        if isinstance(data, dict) and "rules" in data and isinstance(data["rules"], dict):
            data = data["rules"]
        if isinstance(data, dict) and "name" not in data:
            data = {**data, "name": path.stem}
        return cls.from_dict(data)

    @classmethod
    def preset(cls, name: str) -> RulesConfig:
        """Load a preset from ``configs/rules/<name>.toml``."""
        path = PRESET_DIR / f"{name}.toml"
        if not path.is_file():
            raise ConfigError(f"unknown preset {name!r}; available presets: {', '.join(preset_names())}")
        return cls.load(path)

    @classmethod
    def resolve(cls, spec: RulesConfig | str | Path) -> RulesConfig:
        """A ``RulesConfig``, a preset name or a path to a configuration file."""
        if isinstance(spec, RulesConfig):
            return spec
        if isinstance(spec, Path) or (isinstance(spec, str) and (spec.endswith((".toml", ".json")))):
            return cls.load(spec)
        if isinstance(spec, str):
            return cls.preset(spec)
        raise ConfigError(f"config must be a RulesConfig, a preset name or a path, got {spec!r}")

    def replace(self, **changes: Any) -> RulesConfig:
        return replace(self, **changes)


#: Options written by ``to_dict`` only when they differ from their default (added after the state schema v1:
#: every state and digest of a configuration that does not use them stays the same).
OMITTED_AT_DEFAULT = ("cost_regulations_tax_production", "influence_cap", "equal_turns", "tie_break")


def preset_names() -> list[str]:
    return sorted(p.stem for p in PRESET_DIR.glob("*.toml"))


__all__ = ["ALL_RESORTS", "GrassrootsText", "RulesConfig", "preset_names"]
