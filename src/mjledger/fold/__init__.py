"""The folds: a hand (:mod:`.hand`) and a match (:mod:`.match`) as pure functions of their
events, and whole-log replay (:mod:`.replay`). They ask the hand's rule set for every amount."""
