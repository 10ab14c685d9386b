"""The folds: a hand (:mod:`.hand`, dispatching each event of the hand in play,
:mod:`.in_play`, to :mod:`.wins` or :mod:`.plays`, which pay through :mod:`.dues` and refuse
through :mod:`.refusals`) and a match (:mod:`.match`) as pure functions of their events, and
whole-log replay (:mod:`.replay`, :mod:`.stream`). They ask the hand's rule set for every
amount."""
