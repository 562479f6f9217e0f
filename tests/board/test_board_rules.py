"""The rules engine: setup, every action and limit, each illegal case, the ends of a game."""

from __future__ import annotations

import pytest
from support.board_cases import RULES4, RULES8, small_board

from stations_generator.board.rules import HAND_SIZES, BoardGame, HouseRules, RuleError, load_cards

B = small_board()
sq = B.grid.index
#: The rulebook's actions plus the WAIT house rule: most tests below fill a turn with WAIT.
RULES_WAIT = HouseRules(neighbours=8, cards=load_cards(), wait=True)


def game(start="A01", team=1, seed=1, rules=RULES_WAIT) -> BoardGame:
    return BoardGame(B, rules, sq(start), team, seed)


def fug(g: BoardGame, *moves):
    for m in moves:
        action, _, to = m.partition(" ")
        g.fugitive_action(action, sq(to) if to else None)


def finish_head_start(g: BoardGame, path=("B01", "C01", "D01")) -> None:
    fug(g, *(f"STEP {p}" for p in path))
    while g.slots < g.budget:
        g.fugitive_action("WAIT")
    g.end_turn()


# ------------------------------------------------------------------ setup
@pytest.mark.parametrize("team", [1, 2, 3])
def test_hand_sizes_and_deck(team):
    g = game(team=team)
    assert [len(h) for h in g.hands] == [HAND_SIZES[team]] * team
    assert {1: 7, 2: 4, 3: 3}[team] == HAND_SIZES[team]
    assert len(g.deck) + sum(len(h) for h in g.hands) == 30


def test_bundled_deck_is_30_cards_of_three_types():
    cards = load_cards()
    assert sum(c.count for c in cards) == 30
    assert {c.type for c in cards} == {"hunter", "drone", "calls"}


def test_team_size_and_start_are_checked():
    with pytest.raises(RuleError, match="1, 2 or 3 players"):
        game(team=4)
    with pytest.raises(RuleError, match="not a start location"):
        game(start="C04")


def test_head_start_is_10_actions_then_reveal():
    g = game()
    assert g.budget == 10
    fug(g, "STEP B01", "STEP C01")
    with pytest.raises(RuleError, match="2 of 10 actions"):
        g.end_turn()
    for _ in range(8):
        g.fugitive_action("WAIT")
    r = g.end_turn()
    assert r.observation.reveal == sq("C01") and r.winner is None
    assert g.turn == 1 and g.budget == 5


def test_hunt_team_does_not_move_in_head_start():
    with pytest.raises(RuleError, match="head start"):
        game().team_action("VAN", [sq("B01")])


# --------------------------------------------------------------- fugitive
def test_step_rules_8_and_4_neighbours():
    g = game()
    fug(g, "STEP B01")  # fine
    with pytest.raises(RuleError, match="not 1 step"):
        fug(g, "STEP D01")
    with pytest.raises(RuleError, match="impassable"):
        fug(g, "STEP B02")  # water
    fug(g, "STEP A02")  # diagonal allowed with 8 neighbours
    with pytest.raises(RuleError, match="already visited"):
        fug(g, "STEP A01")
    g4 = game(rules=RULES4)
    with pytest.raises(RuleError, match="4 neighbours"):
        fug(g4, "STEP B02")  # diagonal off with 4 (and water anyway)


def test_forest_is_impassable():
    g = game()
    fug(g, "STEP A02", "STEP B03")
    with pytest.raises(RuleError, match="impassable"):
        fug(g, "STEP C03")


def test_hitchhike_junction_to_next_once_a_turn():
    g = game()
    finish_head_start(g)  # on D01, a junction
    fug(g, "HITCHHIKE E03")
    with pytest.raises(RuleError, match="HITCHHIKE used twice this turn"):
        fug(g, "HITCHHIKE F06")
    g2 = game()
    finish_head_start(g2)
    with pytest.raises(RuleError, match="not the next junction"):
        fug(g2, "HITCHHIKE F06")
    g3 = game()
    with pytest.raises(RuleError, match="not a motorway junction"):
        fug(g3, "HITCHHIKE D01")


