"""RulesConfig: presets, files, validation errors that name the field and the allowed values."""

import json

import pytest

from bc_env.rules import ConfigError, Game, GrassrootsText, RulesConfig, preset_names


def test_every_core_preset_loads_by_name_and_5_6_players_switch_the_addon_on():
    names = preset_names()
    for n in range(2, 7):
        assert f"core-{n}p" in names
        cfg = RulesConfig.preset(f"core-{n}p")
        assert cfg.players == n and cfg.name == f"core-{n}p"
        assert cfg.addon56 == (n >= 5)  # ADD56-01
        assert cfg.cap == (8 if n >= 5 else 7)  # CORE-01-08-01, ADD56-01-03-00-01


def test_load_by_path_toml_and_json(tmp_path):
    toml = tmp_path / "mine.toml"
    toml.write_text('players = 3\ntopology = "hex"\ntable_size = 9\n')
    cfg = RulesConfig.load(toml)
    assert (cfg.players, cfg.topology, cfg.table_size, cfg.name) == (3, "hex", 9, "mine")
    js = tmp_path / "other.json"
    js.write_text(json.dumps(RulesConfig(players=5, bank_stock=30).to_dict()))
    assert RulesConfig.resolve(str(js)) == RulesConfig(players=5, bank_stock=30)
    assert RulesConfig.resolve(cfg) is cfg
    assert RulesConfig.resolve("core-2p").players == 2


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("players", 7, r"players must be in 2\.\.6, got 7"),
        ("players", "4", r"players must be an integer"),
        ("topology", "triangle", r"topology must be one of 'square', 'hex', got 'triangle'"),
        ("table_size", 14, r"table_size must be odd"),
        ("table_size", 1, r"table_size must be in 3\.\.41"),
        ("tile_recycling", "yes", r"tile_recycling must be true or false"),
        ("bank_stock", -1, r"bank_stock must be in >= 0"),
        ("exp01_edition", "v2", r"exp01_edition must be one of 'standalone', 'v1.3'"),
    ],
)
def test_bad_values_name_the_field_and_the_allowed_values(field, value, message):
    with pytest.raises(ConfigError, match=message):
        RulesConfig(**{field: value})
    with pytest.raises(ConfigError, match=message):
        RulesConfig.from_dict({field: value})


def test_unknown_options_and_grassroots_fields_are_named():
    with pytest.raises(ConfigError, match=r"unknown rules option\(s\) player_count; allowed options: "):
        RulesConfig.from_dict({"player_count": 3})
    with pytest.raises(ConfigError, match=r"grassroots_texts\[0\] has unknown field\(s\) cost"):
        RulesConfig.from_dict({"grassroots_texts": [{"cost": 2}]})
    with pytest.raises(ConfigError, match=r"grassroots_texts\[1\]\.pay_rule must be one of"):
        RulesConfig.from_dict({"grassroots_texts": [{}, {"pay_rule": "double"}]})
    with pytest.raises(ConfigError, match="non-empty"):
        RulesConfig(grassroots_texts=())


def test_unknown_preset_and_missing_or_broken_files(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown preset 'core-9p'; available presets: .*core-2p"):
        RulesConfig.preset("core-9p")
    with pytest.raises(ConfigError, match="not found"):
        RulesConfig.load(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("players = = 3")
    with pytest.raises(ConfigError, match="not valid"):
        RulesConfig.load(bad)


def test_grassroots_texts_are_data_and_round_trip():
    texts = (GrassrootsText(), GrassrootsText(pay=3, pay_rule="any", gain=2, gain_rule="any", text="x"))
    cfg = RulesConfig(grassroots_texts=texts)
    again = RulesConfig.from_dict(json.loads(json.dumps(cfg.to_dict())))
    assert again == cfg
    game = Game.new(cfg, 1)
    kinds = [spec.text for spec in game.catalogue if spec.name == "Grassroots"]
    assert kinds == [k % 2 for k in range(8)]  # docs/rulings.md BC-09
