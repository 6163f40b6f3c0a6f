"""warlog/app/jobs.py and warlog/progress.py: the Dask task runner (in process, a real local cluster,
a real scheduler reached by address) and the progress line commands share."""

from __future__ import annotations

import io
import sys
import textwrap

import pytest
from job_helpers import interrupt_when_progress_shows, socket_without_listener
from rich.console import Console

from warlog.app import jobs
from warlog.engine.dice import SplitMix64
from warlog.progress import progress_bar


def square_plus_seed(task: tuple[int, int]) -> int:
    """A task that depends on its own seed only (module level: workers unpickle it by name)."""
    index, seed = task
    return index * index + SplitMix64(seed).below(1000)


def fail_on_three(task: int) -> int:
    if task == 3:
        raise ArithmeticError("task 3 fails")
    return task


def _tasks(n: int, seed: int = 7) -> list[tuple[int, int]]:
    return [(i, jobs.task_seed(seed, i)) for i in range(n)]


def test_task_seeds_are_the_splitmix64_stream_of_the_job_seed():
    stream = SplitMix64(42)
    assert [jobs.task_seed(42, i) for i in range(5)] == [stream.next64() for _ in range(5)]
    assert jobs.task_seeds(42, 3) == [jobs.task_seed(42, i) for i in range(3)]


def test_inprocess_gives_results_in_task_order_with_progress_in_tasks():
    seen = []
    out = jobs.run_tasks(square_plus_seed, _tasks(50), scheduler="inprocess",
                         progress=lambda done, total: seen.append((done, total)))
    assert out == [square_plus_seed(t) for t in _tasks(50)]
    assert seen[0] == (0, 50) and seen[-1] == (50, 50)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and len(seen) > 2


def test_the_chunk_size_never_changes_the_results():
    expected = [square_plus_seed(t) for t in _tasks(30)]
    for size in (1, 4, 30, 100):
        assert jobs.run_tasks(square_plus_seed, _tasks(30), scheduler="inprocess",
                              chunk=size) == expected


def kind_of_first(task: list) -> str:
    return type(task[0]).__name__


def test_a_task_reaches_its_function_as_given_never_walked_by_dask():
    """In process, dask would walk every argument looking for its own collections (a review's
    task holds a whole game's log: that walk cost three quarters of a review): a task goes in
    opaque, so even a dask object inside a task arrives untouched."""
    import dask

    inner = dask.delayed(1)
    assert jobs.run_tasks(kind_of_first, [[inner], [2]], scheduler="inprocess") == [
        "DelayedLeaf", "int"]


def test_auto_runs_small_jobs_in_process_and_large_ones_on_a_local_cluster():
    assert jobs.resolve_scheduler("auto", jobs.INPROCESS_MAX_TASKS) == "inprocess"
    assert jobs.resolve_scheduler("auto", jobs.INPROCESS_MAX_TASKS + 1) == "local"
    assert jobs.resolve_scheduler("tcp://10.0.0.1:8786", 5) == "tcp://10.0.0.1:8786"


def test_chunks_are_sized_for_the_workers_and_capped():
    assert jobs.chunk_size(10, 1) == 2  # ceil(10 / 8)
    assert jobs.chunk_size(1000, 2) == 63  # ceil(1000 / 16)
    assert jobs.chunk_size(100_000, 2) == jobs.MAX_CHUNK
    assert jobs.chunk_size(3, 4) == 1


@pytest.mark.parametrize("kwargs, message", [
    ({"scheduler": "cloud"}, "unknown scheduler 'cloud': use auto, inprocess, local or tcp://"),
    ({"workers": 0}, "--workers must be at least 1, not 0"),
])
def test_bad_arguments_are_typed_errors(kwargs, message):
    with pytest.raises(jobs.JobError, match=message.replace("?", r"\?")):
        jobs.run_tasks(square_plus_seed, _tasks(3), **kwargs)


def test_a_tasks_own_exception_is_raised_as_itself():
    with pytest.raises(ArithmeticError, match="task 3 fails"):
        jobs.run_tasks(fail_on_three, range(6), scheduler="inprocess")


