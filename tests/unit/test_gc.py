"""The collector around a command's fold (``mjledger._gc``): off while it runs, back on as the
caller had it, and what the fold made kept out of the next young collection's walk."""

from __future__ import annotations

import gc

import pytest

from mjledger import _gc


@pytest.mark.parametrize("one_command", [True, False])
def test_a_commands_fold_leaves_the_collector_on_and_its_objects_out_of_the_young(
    one_command: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a one-command process what the fold made is frozen as the imports were (the process
    ends with the command); anywhere else the collector is merely paused and restored."""
    monkeypatch.setattr(_gc, "_one_command", [one_command])
    was = gc.isenabled()
    gc.enable()
    frozen = gc.get_freeze_count()
    try:
        with _gc.command_paused():
            assert not gc.isenabled()
            made = [[n] for n in range(1000)]
        assert gc.isenabled()
        young = {id(o) for o in gc.get_objects(0)}
        if one_command:
            assert gc.get_freeze_count() >= frozen + len(made)
            assert not any(id(o) in young for o in made)
        else:
            assert gc.get_freeze_count() == frozen
    finally:
        if one_command:
            gc.unfreeze()
        (gc.enable if was else gc.disable)()


def test_a_paused_block_restores_a_disabled_collector() -> None:
    """A caller that had switched the collector off finds it off: nothing frozen or aged."""
    was = gc.isenabled()
    gc.disable()
    frozen = gc.get_freeze_count()
    try:
        for paused in (_gc.gc_paused, _gc.command_paused):
            with paused():
                assert not gc.isenabled()
            assert not gc.isenabled()
            assert gc.get_freeze_count() == frozen
    finally:
        (gc.enable if was else gc.disable)()
