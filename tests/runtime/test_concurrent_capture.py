"""The dependencies a plan's CUDA graph gets (`concurrent_capture`): which launches must wait
for which, and how they are spread over streams. Pure: no GPU needed."""
from __future__ import annotations

import random

import pytest

from irc.runtime.cuda.concurrent_capture import START, dependencies, plan_lanes


def buffers(*touched: tuple[int, bool]) -> list[tuple[int, int, bool]]:
    """Accesses to buffers numbered 0, 1, ...: 64 bytes each, 128 apart."""
    return [(128 * b, 128 * b + 64, w) for b, w in touched]


def test_read_after_write_write_after_read_and_write_after_write():
    acc = [buffers((0, True)),             # 0 writes a
           buffers((0, False), (1, True)),  # 1 reads a, writes b
           buffers((0, False), (2, True)),  # 2 reads a, writes c: independent of 1
           buffers((0, True)),             # 3 writes a: after both readers
           buffers((1, True)),             # 4 writes b again: after 1
           buffers((3, False))]            # 5 touches nothing written: free
    assert dependencies(acc) == [[], [0], [0], [0, 1, 2], [1], []]


def test_overlapping_ranges_are_one_buffer_and_empty_ranges_nothing():
    acc = [[(0, 100, True)], [(50, 150, False)], [(150, 150, True)], [(160, 200, False)]]
    assert dependencies(acc) == [[], [0], [], []]


def test_an_unknown_launch_is_a_barrier():
    acc = [buffers((0, True)), buffers((1, True)), None, buffers((2, False)), buffers((3, True))]
    assert dependencies(acc) == [[], [], [0, 1], [2], [2]]


def test_a_chain_stays_on_one_lane_without_events():
    acc = [buffers((0, False), (1, True)), buffers((1, False), (2, True)), buffers((2, False), (3, True))]
    steps, joins = plan_lanes(acc)
    assert [s.lane for s in steps] == [0, 0, 0]
    assert all(not s.waits for s in steps) and joins == ()


def test_a_training_step_branches_and_rejoins():
    """The MLP step's launches as they come (the product, the activation, the logits, the log
    softmax, the cost's two reductions, the cost's gradient from the labels, the logits'
    gradient, the hidden layer's, the bias update, the two weight updates)."""
    X, W1, b1, Z, h, W2, b2, lg, lp, Y, g, dl, d1, cost, rs = range(15)
    acc = [buffers((W1, 0), (X, 0), (Z, 1)), buffers((Z, 0), (b1, 0), (h, 1)),
           buffers((h, 0), (W2, 0), (b2, 0), (lg, 1)), buffers((lg, 0), (lp, 1)),
           buffers((Y, 0), (lp, 0), (rs, 1)), buffers((rs, 0), (cost, 1)), buffers((g, 1), (Y, 0)),
           buffers((lp, 0), (g, 0), (dl, 1), (b2, 1)), buffers((dl, 0), (W2, 0), (h, 0), (d1, 1)),
           buffers((d1, 0), (b1, 1)), buffers((d1, 0), (X, 0), (W1, 1)), buffers((dl, 0), (h, 0), (W2, 1))]
    steps, joins = plan_lanes(acc)
    lanes = [s.lane for s in steps]
    # the labels' gradient needs nothing before it: a lane of its own from the start
    assert lanes[6] != 0 and steps[6].waits == (START,)
    # the cost's reductions run beside the gradient's launches, not before them
    assert lanes[4] == lanes[5] != lanes[7]
    # the three updates after the hidden layer's gradient are side by side
    assert len({lanes[9], lanes[10], lanes[11]}) == 3
    # every launch's dependencies are met: on its lane before it, or waited for (transitively)
    done_before = _ordering(steps, joins)
    for i, need in enumerate(dependencies(acc)):
        assert set(need) <= done_before[i], (i, need)
    assert set(range(len(acc))) <= done_before[len(acc)], "lane 0 rejoins every lane at the end"


@pytest.mark.parametrize("lanes", [1, 2, 4])
def test_random_plans_meet_every_dependency(lanes):
    rng = random.Random(lanes)
    for _ in range(200):
        n = rng.randint(1, 25)
        acc = [None if rng.random() < 0.05 else
               buffers(*[(rng.randrange(6), rng.random() < 0.4) for _ in range(rng.randint(1, 3))])
               for _ in range(n)]
        steps, joins = plan_lanes(acc, lanes)
        assert all(0 <= s.lane < lanes for s in steps)
        done_before = _ordering(steps, joins)
        for i, need in enumerate(dependencies(acc)):
            assert set(need) <= done_before[i]
        assert set(range(n)) <= done_before[n]


def _ordering(steps, joins) -> list[set[int]]:
    """For each launch (and, last, the end of lane 0), the launches certainly done before it
    starts: earlier launches of its lane and, through events, what those waited for."""
    before: list[set[int]] = []
    lane_done: dict[int, set[int]] = {}
    for i, step in enumerate(steps):
        known = set(lane_done.get(step.lane, set()))
        for j in step.waits:
            if j != START:
                known |= before[j] | {j}
        before.append(known)
        lane_done[step.lane] = known | {i}
    end = set(lane_done.get(0, set()))
    for j in joins:
        end |= before[j] | {j}
    before.append(end)
    return before
