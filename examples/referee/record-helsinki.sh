#!/bin/sh
# How helsinki-log.json was recorded: a Small game on the Helsinki example game, refereed
# by the JLTG.EU house rules with the shipped card file. Run from this folder; it starts
# the log over. `stations-generator referee state helsinki-log.json --at 11:20` replays it.
set -e
R="stations-generator referee"
L=helsinki-log.json
$R start $L --game ../helsinki-game/game.json --force
$R record $L hiding-started --at 2026-07-11T09:30:00+03:00
$R record $L seeking-started --at 10:00
$R record $L question-asked --at 10:05 \
  --question '{"type": "radius", "seeker": {"lat": 60.17132, "lon": 24.94146}, "radius": "1 km"}'
$R record $L question-answered --at 10:08 --answer within
$R record $L cards-drawn --at 10:09 --cards veto-question,time-bonus-5
$R record $L cards-kept --at 10:10 --cards veto-question
$R record $L thermometer-started --at 10:15
$R record $L question-asked --at 10:24 --question '{"type": "thermometer", "start": {"lat": 60.17132, "lon": 24.94146}, "end": {"lat": 60.168, "lon": 24.946}, "distance": "400 m"}'
$R record $L question-answered --at 10:27 --answer hotter
$R record $L cards-drawn --at 10:28 --cards curse-of-the-bridge-troll,time-bonus-10
$R record $L cards-kept --at 10:28 --cards curse-of-the-bridge-troll
# Answered 7 minutes late: the hiding time is paused 7 minutes, and no cards.
$R record $L question-asked --at 10:40 \
  --question '{"type": "matching", "seeker": {"lat": 60.168, "lon": 24.946}, "subject": "library"}'
$R record $L question-answered --at 10:52 --answer same
# The hider vetoes a photo: no answer, no cards, and the tree photo cannot be asked again.
$R record $L question-asked --at 11:00 --question '{"type": "photo", "photo": "tree"}'
$R record $L question-answered --at 11:04 --card veto-question
# The troll blocks questions until cleared or timed out (S: 30 minutes, at 11:36).
$R record $L curse-cast --at 11:06 --card curse-of-the-bridge-troll
$R record $L break-started --at 11:10 --note "rain"
$R record $L break-ended --at 11:45
$R record $L question-asked --at 11:50 --question '{"type": "tentacles", "seeker": {"lat": 60.1699, "lon": 24.9384}, "subject": "museum", "radius": "2 km"}'
$R record $L question-answered --at 11:53 --answer "node/123"
$R record $L cards-drawn --at 11:54 --cards time-bonus-10-percent,double-or-nothing,curse-of-the-gamblers-feet,time-bonus-4-33
$R record $L cards-kept --at 11:55 --cards time-bonus-10-percent,double-or-nothing
$R record $L lunch-started --at 12:00 --team both
# The same radius again: the second asking costs twice (draw 2 pick 1, twice).
$R record $L question-asked --at 12:35 --question '{"type": "radius", "seeker": {"lat": 60.1699, "lon": 24.9384}, "radius": "1 km"}'
$R record $L question-answered --at 12:37 --card double-or-nothing
$R record $L end-game-started --at 13:05
$R record $L question-asked --at 13:06 --question '{"type": "photo", "photo": "tallest_structure"}'
$R record $L question-answered --at 13:12 --answer sent
$R record $L hider-found --at 13:20