def test_hitchhike_again_next_turn_and_never_revisit():
    g = game()
    finish_head_start(g)
    fug(g, "HITCHHIKE E03", "WAIT", "WAIT", "WAIT", "WAIT")
    g.end_turn()
    fug(g, "HITCHHIKE F06")  # a new turn: allowed again
    g2 = game()
    finish_head_start(g2, ("B01", "C01", "D01", "E02", "E03", "D02"))
    fug(g2, "STEP D01"[:0] + "WAIT")
    with pytest.raises(RuleError, match="already visited"):
        fug(g2, "STEP D01")


def test_hitchhike_leaves_the_squares_between_free():
    g = game()
    finish_head_start(g)
    fug(g, "HITCHHIKE E03", "STEP E02", "STEP D02", "WAIT", "WAIT")  # E02/D02 lie between
    assert sq("E02") in g.visited and g.fugitive == sq("D02")


def test_public_transport_twice_a_game():
    g = game()
    finish_head_start(g, ("A02", "A03"))  # on the city A03
    fug(g, "PUBLIC_TRANSPORT F04")
    assert g.pt_used == 1
    with pytest.raises(RuleError, match="no rail link"):
        fug(g, "PUBLIC_TRANSPORT A06")
    g2 = game()
    with pytest.raises(RuleError, match="not a big city"):
        fug(g2, "OV F04")
    # A third ride is refused even with a link (the limit is checked first).
    g3 = game()
    g3.pt_used = 2
    fug(g3, "STEP A02", "STEP A03")
    with pytest.raises(RuleError, match="used 3 times"):
        fug(g3, "OV F04")


def test_helicopter_costs_5_and_excludes_boat():
    g = game()
    finish_head_start(g, ("A02", "B03", "C04", "D04"))  # on the airfield D04
    fug(g, "HELICOPTER A06")
    assert g.slots == 5 and g.fugitive == sq("A06")
    assert g.trail[1:5] == [sq("D04")] * 4  # in the air until the 5th action
    g.end_turn()
    g.fugitive = sq("A02")  # a waterside square
    with pytest.raises(RuleError, match="extreme transport once a game"):
        fug(g, "BOAT D02")


def test_helicopter_needs_a_whole_turn_and_airfields():
    g = game()
    finish_head_start(g, ("A02", "B03", "C04", "D04"))
    fug(g, "WAIT")
    with pytest.raises(RuleError, match="needs 5 action"):
        fug(g, "HELICOPTER A06")
    g2 = game()
    with pytest.raises(RuleError, match="not an airfield"):
        fug(g2, "HELICOPTER A06")
    g3 = game()
    finish_head_start(g3, ("A02", "B03", "C04", "D04"))
    with pytest.raises(RuleError, match="not another airfield"):
        fug(g3, "HELICOPTER F04")


def test_boat_waterside_to_waterside_of_the_same_water():
    g = game()
    finish_head_start(g, ("A02",))  # A02 touches the water B02
    fug(g, "BOAT D03")
    assert g.fugitive == sq("D03") and g.extreme == "BOAT"
    g2 = game()
    finish_head_start(g2, ("A02",))
    with pytest.raises(RuleError, match="same water"):
        fug(g2, "BOAT F06")
    g3 = game()
    finish_head_start(g3, ("A02", "A03", "A04", "A05"))
    with pytest.raises(RuleError, match="not a waterside"):
        fug(g3, "BOAT D03")


def test_offline_once_skips_the_next_reveal():
    g = game()
    with pytest.raises(RuleError, match="head start"):
        fug(g, "OFFLINE")
    finish_head_start(g)
    fug(g, "OFFLINE", "STEP E01", "WAIT", "WAIT", "WAIT", "WAIT")
    assert g.end_turn().observation.reveal is None
    fug(g, "STEP F02", "WAIT", "WAIT", "WAIT", "WAIT")
    with pytest.raises(RuleError, match="OFFLINE used twice"):
        fug(g, "OFFLINE")
    assert g.end_turn().observation.reveal == sq("F02")


