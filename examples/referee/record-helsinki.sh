#!/bin/sh
# How helsinki-log.json and helsinki-round2-log.json were recorded: two rounds of a Small
# game on the Helsinki example game, refereed by the JLTG.EU house rules with the shipped
# card file. Run from this folder; it starts both logs over (same bytes each time).
# `stations-generator referee state helsinki-log.json --at 11:20` replays the first.
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

# The next round (helsinki-round2-log.json): the same game's settings, starting after the
# first ended; a 15 minute rest. Questions in words, a free question during the hiding
# time and one while a question is open, an inappropriate card replaced, hints, a
# randomised thermometer retracted, and a duplicated veto.
L2=helsinki-round2-log.json
C=60.17132,24.94146
$R start $L2 --from-log $L --force
$R record $L2 hiding-started --at 13:35
$R record $L2 free-question --at 13:40 --free map-correct --answer yes
$R record $L2 seeking-started --at 14:05
$R record $L2 question-asked --at 14:08 --question "radius 2 km" --seeker $C
$R record $L2 free-question --at 14:09 --free blue-lines --exit-blue-lines no --answer yes
$R record $L2 question-answered --at 14:10 --answer within
# The Touristic Consumerism is for games in the Netherlands: replaced before the pick.
$R record $L2 cards-drawn --at 14:11 --cards curse-of-the-touristic-consumerism,randomize-question
$R record $L2 cards-replaced --at 14:11 --cards curse-of-the-touristic-consumerism \
  --draws time-bonus-10
$R record $L2 cards-kept --at 14:12 --cards randomize-question
$R record $L2 hint-given --at 14:15 --accepted yes --note "I can see a church"
$R record $L2 cards-drawn --at 14:16 --cards veto-question
$R record $L2 cards-kept --at 14:16 --cards veto-question
$R record $L2 thermometer-started --at 14:20
$R record $L2 question-asked --at 14:35 --question "thermometer 1 km" --start $C --end 60.1813,24.94146
# Randomised to a larger 5 km thermometer: the seekers retract it and travel on; the
# hider gets the reward now.
$R record $L2 question-answered --at 14:37 --card randomize-question \
  --question "thermometer 5 km" --start $C --end 60.1813,24.94146 --retract yes
$R record $L2 cards-drawn --at 14:38 --cards duplicate-another-card,time-bonus-5
$R record $L2 cards-kept --at 14:38 --cards duplicate-another-card
$R record $L2 question-asked --at 15:10 --question "thermometer 5 km" --start $C --end 60.2173,24.94146
$R record $L2 question-answered --at 15:12 --answer colder
$R record $L2 cards-drawn --at 15:13 --cards time-bonus-5-percent,move
$R record $L2 cards-kept --at 15:13 --cards time-bonus-5-percent
# A duplicated veto answers the question; the veto itself stays in the hand.
$R record $L2 question-asked --at 15:20 --question "matching library" --seeker 60.2173,24.94146
$R record $L2 question-answered --at 15:22 --card duplicate-another-card --target veto-question
$R record $L2 hint-given --at 15:40 --accepted no --note "I am not on an island"
$R record $L2 end-game-started --at 15:50
$R record $L2 hider-found --at 16:00