def test_empty_job():
    seen = []
    assert jobs.run_tasks(square_plus_seed, [], progress=lambda d, t: seen.append((d, t))) == []
    assert seen == [(0, 0)]


def test_a_real_local_cluster_gives_the_inprocess_results_and_its_errors():
    expected = [square_plus_seed(t) for t in _tasks(40)]
    seen = []
    got = jobs.run_tasks(square_plus_seed, _tasks(40), scheduler="local", workers=2,
                         progress=lambda d, t: seen.append(d))
    assert got == expected
    assert seen[0] == 0 and seen[-1] == 40 and len(seen) > 2
    with pytest.raises(ArithmeticError, match="task 3 fails"):
        jobs.run_tasks(fail_on_three, range(6), scheduler="local", workers=1)


def test_a_scheduler_reached_by_address_runs_the_job():
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                      dashboard_address="127.0.0.1:0", scheduler_kwargs={"dashboard": False},
                      host="127.0.0.1") as cluster:
        assert cluster.scheduler_address.startswith("tcp://")
        got = jobs.run_tasks(square_plus_seed, _tasks(20), scheduler=cluster.scheduler_address)
    assert got == [square_plus_seed(t) for t in _tasks(20)]


def test_an_address_where_no_scheduler_answers_is_one_line(monkeypatch):
    monkeypatch.setattr(jobs, "CONNECT_TIMEOUT", 1)
    with socket_without_listener() as address:
        with pytest.raises(jobs.SchedulerUnreachable) as caught:
            jobs.run_tasks(square_plus_seed, _tasks(3), scheduler=address)
    message = str(caught.value)
    assert message.startswith(f"cannot reach the Dask scheduler at {address} (")
    assert "\n" not in message


def test_interrupted_says_how_far_it_got():
    stop = jobs.JobInterrupted(312, 1000)
    assert stop.message("playouts") == "stopped after 312 of 1,000 playouts"
    assert (stop.done, stop.total) == (312, 1000)


def test_the_progress_line_off_a_terminal_is_plain_text():
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=False, width=100)
    with progress_bar("what-if", noun="playouts", console=console) as progress:
        progress(0, 1500)
        progress(1200, 1500)
        progress(1200, 1500)  # no change: no line
    assert buffer.getvalue().splitlines() == ["what-if: 0 of 1,500 playouts",
                                              "what-if: 1,200 of 1,500 playouts"]


_SLOW_JOB = textwrap.dedent("""
    import sys, typer
    from warlog.progress import run_job

    def slow(task):
        total = 0
        for i in range(200_000):
            total += i
        return total

    def main(scheduler: str = "local"):
        run_job(slow, range(5000), label="sums", noun="sums", scheduler=scheduler, workers=2)

    if __name__ == "__main__":
        typer.run(main)
""")


@pytest.mark.slow
@pytest.mark.parametrize("scheduler", ["local", "inprocess"])
def test_ctrl_c_stops_the_job_with_one_line_and_leaves_no_process(tmp_path, scheduler):
    script = tmp_path / "slow_job.py"
    script.write_text(_SLOW_JOB)
    result = interrupt_when_progress_shows(
        [sys.executable, str(script), "--scheduler", scheduler], "sums: ", " of 5,000 sums")
    assert result.returncode == 130, result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("stopped after ") and lines[-1].endswith(" of 5,000 sums")
    assert "Traceback" not in result.stderr


def test_a_workers_kept_values_are_made_once_and_the_least_used_dropped():
    kept = jobs.KeptByKey(2)
    made: list[str] = []

    def make(key: str):
        return lambda: made.append(key) or f"folded {key}"

    assert kept.get("a", make("a")) == "folded a" and kept.get("a", make("a")) == "folded a"
    kept.get("b", make("b"))
    kept.get("a", make("a"))  # a used last: b is the one dropped
    kept.get("c", make("c"))
    kept.get("a", make("a"))
    kept.get("b", make("b"))
    assert made == ["a", "b", "c", "b"]


def test_a_logs_key_is_its_content():
    log = [{"seq": 1, "kind": "game_started", "game": "g"}]
    assert jobs.log_key(log) == jobs.log_key([dict(reversed(list(log[0].items())))])
    assert jobs.log_key(log) != jobs.log_key([{**log[0], "game": "h"}])