def test_fugitive_budget_and_unknown_actions():
    g = game()
    finish_head_start(g)
    fug(g, "WAIT", "WAIT", "WAIT", "WAIT", "WAIT")
    with pytest.raises(RuleError, match="only 0 of this turn's 5"):
        fug(g, "WAIT")
    with pytest.raises(RuleError, match="not a fugitive action"):
        g.fugitive_action("TELEPORT", 3)
    g.end_turn()
    with pytest.raises(RuleError, match="needs a destination"):
        g.fugitive_action("STEP")


# ------------------------------------------------------------------- team
def team_turn_ready(start="A01", team=1, seed=1, rules=RULES_WAIT) -> BoardGame:
    g = game(start, team, seed, rules)
    finish_head_start(g, ("B01", "C01"))
    fug(g, "WAIT", "WAIT", "WAIT", "WAIT", "WAIT")
    return g


def test_van_one_or_two_steps_and_terrain():
    g = team_turn_ready()
    g.team_action("VAN", [sq("A02"), sq("A03")])
    assert g.van == sq("A03")
    with pytest.raises(RuleError, match="1 or 2 steps, not 3"):
        g.team_action("VAN", [sq("A04"), sq("A05"), sq("A06")])
    with pytest.raises(RuleError, match="impassable"):
        g.team_action("VAN", [sq("B02")])
    with pytest.raises(RuleError, match="not 1 step"):
        g.team_action("VAN", [sq("A05")])


def test_van_one_step_inside_built_up():
    g = team_turn_ready()
    g.team_action("VAN", [sq("A02"), sq("A03")])
    g.team_action("VAN", [sq("A04"), sq("B05")])  # ending in built-up is fine
    with pytest.raises(RuleError, match="1 step inside a built-up area"):
        g.team_action("VAN", [sq("C05"), sq("D05")])
    g.team_action("VAN", [sq("C05")])


def test_van_motorway_junction_to_next():
    g = team_turn_ready()
    with pytest.raises(RuleError, match="not on a junction"):
        g.team_action("MOTORWAY", [sq("E03")])
    g.van = sq("D01")
    with pytest.raises(RuleError, match="not the next junction"):
        g.team_action("MOTORWAY", [sq("F06")])
    g.team_action("MOTORWAY", [sq("E03")])
    g.team_action("MOTORWAY", [sq("F06")])
    assert g.van == sq("F06")


def test_team_has_five_actions_a_turn():
    g = team_turn_ready()
    for to in ("A02", "A01", "A02", "A01", "A02"):
        g.team_action("VAN", [sq(to)])
    with pytest.raises(RuleError, match="only 5 actions"):
        g.team_action("VAN", [sq("A01")])


def test_hunter_card_moves_pawn_from_van_then_from_itself():
    g = team_turn_ready(seed=3)
    g.hands[0] = ["hunter", "hunter", "drone"]
    g.team_action("CARD", [sq("A02"), sq("A03")], card="hunter", pawn=1)
    assert g.hunters[0] == sq("A03") and g.hands[0] == ["hunter", "drone"]
    with pytest.raises(RuleError, match="1 or 2 steps"):
        g.team_action("CARD", [sq("A04"), sq("A05"), sq("A06")], card="hunter", pawn=1)
    g.team_action("CARD", [sq("F04")], card="hunter", pawn=1, by="transit")  # city → city
    assert g.hunters[0] == sq("F04")
    with pytest.raises(RuleError, match="holds no hunter"):
        g.team_action("CARD", [sq("A02")], card="hunter", pawn=2)
    with pytest.raises(RuleError, match="not a card type"):
        g.team_action("CARD", None, card="joker")


def test_hunter_flight_and_bad_modes():
    g = team_turn_ready()
    g.hands[0] = ["hunter"] * 4
    with pytest.raises(RuleError, match="not two airfields"):
        g.team_action("CARD", [sq("A06")], card="hunter", pawn=2, by="flight")
    with pytest.raises(RuleError, match="not two big cities"):
        g.team_action("CARD", [sq("F04")], card="hunter", pawn=2, by="transit")
    with pytest.raises(RuleError, match="pawn"):
        g.team_action("CARD", [sq("A02")], card="hunter")
    with pytest.raises(RuleError, match="use move, transit or flight"):
        g.team_action("CARD", [sq("A02")], card="hunter", pawn=1, by="swim")
    g.hunters[1] = sq("D04")
    g.team_action("CARD", [sq("A06")], card="hunter", pawn=2, by="flight")
    assert g.hunters[1] == sq("A06")


