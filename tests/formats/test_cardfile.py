"""Card files: the shipped JLTG.EU house-rules deck, a user's own file, bad files."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from stations_generator.core.referee.cards import card_id
from stations_generator.core.referee.curses import GAME_SIZES, TIMEOUT_KINDS, BySize
from stations_generator.errors import InputError
from stations_generator.formats import cardfile
from stations_generator.formats.cardfile import load_catalogue, read_card_file

SHIPPED = read_card_file("jltg-eu")
CARDS = SHIPPED.cards
CURSES = [c for c in CARDS.values() if c.is_curse]
HEAD = 'format = "stations-generator/cards"\nversion = 1\n'


def _by_size_complete(v: BySize) -> bool:
    return all(v.get(s) is not None for s in GAME_SIZES)


# ---- the shipped file ----------------------------------------------------------------------


def test_the_shipped_file_reads_the_same_twice_and_by_either_function():
    assert read_card_file("jltg-eu") == SHIPPED
    assert load_catalogue("jltg-eu") == CARDS
    assert len(CURSES) > 50 and {c.kind for c in CARDS.values()} == {
        "curse",
        "blessing",
        "power-up",
        "time-bonus",
    }


def test_every_curse_has_blocks_a_timeout_or_its_kind_and_a_veto():
    for c in CURSES:
        assert c.timeout is not None, c.id
        assert c.timeout in TIMEOUT_KINDS or _by_size_complete(c.timeout), c.id
        assert c.veto is not None, c.id
        assert c.veto == "none" or _by_size_complete(c.veto), c.id
        assert c.blocks <= {"questions", "transit", "curses"}, c.id


def test_curses_blocking_questions_or_transit_list_curses_or_say_they_do_not():
    # Every card page prints its blocks; where it differs from the general rule (Blocking
    # Further Curses), the page wins and the file says so with blocks_curses = false.
    for c in CURSES:
        if c.blocks & {"questions", "transit"}:
            assert ("curses" in c.blocks) != (c.blocks_curses is False), c.id
        else:
            assert c.blocks_curses is None, c.id


def test_consulted_fields_are_left_out_and_given_fields_are_not_consulted():
    for c in CARDS.values():
        assert ("text" in c.consult) == (c.text is None) or c.kind != "curse", c.id
        if "casting_cost" in c.consult:
            assert c.casting_cost is None, c.id
        if c.is_curse:
            assert c.casting_cost is not None or "casting_cost" in c.consult, c.id


def test_time_bonus_casting_costs_match_their_printed_text():
    priced = [c for c in CURSES if c.cost_time_bonus is not None]
    assert priced
    for c in priced:
        assert c.casting_cost and "minutes" in c.casting_cost
        m = re.search(r"S (\d+) M (\d+) L (\d+)", c.casting_cost)
        want = (
            [float(x) for x in m.groups()]
            if m
            else [float(re.search(r"\d+", c.casting_cost)[0])] * 3
        )
        assert [c.cost_time_bonus.get(s) for s in GAME_SIZES] == want, c.id


def test_ids_are_slugs_and_the_counts_the_rules_state():
    for cid, c in CARDS.items():
        assert cid == (card_id(c.name) if c.kind != "time-bonus" else c.id)
        assert c.count >= 1
    # What's New / Game setup: 6 and 8 percentage bonuses, four Double or Nothing, a
    # second Impenetrable Fog.
    assert CARDS["time-bonus-5-percent"].count == 6
    assert CARDS["time-bonus-10-percent"].count == 8
    assert CARDS["double-or-nothing"].count == 4
    assert CARDS["curse-of-the-impenetrable-fog"].count == 2


def test_power_ups_and_time_bonuses_carry_their_mechanics():
    for c in CARDS.values():
        if c.kind == "power-up":
            assert c.mechanic in cardfile.MECHANICS, c.id
        if c.mechanic == "discard-draw":
            assert c.draw == c.discard + 1, c.id
        if c.mechanic == "draw-expand":
            assert c.draw == c.expand >= 1, c.id
        if c.kind == "time-bonus":
            assert (c.minutes is None) != (c.percent is None), c.id
    veto15 = CARDS["veto-question-or-15-minute-time-bonus"].minutes
    assert [veto15.get(s) for s in GAME_SIZES] == [6, 9, 15]
    assert CARDS["time-bonus-4-33"].minutes == CARDS["time-bonus-5"].minutes


def test_the_germany_2026_setup_excludes_cards_of_the_file_within_their_counts():
    out = SHIPPED.excluded("germany-2026-07")
    assert out and all(n <= CARDS[cid].count for cid, n in Counter(out).items())
    assert Counter(out)["time-bonus-60"] == 4 and Counter(out)["veto-question"] == 2
    with pytest.raises(InputError, match="no setup 'nowhere'"):
        SHIPPED.excluded("nowhere")


def test_once_per_round_cards_are_curses():
    once = [c for c in CARDS.values() if c.once_per_round]
    assert once and all(c.is_curse for c in once)


# ---- a user's own file ----------------------------------------------------------------------


def test_a_user_file_on_the_shipped_base_fills_in_consulted_fields(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(
        HEAD
        + 'base = "jltg-eu"\nname = "ours"\n'
        + '[[card]]\nname = "Curse Of The Chasm"\ntext = "Our text."\ncount = 2\n'
        + '[[card]]\nid = "time-bonus-10"\nname = "10 Minute Time Bonus"\n'
        + "minutes = { S = 4, M = 6, L = 10 }\n"
        + '[[card]]\nname = "Curse Of Our Own"\nkind = "curse"\ncount = 1\nblocks = []\n'
        + 'casting_cost = "None."\ntimeout = "event"\nveto = "none"\n',
        encoding="utf-8",
    )
    mine = read_card_file(path)
    chasm = mine.cards["curse-of-the-chasm"]
    assert chasm.text == "Our text." and chasm.count == 2
    assert chasm.consult == {"casting_cost"} and chasm.veto == CARDS["curse-of-the-chasm"].veto
    assert mine.cards["time-bonus-10"].minutes == BySize(4, 6, 10)
    assert mine.cards["time-bonus-10"].consult == frozenset()
    assert "curse-of-our-own" in mine.cards and mine.name == "ours"
    assert mine.excluded("germany-2026-07") == SHIPPED.excluded("germany-2026-07")


# ---- bad files: one line naming the card, the field and the fix -------------------------------

_CURSE = 'name = "Curse X"\nkind = "curse"\ncount = 1\nblocks = []\n'


@pytest.mark.parametrize(
    ("body", "match"),
    [
        ("[[card]]\n" + _CURSE + "colour = 1\n", "card 1 'Curse X': 'colour' is not a card field"),
        ('[[card]]\nname = "Curse X"\nkind = "hex"\ncount = 1\n', "kind 'hex' is not one of"),
        ('[[card]]\nname = "Curse X"\nkind = "curse"\ncount = -1\n', "count must be a whole"),
        ('[[card]]\nname = "Curse X"\nkind = "curse"\ncount = true\n', "count must be a whole"),
        ('[[card]]\nname = "Curse X"\nkind = "curse"\ncount = "2"\n', "count must be a whole"),
        ('[[card]]\nkind = "curse"\ncount = 1\n', "card 1: name must be"),
        ("[[card]]\n" + _CURSE + "timeout = { S = 30, L = 60 }\n", "timeout has no value for M"),
        ("[[card]]\n" + _CURSE + 'timeout = "forever"\n', "timeout 'forever' must be"),
        ("[[card]]\n" + _CURSE + "timeout = { S = -1, M = 1, L = 1 }\n", "S must be a number"),
        ("[[card]]\n" + _CURSE + 'veto = "never"\n', "veto 'never' must be"),
        ('[[card]]\nname = "Curse X"\nkind = "curse"\ncount = 1\nblocks = ["trains"]\n', "blocks"),
        ("[[card]]\n" + _CURSE + 'consult = ["smell"]\n', "consult must list"),
        ("[[card]]\n" + _CURSE + "text = 3\n", "text must be a string"),
        ("[[card]]\n" + _CURSE + "once_per_round = 1\n", "once_per_round must be true"),
        ("[[card]]\n" + _CURSE + "cost_cards = 1\ncost_curses = 2\n", "cost_curses must not"),
        ("[[card]]\n" + _CURSE + 'cost_specific = { "nope" = 2 }\n', "names 'nope'"),
        ('[[card]]\nname = "B"\nkind = "time-bonus"\ncount = 1\npercent = 150\n', "percent must"),
        (
            '[[card]]\nname = "B"\nkind = "time-bonus"\ncount = 1\npercent = 5\n'
            "minutes = { S = 1, M = 1, L = 1 }\n",
            "exactly one of them",
        ),
        ('[[card]]\nname = "B"\nkind = "time-bonus"\ncount = 1\nminutes = { L = 5 }\n', "for S, M"),
        ('[[card]]\nname = "P"\nkind = "power-up"\ncount = 1\n', "mechanic None is not one of"),
        (
            '[[card]]\nname = "P"\nkind = "power-up"\ncount = 1\nmechanic = "discard-draw"\n'
            "discard = 1\n",
            "draw must be >= 1",
        ),
        (
            '[[card]]\nname = "P"\nkind = "power-up"\ncount = 1\nmechanic = "randomize"\n'
            'blocks = ["questions"]\n',
            "blocks is for curses",
        ),
        ('[[card]]\nname = "B"\nkind = "curse"\ncount = 1\nmechanic = "duplicate"\n', "power ups"),
        ("[[card]]\n" + _CURSE + "[[card]]\n" + _CURSE, "id 'curse-x' is used twice"),
        ("[[card]]\n" + _CURSE + 'id = "Curse X"\n', "id 'Curse X' must be lowercase"),
        ("[[card]]\n" + _CURSE + '[setup.a]\nexcluded = ["curse-x", "curse-x"]\n', "2 copies"),
        ("[[card]]\n" + _CURSE + '[setup.a]\nexcluded = ["nope"]\n', "excluded 'nope' is not"),
        ("[[card]]\n" + _CURSE + '[setup.a]\nexclude = ["curse-x"]\n', "give only name and"),
        ("colour = 1\n[[card]]\n" + _CURSE, "unknown top-level key 'colour'"),
        ("", "no \\[\\[card\\]\\] tables"),
        ("setup = 3\n[[card]]\n" + _CURSE, "setup must be \\[setup.NAME\\] tables"),
        ('base = "elsewhere"\n', "base 'elsewhere' is not a shipped card file"),
    ],
)
def test_a_bad_card_file_is_one_line_naming_card_and_field(tmp_path, body, match):
    path = tmp_path / "bad.toml"
    path.write_text(HEAD + body, encoding="utf-8")
    with pytest.raises(InputError, match=match) as err:
        read_card_file(path)
    assert "\n" not in str(err.value) and "bad.toml" in str(err.value)


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (b"format = ", "is not TOML"),
        (b"\xff\xfe\x00", "not UTF-8"),
        (HEAD.replace("1", "2").encode(), "version must be 1"),
        (b'version = 1\n[[card]]\nname = "x"\n', "format must be"),
    ],
)
def test_unreadable_card_files(tmp_path, content, match):
    path = tmp_path / "bad.toml"
    path.write_bytes(content)
    with pytest.raises(InputError, match=match):
        read_card_file(path)


def test_missing_folder_and_oversized_card_files(tmp_path, monkeypatch):
    with pytest.raises(TypeError, match="source"):
        read_card_file(3)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="does not exist"):
        read_card_file(tmp_path / "none.toml")
    with pytest.raises(InputError, match="is a folder"):
        read_card_file(tmp_path)
    big = tmp_path / "big.toml"
    big.write_text(HEAD + "# " + "x" * 200 + "\n", encoding="utf-8")
    monkeypatch.setattr(cardfile, "MAX_CARD_FILE_BYTES", 100)
    with pytest.raises(InputError, match="larger than 100 bytes"):
        read_card_file(big)
