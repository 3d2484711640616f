"""Lab 02 ``schedule/``: the hand-written schedule of the hottest kernel (:mod:`.manual`) and the custom TIR loop-reordering pass (:mod:`.tir_pass`)."""