def test_cards_are_drawn_back_and_the_discard_reshuffled():
    g = team_turn_ready(seed=5)
    g.hands[0] = ["drone", "calls"]
    g.deck = ["hunter"]
    g.discard = []
    g.team_action("CARD", None, card="drone")
    g.team_action("CARD", None, card="calls")
    g.end_turn()
    assert len(g.hands[0]) == 2  # one drawn per card played
    # The deck's last card, then one of the reshuffled discards; the other stays in the deck.
    assert "hunter" in g.hands[0] and len(g.deck) == 1 and g.discard == []
    assert sorted(g.hands[0] + g.deck) == ["calls", "drone", "hunter"]


def test_players_cards_are_their_own():
    g = team_turn_ready(team=2)
    g.hands = [["drone"], ["calls"]]
    with pytest.raises(RuleError, match="player 1 holds no calls"):
        g.team_action("CARD", None, card="calls", player=1)
    g.team_action("CARD", None, card="calls", player=2)
    with pytest.raises(RuleError, match="player 3 is not in the hunt team"):
        g.team_action("CARD", None, card="drone", player=3)


def test_drone_and_calls_answer_from_the_fugitive_k_th_action():
    g = game()
    finish_head_start(g, ("B01", "C01"))
    fug(g, "STEP D02", "STEP E02", "STEP F02", "STEP F03", "WAIT")
    g.hands[0] = ["drone", "calls", "drone"]
    g.team_action("CARD", None, card="drone")  # action 1: fugitive on D02, van A01
    g.team_action("VAN", [sq("B01")])
    g.team_action("CARD", None, card="calls")  # action 3: fugitive on F02 → column F
    obs = g.end_turn().observation
    assert obs.drone == [(1, sq("A01"), 3, True)]
    assert obs.calls == [(3, "column", 5)]


# ------------------------------------------------------------------- ends
def test_capture_by_van_or_hunter_at_the_end_of_a_turn():
    g = game()
    finish_head_start(g, ("B01",))
    fug(g, "STEP C01", "STEP B01"[:0] + "WAIT", "WAIT", "WAIT", "WAIT")
    g.team_action("VAN", [sq("B01"), sq("C01")])
    r = g.end_turn()
    assert r.captured and r.winner == "hunters"
    with pytest.raises(RuleError, match="game is over"):
        fug(g, "WAIT")
    g2 = game()
    finish_head_start(g2, ("B01",))
    fug(g2, "STEP C01", "WAIT", "WAIT", "WAIT", "WAIT")
    g2.hands[0] = ["hunter"]
    g2.team_action("CARD", [sq("B01"), sq("C01")], card="hunter", pawn=2)
    assert g2.end_turn().winner == "hunters"


def test_passing_through_the_van_is_no_capture():
    g = game()
    finish_head_start(g, ("B01",))
    g_van = sq("C01")
    fug(g, "STEP C01", "STEP C02"[:0] + "STEP D02", "WAIT", "WAIT", "WAIT")
    g.team_action("VAN", [sq("B01"), g_van])
    assert g.end_turn().winner is None


def test_fugitive_wins_after_turn_25_and_offline_turn_captures_only_by_house_rule():
    g = game()
    finish_head_start(g, ("B01",))
    for _ in range(24):
        for _ in range(5):
            g.fugitive_action("WAIT")
        assert g.end_turn().winner is None
    for _ in range(5):
        g.fugitive_action("WAIT")
    last = g.end_turn()
    assert last.turn == 25 and last.winner == "fugitive"
    # The rulebook catches "while receiving the location": an OFFLINE turn hands none over.
    g2 = game()
    finish_head_start(g2, ("B01",))
    fug(g2, "OFFLINE", "WAIT", "WAIT", "WAIT", "WAIT", "WAIT")
    g2.team_action("VAN", [sq("B01")])
    r = g2.end_turn()
    assert r.observation.reveal is None and not r.captured and r.winner is None
    assert not r.observation.caught and sq("B01") in r.observation.catchers
    # The next turn hands the location over: on the van's square it is caught then.
    fug(g2, "WAIT", "WAIT", "WAIT", "WAIT", "WAIT")
    assert g2.end_turn().winner == "hunters"
    house = HouseRules(neighbours=8, cards=load_cards(), wait=True, offline_capture=True)
    g3 = game(rules=house)
    finish_head_start(g3, ("B01",))
    fug(g3, "OFFLINE", "WAIT", "WAIT", "WAIT", "WAIT", "WAIT")
    g3.team_action("VAN", [sq("B01")])
    r3 = g3.end_turn()
    assert r3.observation.reveal is None and r3.captured and r3.winner == "hunters"


# ------------------------------------------------- the rulebook's fugitive (issue 40)
def test_wait_is_not_a_rulebook_action():
    g = game(rules=RULES8)
    assert all(a != "WAIT" for a, _to in g.fugitive_moves())
    with pytest.raises(RuleError, match="WAIT is not a fugitive action of the rulebook"):
        g.fugitive_action("WAIT")
    assert any(a == "WAIT" for a, _to in game().fugitive_moves())  # the house rule


def test_the_fugitive_spends_every_action_it_can():
    g = game(rules=RULES8)
    fug(g, "STEP B01", "STEP C01")
    with pytest.raises(RuleError, match="spends them all while it has a legal action"):
        g.end_turn()


def test_a_trapped_fugitive_loses_at_the_end_of_the_turn():
    """A01 → A02 → B03 … leaves A01's corner with every neighbour marked or impassable."""
    g = game(rules=RULES8)
    # Head start: 10 steps that end in a pocket: A02's neighbours A01, B01 and A03, B03
    # are all marked (B02 is water), and so it cannot spend its last actions.
    fug(g, "STEP B01", "STEP C01", "STEP D02", "STEP D03", "STEP D04")
    fug(g, "STEP C04", "STEP B04", "STEP A04", "STEP A03", "STEP B03")
    g.end_turn()
    fug(g, "STEP A02")
    assert g.fugitive_moves() == [("OFFLINE", None)] and g.trapped
    r = g.end_turn()
    assert r.winner == "hunters" and r.observation.trapped and not r.captured
    assert r.observation.reveal == sq("A02")


def test_offline_turn_on_the_catchers_square_reveals_nothing_and_catches_nothing():
    g = game(rules=RULES8)
    fug(g, "STEP B01", "STEP C01", "STEP D02", "STEP E02", "STEP F02")
    fug(g, "STEP F03", "STEP E04", "STEP E05", "STEP D05", "STEP D06")
    g.end_turn()
    fug(g, "OFFLINE", "STEP E06", "STEP F05", "STEP F04", "STEP E03", "STEP D04")
    g.van = sq("D04")
    r = g.end_turn()
    assert r.observation.reveal is None and not r.captured and r.winner is None


@pytest.mark.parametrize("team", [2, 3])
def test_hunt_team_players_take_turns_clockwise(team):
    g = game(team=team, seed=7)
    finish_head_start(g, ("B01",))
    fug(g, "WAIT", "WAIT", "WAIT", "WAIT", "WAIT")
    g.hands = [["drone"] * 3 for _ in range(team)]
    assert g.players_left() == list(range(1, team + 1))
    g.team_action("CARD", None, card="drone", player=2)
    g.team_action("VAN", [sq("A02")])  # unnamed: the player acting now (2)
    assert g.hands[1] == ["drone", "drone"]
    following = 3 if team == 3 else 1
    assert g.players_left()[:2] == [2, following]
    g.team_action("CARD", None, card="drone", player=following)
    with pytest.raises(RuleError, match="clockwise from the player who began"):
        g.team_action("CARD", None, card="drone", player=2)  # its turn is over
    g.end_turn()
    assert g.players_left() == list(range(1, team + 1))  # a new round: anyone begins
    fug(g, "WAIT", "WAIT", "WAIT", "WAIT", "WAIT")
    g.team_action("CARD", None, card="drone", player=team)
