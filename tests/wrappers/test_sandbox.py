"""The sandbox: what a bot's box is made of (read from the plan), and adversarial bots that try to cheat in the
default mode and fail, while the match plays on with no fault for the innocent seats.

Where bubblewrap cannot run, the process tests are skipped locally, but in CI (``CI=true`` or
``MJREF_REQUIRE_SANDBOX=1``) they fail: the sandbox's guarantees cannot pass by skipping.
"""

from __future__ import annotations

import dataclasses
import errno
import fcntl
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
from processes import GONE_WITHIN, unprivileged_bot

from referee.game.taiwan16.rules import make_ruleset
from referee.match import MatchResult, play_match
from tournaments.store import connect
from wrappers import sandbox
from wrappers.process import Box, BoxDirty, BoxError, run_in_box
from wrappers.spec import BotSpec, SpecError, spec_from_mapping

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "bots" / "hostile" / "hostile.py"
REQUIRED = os.environ.get("CI", "").lower() in ("1", "true", "yes") or os.environ.get("MJREF_REQUIRE_SANDBOX") == "1"


def _require_bwrap() -> None:
    """bwrap works here (in CI it must)."""
    problem = sandbox.bwrap_problem()
    if problem is not None:
        if REQUIRED:
            pytest.fail(f"the sandbox is required here but {problem}")
        pytest.skip(problem)


@pytest.fixture
def boxed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default mode (auto) must box bots here."""
    monkeypatch.delenv(sandbox.MODE_ENV, raising=False)
    _require_bwrap()


def _hostile(attack: str, *args: str, **fields: object) -> BotSpec:
    return BotSpec(name=f"hostile-{attack}", cmd=(sys.executable, str(HOSTILE), attack, *args), **fields)


def _innocent(i: int) -> BotSpec:
    return BotSpec(name=f"innocent{i}", cmd=(sys.executable, "-m", "bots.drawdiscard", "--keep-alive"),
                   keep_alive=True)


def _play(bad: BotSpec, tmp: Path, hands: int = 1, log: Path | None = None) -> tuple[list, dict]:
    """The hostile bot in seat 1 against three process bots; its reports and the match's faults."""
    err = tmp / "stderr"
    result = play_match([bad, _innocent(2), _innocent(3), _innocent(4)], seed=424242,
                        rules=make_ruleset({"hands": hands, "move_timeout": 5}),
                        log_path=log or tmp / "logs" / "m.jsonl", stderr_dir=err)
    assert len(result.hands) == hands, "the match played on"
    assert [f for f in result.faults if f.position != 1] == [], "no fault for the innocent seats"
    text = "".join(p.read_text(errors="replace") for p in err.glob("seat1-*.stderr"))
    reports = [json.loads(line[8:]) for line in text.splitlines() if line.startswith("HOSTILE ")]
    return result.faults, reports[0] if reports else {}


# ---------------------------------------------------------------------------------------------------- the plan
@pytest.fixture
def scratch() -> Iterator[Path]:
    """A seat's scratch folder as the referee makes it (pytest's own folders are closed to others: as root, the
    bot's uid could not reach one)."""
    folder = Path(tempfile.mkdtemp(prefix="mjref-seat-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _rlimits(launch: sandbox.Launch) -> dict[str, tuple[int, int]]:
    return {name: (soft, hard) for name, soft, hard in sandbox.keeper_config(launch)["rlimits"]}  # type: ignore[union-attr]


def test_the_plan_is_data_a_test_can_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "x")
    monkeypatch.setenv("PATH", f"{tmp_path}/shims:{os.environ['PATH']}")  # a version manager's shims: never in a box
    cmd = unprivileged_bot("drawdiscard")
    spec = BotSpec(name="b", cmd=tuple(cmd), env={"MINE": "1"}, memory_mb=300, max_procs=9, cpu_seconds=7)
    none = sandbox.plan(spec, tmp_path, mode="none")
    keeper = none.argv.index("-I")  # after the shell that moves it into its memory cgroup, where there is one
    assert none.mode == "none" and none.argv[keeper:keeper + 2] == ("-I", "-S"), "the keeper: the standard library only"
    if none.cgroup is not None:
        assert none.argv[:2] == ("/bin/sh", "-c") and none.argv[3] == none.cgroup
    limits = _rlimits(none)
    assert limits["RLIMIT_AS"] == (300 << 20, 300 << 20) and limits["RLIMIT_CPU"] == (7, 8)
    assert limits["RLIMIT_CORE"] == (0, 0)
    assert none.env == {"PATH": sandbox.DEFAULT_PATH}, "the keeper gets nothing of the referee's or the bot's env"
    assert none.bot_env is not None and set(none.bot_env) <= {"PATH", "LANG", "HOME", "TMPDIR", "MINE"}
    assert none.bot_env["PATH"] == sandbox.DEFAULT_PATH and none.bot_env["HOME"] == str(tmp_path)
    assert none.bot[1:] == tuple(cmd[1:]) and none.inner_cwd == str(tmp_path), "no cwd: the seat's scratch folder"
    assert (none.uid is not None) == (os.geteuid() == 0), "as root a bot runs as a uid of its own, in every mode"
    if sandbox.bwrap_problem() is None:
        box = sandbox.plan(spec, tmp_path, mode="bwrap")
        argv = list(box.argv)
        for flag in ("--unshare-pid", "--unshare-net", "--unshare-ipc", "--die-with-parent", "--new-session"):
            assert flag in argv
        assert _rlimits(box)["RLIMIT_NPROC"] == (9, 9)
        for mount in ("/tmp", "/dev/shm"):
            i = argv.index(mount)
            assert argv[i - 1] == "--tmpfs" and argv[i - 3] == "--size", f"a private {mount} of a bounded size"
        assert argv[argv.index("--remount-ro") + 1] == "/dev", "nothing writable in /dev but /dev/shm"
        assert box.bot_env is not None and box.bot_env["HOME"] == box.inner_cwd == "/tmp"
        if os.geteuid() == 0:
            assert argv[argv.index("--cap-drop") + 1] == "ALL"
        bot = BotSpec(name="h", cmd=(sys.executable, str(HOSTILE), "none"))
        assert (str(HOSTILE.parent), False) in sandbox.plan(bot, tmp_path, mode="bwrap").binds
        net = sandbox.plan(bot.model_copy(update={"network": True, "writable": True}), tmp_path, mode="bwrap")
        assert "--unshare-net" not in net.argv
        assert (str(HOSTILE.parent), True) in net.binds
        if os.geteuid() == 0:  # a writable folder as root: the bot's own copy, never the original
            (original, copy), = net.copies
            assert original == str(HOSTILE.parent) and copy != original
            i = list(net.argv).index(original)
            assert net.argv[i - 2:i] == ("--bind", copy)
            sandbox.release(net)
            assert not os.path.exists(copy)


def _run(launch: sandbox.Launch, data: bytes = b"") -> tuple[int, str, str]:
    code, out, err = trio.run(run_in_box, launch, data)
    return code, out.decode(errors="replace"), err.decode(errors="replace")


@pytest.mark.parametrize("mode", ["none", "bwrap"])
def test_the_oom_killer_takes_a_bot_and_its_children_first(mode: str, scratch: Path) -> None:
    """``memory_mb`` bounds each of a bot's processes, not their sum: when the machine runs out of memory, the
    kernel's OOM killer must pick a bot's process (its own, or one it started) before the referee."""
    if mode == "bwrap":
        _require_bwrap()
    script = "cat /proc/self/oom_score_adj; sh -c 'cat /proc/self/oom_score_adj'"
    launch = sandbox.plan(BotSpec(name="b", cmd=("/bin/sh", "-c", script)), scratch, mode=mode)
    code, out, err = _run(launch)
    assert code == 0 and out.split() == [str(sandbox.OOM_SCORE_ADJ)] * 2, (launch.unprotected, err)
    assert open("/proc/self/oom_score_adj").read().strip() != str(sandbox.OOM_SCORE_ADJ), "the referee keeps its own"


def test_keep_alive_cpu_limit_covers_the_match(tmp_path: Path) -> None:
    spec = BotSpec(name="b", cmd=("/bin/cat",), keep_alive=True, cpu_seconds=5)
    assert _rlimits(sandbox.plan(spec, tmp_path, mode="none", hands=16))["RLIMIT_CPU"] == (80, 81)


def test_a_death_by_a_limit_names_the_limit(tmp_path: Path) -> None:
    launch = sandbox.plan(BotSpec(name="b", cmd=("/bin/cat",), memory_mb=1024), tmp_path, mode="none")
    assert launch.describe_exit(-int(signal.SIGXCPU)) == (f"killed by SIGXCPU: CPU limit {sandbox.CPU_SECONDS} s per "
                                                          "hand; raise cpu_seconds in the bot's TOML file")
    assert launch.describe_exit(1, b"Traceback...\nMemoryError\n") == (
        "exited with status 1: memory limit 1024 MB of address space (an allocation failed); raise memory_mb in the "
        "bot's TOML file")
    jvm = b"Error occurred during initialization of VM\nCould not allocate compressed class space: 1073741824 bytes"
    assert launch.describe_exit(1, jvm).endswith(
        "a JVM reserves more than it uses: start it with -XX:CompressedClassSpaceSize=64m (and -Xmx), or raise "
        "memory_mb in the bot's TOML file")
    assert launch.describe_exit(3) == "exited with status 3"
    assert launch.ending(-9, b"", frozenset({"cpu"})) == (
        f"was killed: its processes together used more than the CPU limit of {sandbox.CPU_SECONDS} s per hand; "
        "raise cpu_seconds in the bot's TOML file", True)
    assert launch.ending(1, b"", frozenset({"tmp"}))[1] and launch.ending(3)[1] is False


def test_mode_precedence_and_bad_modes(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = BotSpec(name="b", cmd=("x",), sandbox="none")
    monkeypatch.delenv(sandbox.MODE_ENV, raising=False)
    assert sandbox.requested_mode(spec) == "none"
    monkeypatch.setenv(sandbox.MODE_ENV, "bwrap")
    assert sandbox.requested_mode(spec) == "bwrap", "--sandbox (MJREF_SANDBOX) wins over the bot's own"
    monkeypatch.setenv(sandbox.MODE_ENV, "maybe")
    with pytest.raises(sandbox.BotError, match="MJREF_SANDBOX: unknown sandbox mode 'maybe'"):
        sandbox.requested_mode(spec)


@pytest.mark.parametrize(("field", "value", "message"), [
    ("sandbox", "maybe", "bot.toml: sandbox: Input should be 'auto', 'bwrap' or 'none'"),
    ("memory_mb", 1, "bot.toml: memory_mb: Input should be greater than or equal to 16"),
    ("max_procs", 0, "bot.toml: max_procs: Input should be greater than or equal to 1"),
    ("network", "yes please", "bot.toml: network: Input should be a valid boolean, not 'yes please'"),
    ("network", "true", "bot.toml: network: Input should be a valid boolean, not 'true'"),  # a string, not a bool
])
def test_bad_sandbox_fields_are_one_line_errors(field: str, value: object, message: str, tmp_path: Path) -> None:
    with pytest.raises(SpecError) as err:
        spec_from_mapping({"name": "b", "cmd": ["./bot"], field: value}, "bot.toml", tmp_path)
    assert str(err.value) == message


def test_a_toml_bot_runs_in_its_scratch_folder_not_the_tomls(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("")
    spec = spec_from_mapping({"name": "b", "cmd": ["python3", "bot.py"]}, "t.toml", tmp_path)
    assert spec.cwd is None and spec.cmd == ("python3", str(tmp_path.resolve() / "bot.py"))


def test_logs_and_stores_are_private(tmp_path: Path) -> None:
    play_match([BotSpec(name="g", builtin="greedy")] * 4, seed=1, rules=make_ruleset({"hands": 1}),
               log_path=tmp_path / "new" / "m.jsonl")
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o700
    assert (tmp_path / "new" / "m.jsonl").stat().st_mode & 0o777 == 0o600
    connect(tmp_path / "s" / "store.db").close()
    assert (tmp_path / "s" / "store.db").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "s").stat().st_mode & 0o777 == 0o700


def test_the_folders_commands_make_for_logs_and_stderr_are_private(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The commands check their output places first, and that check made the folders 0755 (the files in them were
    0600, so a bot could list them): ``mjref match``'s default log folder, ``--stderr-dir``, a tournament's
    stderr folders."""
    from referee.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["match", "greedy", "random", "--hands", "1", "--stderr-dir", "err", "--quiet"]) == 0
    for folder in (tmp_path / "mjref-logs", tmp_path / "err"):
        assert folder.stat().st_mode & 0o777 == 0o700, folder
    (tmp_path / "t.toml").write_text('name = "t"\nseeds = 1\nhands = 1\n[[bots]]\nname = "a"\nbuiltin = "greedy"\n'
                                     '[[bots]]\nname = "b"\ncmd = ["python3", "-m", "bots.random"]\n')
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[2]))
    assert main(["tournament", "t.toml", "--quiet"]) == 0
    made = [p for p in tmp_path.rglob("*") if p.is_dir() and p.name not in ("err", "mjref-logs")]
    assert made and all(p.stat().st_mode & 0o777 == 0o700 for p in made), [(p, oct(p.stat().st_mode)) for p in made]


# ---------------------------------------------------------------------------------------------------- attacks
def test_a_bot_cannot_read_another_seats_stdin(boxed: None, tmp_path: Path) -> None:
    faults, found = _play(_hostile("spy"), tmp_path)
    assert found["attack"] == "spy"
    assert not any("/mo" in o["read"] or "/initCard" in o["read"] for o in found["opened"]), found
    assert len(found["visible"]) <= 2, f"only its own box's processes are visible: {found}"
    assert not faults


def test_a_bot_cannot_write_into_another_seats_stdout(boxed: None, tmp_path: Path) -> None:
    _, found = _play(_hostile("poison"), tmp_path, hands=2)
    assert found["attack"] == "poison"  # _play checked: no unasked fault for the innocent seats


def test_a_bot_cannot_find_the_log_the_store_or_the_seed(boxed: None, tmp_path: Path) -> None:
    """The bot's own folder holds the logs and the store (as a tournament folder would)."""
    folder = tmp_path / "folder"
    folder.mkdir()
    folder.chmod(0o755)
    connect(folder / "store.db").close()
    log = folder / "mjref-logs" / "m.jsonl"
    faults, found = _play(_hostile("secrets", cwd=str(folder)), tmp_path, log=log)
    assert found["attack"] == "secrets" and found["cwd"] == str(folder)
    assert "424242" not in found["seeds"], found
    assert not [p for p in found["read"] if "m.jsonl" in p or "store.db" in p or ".stderr" in p], found
    assert not faults


def test_the_referees_command_line_gives_no_seed_away(boxed: None, tmp_path: Path) -> None:
    """A real ``mjref match --seed``: the bot looks at /proc/<ppid>/cmdline, its fds, every process."""
    env = {k: v for k, v in os.environ.items() if k != sandbox.MODE_ENV}
    cmd = [sys.executable, "-m", "referee.cli", "match", f"{sys.executable} {HOSTILE} secrets", "drawdiscard",
           "drawdiscard", "drawdiscard", "--seed", "987654321", "--hands", "1", "--json",
           "--stderr-dir", str(tmp_path / "err")]
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    text = "".join(p.read_text() for p in (tmp_path / "err").glob("seat1-*"))
    found = json.loads(next(line[8:] for line in text.splitlines() if line.startswith("HOSTILE ")))
    assert "987654321" not in json.dumps(found), found
    assert not json.loads(done.stdout)["faults"]


def test_a_bot_cannot_reach_the_network(boxed: None, tmp_path: Path) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(0.5)
        port = server.getsockname()[1]
        _, found = _play(_hostile("connect", str(port)), tmp_path)
        with pytest.raises(TimeoutError):
            server.accept()
    assert found == {"attack": "connect", "connected": False, "error": found["error"]}


def test_allocating_8_gb_is_a_fault_that_names_the_memory_limit(boxed: None, tmp_path: Path) -> None:
    faults, found = _play(_hostile("allocate", memory_mb=512), tmp_path)
    assert found == {}, "it never got the memory"
    assert faults and all(f.position == 1 and f.kind == "resource" for f in faults)
    assert "memory limit 512 MB" in faults[0].detail, faults[0]


def test_a_fork_bomb_is_bounded_by_max_procs(boxed: None, tmp_path: Path) -> None:
    # Bounded twice: the bot itself stops at 64 children, and max_procs should stop it well before.
    faults, found = _play(_hostile("forkbomb", "64", max_procs=8), tmp_path)
    assert found["attack"] == "forkbomb"
    assert found["children"] < 8 and found["error"], found


def _live(marker: str) -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{d}/cmdline").read_bytes():
                    out.append(int(d))
            except OSError:
                pass
    return out


def test_a_setsid_daemon_dies_with_its_bot(boxed: None, tmp_path: Path) -> None:
    marker = f"mjref-daemon-{uuid.uuid4().hex}"
    _, found = _play(_hostile("daemon", marker), tmp_path)
    assert found == {"attack": "daemon", "started": True}
    deadline = time.monotonic() + GONE_WITHIN  # a margin load cannot eat: done when gone
    while _live(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _live(marker), "the daemon outlived its bot"


@pytest.mark.slow
def test_sigkill_to_the_referee_leaves_no_bot_behind(boxed: None, tmp_path: Path) -> None:
    marker = f"mjref-sleeper-{uuid.uuid4().hex}"
    bot = f"{sys.executable} {HOSTILE} sleep {marker}"
    env = {k: v for k, v in os.environ.items() if k != sandbox.MODE_ENV}
    env["TMPDIR"] = str(tmp_path)  # the seats' scratch folders, which a referee killed by SIGKILL cannot remove
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "match", bot, bot, bot, bot, "--timeout", "60",
                             "--log", "none", "--quiet"], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not _live(marker) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _live(marker), "the bots started"
        time.sleep(1)
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + GONE_WITHIN  # a margin load cannot eat: done when gone
        while _live(marker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _live(marker), "a bot outlived the referee killed by SIGKILL"
    finally:
        proc.kill()
        for pid in _live(marker):
            os.kill(pid, signal.SIGKILL)


def test_framework_and_builtin_bots_play_in_the_box_without_a_fault(boxed: None, tmp_path: Path) -> None:
    specs = [BotSpec(name="greedy", cmd=(sys.executable, "-m", "bots.greedy")),
             BotSpec(name="random", cmd=(sys.executable, "-m", "bots.random")),
             BotSpec(name="badbot-good", cmd=(sys.executable, str(ROOT / "tests" / "bots" / "badbot.py"), "good")),
             BotSpec(name="checkbot", cmd=(sys.executable, str(ROOT / "tests" / "bots" / "checkbots" / "checkbot.py")))]
    result = play_match(specs, seed=9, rules=make_ruleset({"hands": 2}), log_path=tmp_path / "m.jsonl")
    assert not result.faults, result.faults


def test_a_keep_alive_bot_that_exits_at_exit_is_told_why(tmp_path: Path) -> None:
    spec = BotSpec(name="per-hand", cmd=(sys.executable, "-m", "bots.drawdiscard"), keep_alive=True)
    result = play_match([spec] + [BotSpec(name="g", builtin="greedy")] * 3, seed=2,
                        rules=make_ruleset({"hands": 4}), log_path=tmp_path / "m.jsonl")
    assert result.faults, "a keep_alive bot that exits at /exit faults"
    assert all("keep_alive" in f.detail for f in result.faults), result.faults


def test_a_box_that_cannot_start_says_why_escaped(tmp_path: Path) -> None:
    """A box's launcher that fails says why on stderr (``bwrap: ...``): its last line is in the fault, escaped and
    cut (a bot's folder name can hold anything)."""
    launch = sandbox.plan(BotSpec(name="b", cmd=("/bin/cat",)), tmp_path, mode="none")
    shout = "printf 'bwrap: \\033]0;title\\007 %s' " + "x" * 500 + " >&2; exit 1"
    broken = dataclasses.replace(launch, argv=("/bin/sh", "-c", shout))
    with pytest.raises(BoxError) as caught:
        trio.run(run_in_box, broken)
    detail = str(caught.value)
    assert "\x1b" not in detail and "\\x1b]0;title\\x07" in detail and len(detail) < 400, detail


@pytest.mark.parametrize("mode", ["none", "bwrap"])
def test_a_bots_own_env_never_reaches_the_launchers(mode: str, monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    """A bot file's ``env`` is set right before the bot's program, inside the box and under the limits: given to
    the launch, ``LD_PRELOAD`` ran code in bwrap as root, outside the box, and could read the live log.  Seen
    here through the loader's own trace (``LD_DEBUG``), which every program that gets the variable writes to
    stderr: the bot's programs write it, bwrap, prlimit and setpriv do not."""
    if mode == "bwrap":
        _require_bwrap()
    monkeypatch.setenv(sandbox.MODE_ENV, mode)
    bot = BotSpec(name="traced", cmd=tuple(unprivileged_bot("drawdiscard")), env={"LD_DEBUG": "files"})
    assert "LD_DEBUG" not in sandbox.plan(bot, tmp_path, mode=mode).env, "the keeper never gets the bot's env"
    err = tmp_path / "stderr"
    others = [BotSpec(name=f"greedy{i}", builtin="greedy") for i in (2, 3, 4)]
    result = play_match([bot, *others], seed=5, rules=make_ruleset({"hands": 1}),
                        stderr_dir=err)
    assert result.faults == [] and len(result.hands) == 1
    trace = "".join(p.read_text(errors="replace") for p in err.glob("seat1-*.stderr"))
    assert "needed by" in trace, "the bot's programs got the variable"
    for launcher in ("bwrap", "prlimit", "setpriv"):
        assert f"/{launcher}" not in trace, f"{launcher} got the bot's env"


# ---------------------------------------------------------------------------------------------------- round two
def _box_run(spec: BotSpec, scratch: Path, data: bytes = b"", mode: str = "bwrap") -> tuple[int, str, str]:
    launch = sandbox.plan(spec, scratch, mode=mode)
    try:
        return _run(launch, data)
    finally:
        sandbox.release(launch)


def test_a_bot_never_runs_as_root_nor_with_a_capability(boxed: None, scratch: Path, tmp_path: Path) -> None:
    """As root (CI, a container) even a bot whose folder is closed to others (0700, as root unpacks a tarball) or
    writable runs as an unprivileged uid with every capability set empty, and cannot undo a mount."""
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o700)
    script = folder / "bot.sh"
    script.write_text("#!/bin/sh\nid -u; grep ^Cap /proc/self/status; umount /dev/null 2>&1; echo umount=$?\n"
                      "(echo mine > mine.txt) 2>/dev/null; echo wrote=$?\n")
    script.chmod(0o700)
    for writable in (False, True):
        code, out, err = _box_run(BotSpec(name="b", cmd=(str(script),), cwd=str(folder), writable=writable), scratch)
        assert code == 0, err
        lines = out.split("\n")
        assert lines[0] != "0", "never uid 0"
        caps = {ln.split(":")[0]: int(ln.split()[1], 16) for ln in lines if ln.startswith("Cap")}
        assert {k: v for k, v in caps.items() if k != "CapBnd"} == {"CapInh": 0, "CapPrm": 0, "CapEff": 0, "CapAmb": 0}
        assert "umount=0" not in out
        assert ("wrote=0" in out) == writable or os.geteuid() != 0
    assert not (folder / "mine.txt").exists() or os.geteuid() != 0, "as root a writable bot writes its own copy"


def test_a_bot_that_fills_its_tmp_and_dev_shm_is_bounded(boxed: None, scratch: Path) -> None:
    """Scratch space is the box's own capped tmpfs, never the referee's disk; /dev itself takes nothing."""
    script = ("for d in /tmp /dev/shm; do dd if=/dev/zero of=$d/fill bs=1M count=2000 2>/dev/null; "
              "echo $d $(du -sm $d/fill | cut -f1); done; touch /dev/x 2>/dev/null; echo dev=$?")
    code, out, _ = _box_run(BotSpec(name="b", cmd=("/bin/sh", "-c", script)), scratch)
    sizes = {ln.split()[0]: int(ln.split()[1]) for ln in out.splitlines() if ln.startswith("/")}
    assert sizes["/tmp"] <= sandbox.TMP_MB and sizes["/dev/shm"] <= sandbox.SHM_MB, out
    assert "dev=0" not in out


def _killed_at_its_cpu_budget(spec: BotSpec) -> None:
    """A one-hand match of ``spec`` (a 1 s CPU budget, a 20 s timeout) and three built-ins: the bot's one fault is
    its CPU budget's (a ``resource`` fault), not the timeout it would reach if its CPU went uncounted."""
    others = [BotSpec(name=f"g{i}", builtin="greedy") for i in (2, 3, 4)]
    result = play_match([spec, *others], seed=3, rules=make_ruleset({"hands": 1, "move_timeout": 20}))
    assert [f.kind for f in result.faults] == ["resource"], result.faults
    assert "CPU limit of 1 s" in result.faults[0].detail


def test_a_reforking_cpu_burner_is_a_resource_fault(boxed: None, tmp_path: Path) -> None:
    """RLIMIT_CPU counts each process: a chain of children that each burn under the limit and re-fork used 8 s
    against a 2 s budget.  The keeper counts the box's processes together."""
    burner = tmp_path / "burner.sh"
    burner.write_text("#!/bin/sh\nread line\nwhile :; do (timeout 0.9 sh -c 'while :; do :; done'); done\n")
    burner.chmod(0o755)
    spec = BotSpec(name="burner", cmd=(str(burner),), cpu_seconds=1, timeout=20)
    _killed_at_its_cpu_budget(spec)


def _planned_in_cgroup(spec: BotSpec, field: str, problem: str | None, words: str) -> sandbox.Launch | None:
    """The bot's plan, with the seat's cgroup ``field`` set where the machine has such cgroups (None elsewhere,
    once the plan has been checked to say what is then unprotected, and why)."""
    launch = sandbox.plan(spec, Path(tempfile.mkdtemp(prefix="mjref-seat-")), mode="bwrap")
    sandbox.release(launch)
    if problem is not None:
        assert getattr(launch, field) is None
        assert any(words in u and problem in u for u in launch.unprotected), launch.unprotected
        return None
    assert getattr(launch, field) is not None
    return launch


_UNWAITED_BURNER = """import os, signal, sys, time
signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the children: their CPU is in no parent's account
sys.stdin.readline()
while True:  # one child at a time, each burning 0.05 s and gone before the next starts
    r, w = os.pipe()
    if os.fork() == 0:
        os.close(r)
        end = time.process_time() + 0.05
        while time.process_time() < end:
            pass
        os._exit(0)
    os.close(w)
    os.read(r, 1)  # end of file: the child is gone
    os.close(r)
"""


def test_cpu_of_children_nobody_waits_for_is_counted_where_cgroups_are(boxed: None, tmp_path: Path) -> None:
    """A bot that ignores SIGCHLD and forks children one after another that each burn 0.05 s and end: their CPU went
    into no account (the keeper saw each only while it ran), so the bot used its whole timeout's CPU unseen.  With
    a CPU accounting cgroup per seat (a root referee, where the machine has one) the keeper counts them; elsewhere
    the plan says what is not protected, and why."""
    from wrappers import cgroups

    burner = tmp_path / "unwaited.py"
    burner.write_text(_UNWAITED_BURNER)
    spec = BotSpec(name="burner", cmd=(sys.executable, str(burner)), cpu_seconds=1, timeout=20)
    launch = _planned_in_cgroup(spec, "cpu_cgroup", cgroups.cpu_problem(), "ignores SIGCHLD")
    if launch is None:
        return
    _killed_at_its_cpu_budget(spec)
    assert not os.path.exists(launch.cpu_cgroup), "the seat's cgroup goes with its box"


def test_a_symlinked_stderr_file_is_replaced_not_followed(tmp_path: Path) -> None:
    """A bot that can write where its stderr file lies (writable, stderr in its folder) plants a link there: the
    next match must not append the bot's text to the file the link names."""
    from referee.userfiles import create_private

    target = tmp_path / "victim.txt"
    target.write_text("precious\n")
    stderr = tmp_path / "seat1.stderr"
    stderr.symlink_to(target)
    fd = create_private(stderr)
    os.write(fd, b"bot text\n")
    os.close(fd)
    assert target.read_text() == "precious\n" and not stderr.is_symlink() and stderr.read_text() == "bot text\n"


def test_a_fifo_planted_where_a_stderr_file_goes_is_replaced(tmp_path: Path) -> None:
    """A FIFO (which a bot can make, unlike a device) where its stderr file goes is removed and a file made there:
    neither opened (a write-only open of a FIFO waits for a reader) nor a reason to stop the match."""
    from referee.userfiles import create_private

    stderr = tmp_path / "seat1.stderr"
    os.mkfifo(stderr)
    fd = create_private(stderr)
    os.write(fd, b"bot text\n")
    os.close(fd)
    assert stat.S_ISREG(stderr.lstat().st_mode) and stderr.read_text() == "bot text\n"


def test_the_box_path_is_an_allow_list(boxed: None, scratch: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"/opt/shims:{os.environ['PATH']}")
    code, out, _ = _box_run(BotSpec(name="b", cmd=("/bin/sh", "-c", "echo $PATH")), scratch)
    assert out.strip() == sandbox.DEFAULT_PATH


def test_machine_wide_counters_are_covered_in_the_box(boxed: None, scratch: Path) -> None:
    """/proc's counters of the whole machine (load, open files, locks, CPU time) would carry bits between boxes."""
    script = "cat /proc/loadavg /proc/locks /proc/sys/fs/file-nr /proc/stat 2>/dev/null | wc -c"
    code, out, _ = _box_run(BotSpec(name="b", cmd=("/bin/sh", "-c", script)), scratch)
    assert out.strip() == "0"


def test_stderr_folders_are_hidden_before_any_seat_is_planned(boxed: None, tmp_path: Path) -> None:
    """The first process seat used to be planned before the match's stderr folder was registered: with the stderr
    folder inside its own folder it read every other seat's stderr live."""
    folder = tmp_path / "bot"
    folder.mkdir()
    spy = folder / "spy.py"
    spy.write_text("import os, runpy, sys\nfor root, dirs, files in os.walk('.'):\n    print(root, dirs, files, "
                   "file=sys.stderr)\nrunpy.run_module('bots.drawdiscard', run_name='__main__')\n")
    err = folder / "stderr"
    specs = [BotSpec(name="spy", cmd=(sys.executable, str(spy)), cwd=str(folder))]
    specs += [BotSpec(name=f"d{i}", cmd=(sys.executable, "-m", "bots.drawdiscard")) for i in (2, 3, 4)]
    result = play_match(specs, seed=4, rules=make_ruleset({"hands": 1}), stderr_dir=err)
    assert result.faults == []
    seen = (err / "seat1-spy.stderr").read_text()
    assert "seat2" not in seen and "seat1" not in seen, seen


def test_a_lock_on_a_shared_file_is_no_channel_between_boxes(boxed: None, scratch: Path) -> None:
    """Every box binds the same system files: a lock one box takes on /etc/hostname was seen by another (a whole
    concealed hand went across this way), and so was a file opened, through inotify.  In the box a lock is a no-op
    and inotify is not there."""
    assert sandbox.seccomp_filter() is not None, "the filter (pyseccomp, libseccomp) is a dependency"
    code = ("import fcntl, ctypes, sys\n"
            "f = open('/etc/hostname'); fcntl.flock(f, fcntl.LOCK_EX)\n"
            "print('locked', flush=True); sys.stdin.readline()\n"
            "libc = ctypes.CDLL(None, use_errno=True); print('inotify', libc.inotify_init(), ctypes.get_errno())\n")
    launch = sandbox.plan(BotSpec(name="b", cmd=(sys.executable, "-c", code)), scratch, mode="bwrap")

    async def held_while_the_box_holds_it() -> tuple[bool, str]:
        async with trio.open_nursery() as nursery:
            box = await Box.open(launch, nursery)
            proc = await box.spawn()
            assert proc.stdout is not None and proc.stdin is not None
            seen = b""
            while b"locked" not in seen:
                seen += await proc.stdout.receive_some(100)
            with open("/etc/hostname") as f:
                try:
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    free = True
                except BlockingIOError:
                    free = False
            await proc.stdin.send_all(b"go\n")
            while chunk := await proc.stdout.receive_some(100):
                seen += chunk
            await box.aclose()
            nursery.cancel_scope.cancel()
        return free, seen.decode()

    free, out = trio.run(held_while_the_box_holds_it)
    assert free, "the box's lock is not seen outside it"
    assert f"inotify -1 {errno.ENOSYS}" in out, out


def test_a_copied_folder_leaves_the_referees_files_out(boxed: None, scratch: Path, tmp_path: Path) -> None:
    """As root a closed bot folder is copied for the bot's uid: a log (or stderr folder) the referee keeps in it must
    not come along, and the copy must not copy itself when the temporary folder lies inside the bot's."""
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o700)
    (folder / "live.jsonl").write_text("the seed\n")
    (folder / "temp").mkdir()  # the referee's temporary folder, inside the bot's
    sandbox.hide_from_bots(folder / "live.jsonl")
    spec = BotSpec(name="b", cmd=("/bin/sh", "-c", "cat live.jsonl; ls"), cwd=str(folder))
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(tempfile, "tempdir", str(folder / "temp"))
            launch = sandbox.plan(spec, scratch, mode="bwrap")
        try:
            for _, copy in launch.copies:  # as root: the copy itself holds neither the log nor itself
                assert sorted(p.name for p in Path(copy).iterdir()) == ["temp"], list(Path(copy).iterdir())
                assert list(Path(copy, "temp").iterdir()) == []
        finally:
            sandbox.release(launch)
        code, out, err = _box_run(spec, scratch)
    finally:
        sandbox.unhide(folder / "live.jsonl")
    assert (len(launch.copies) == 1) == (os.geteuid() == 0)
    assert "the seed" not in out, out


def _hog_match(tmp_path: Path, body: str, timeout: float) -> tuple[MatchResult, sandbox.Launch] | None:
    """A one-hand match of a bot (``body``, after it reads its first line) with 512 MB for all its processes
    against three greedy, and its plan; None where the machine has no memory cgroup per seat (the plan then said
    so: ``_planned_in_cgroup``)."""
    from wrappers import cgroups

    hog = tmp_path / "hog.py"
    hog.write_text("import os, sys, time\nsys.stdin.readline()\n" + body)
    spec = BotSpec(name="hog", cmd=(sys.executable, str(hog)), memory_mb=512, timeout=timeout)
    launch = _planned_in_cgroup(spec, "cgroup", cgroups.problem(), "the sum of the bot's memory")
    if launch is None:
        return None
    others = [BotSpec(name=f"g{i}", builtin="greedy") for i in (2, 3, 4)]
    return play_match([spec, *others], seed=3, rules=make_ruleset({"hands": 1, "move_timeout": timeout})), launch


def test_the_memory_of_all_a_bots_processes_is_bounded_where_cgroups_are(boxed: None, tmp_path: Path) -> None:
    """``memory_mb`` bounds each process (``RLIMIT_AS``); with a memory cgroup per seat (a root referee, where the
    machine has one) it bounds them together, and the bot killed for it gets a ``resource`` fault that says so.
    Elsewhere the plan says the sum is not protected, and why."""
    # Three children of 100 MB each, then the bot itself takes 400 MB: the largest, the one the kernel kills (were
    # the children the largest, one of them would be killed and the bot time out: a timeout that says so, below).
    played = _hog_match(tmp_path, "r, w = os.pipe()\n"
                        "for _ in range(3):\n    if os.fork() == 0:\n"
                        "        x = bytearray(100 << 20); os.write(w, b'.'); time.sleep(60)\n"
                        "for _ in range(3):\n    os.read(r, 1)\n"
                        "x = bytearray(400 << 20)\ntime.sleep(60)\n", 30)
    if played is None:
        return
    result, launch = played
    assert [f.kind for f in result.faults] == ["resource"], result.faults
    assert "processes together used more than the memory limit of 512 MB" in result.faults[0].detail
    assert not os.path.exists(launch.cgroup), "the seat's cgroup goes with its box"


def test_a_timeout_says_the_kernel_killed_a_child_for_the_memory_limit(boxed: None, tmp_path: Path) -> None:
    """A bot that hands its thinking to two children, one of which the kernel kills for the seat's memory (each is
    within the limit, not the two together): the bot's own process lives on and never answers.  Its timeout says
    what happened meanwhile."""
    played = _hog_match(tmp_path, "for _ in range(2):\n    if os.fork() == 0:\n"
                        "        x = bytearray(300 << 20); time.sleep(60)\ntime.sleep(60)\n", 4)
    if played is None:
        return
    result, _ = played
    assert [f.kind for f in result.faults] == ["timeout"], result.faults
    assert ("the kernel killed 1 of its processes meanwhile: together they used more than the memory limit of "
            "512 MB") in result.faults[0].detail, result.faults[0].detail


# ---------------------------------------------------------------------------------------------------- review
def test_links_among_a_bots_files_never_widen_its_box(boxed: None, scratch: Path) -> None:
    """A bot's files are its author's: a link among them named the folders a box bound.  A link into a folder
    closed to others (``/root``, ``~/.ssh``) had that folder bound, and as root copied for the bot's uid with root's
    rights; a link into ``/tmp`` (or a bot file that lies in ``/tmp`` itself) bound the host's whole ``/tmp`` over
    the box's own, with every other referee's and bot's files in it; a link into ``/proc`` bound the host's."""
    top = Path(tempfile.mkdtemp(prefix="mjref-test-links-"))
    try:
        top.chmod(0o755)
        private = top / "private"
        (private / "sub").mkdir(parents=True)
        (private / "key").write_text("the secret\n")
        private.chmod(0o700)
        (private / "sub").chmod(0o755)
        bot = top / "bot"
        bot.mkdir(mode=0o755)
        script = bot / "bot.sh"
        script.write_text("#!/bin/sh\nls -a /tmp; cat /proc/1/cmdline | tr '\\0' ' '\n")
        script.chmod(0o755)
        (bot / "data").symlink_to(private / "sub")
        held = dict(sandbox._uid_locks)
        with pytest.raises(sandbox.BotError, match="named by a link"):
            sandbox.plan(BotSpec(name="b", cmd=("/bin/sh", str(script), str(bot / "data"))), scratch, mode="bwrap")
        assert sandbox._uid_locks == held, "a refused plan frees its uid"
        marker = Path(tempfile.mkdtemp(prefix="mjref-test-host-tmp-", dir="/tmp"))
        marker.chmod(0o755)
        loose = Path("/tmp") / f"{marker.name}.sh"
        loose.write_text(script.read_text())
        loose.chmod(0o755)
        neighbour = Path("/tmp") / f"{marker.name}.neighbour"  # what another referee or bot keeps in /tmp
        neighbour.write_text("")
        try:
            for target in (marker, Path("/proc/1")):
                (bot / "data").unlink()
                (bot / "data").symlink_to(target)
                spec = BotSpec(name="b", cmd=("/bin/sh", str(script), str(bot / "data")))
                plan = sandbox.plan(spec, scratch, mode="bwrap")
                sandbox.release(plan)
                assert not [b for b, _ in plan.binds if b in ("/", "/tmp", "/proc") or b.startswith("/proc/")], plan
                code, out, err = _box_run(spec, scratch)
                assert code == 0 and neighbour.name not in out, (out, err)
                assert "bwrap" in out or "python" in out, "/proc is the box's own (its pid 1 is bwrap's init)"
            code, out, err = _box_run(BotSpec(name="b", cmd=("/bin/sh", str(loose))), scratch)
            assert code == 0 and loose.name in out and neighbour.name not in out, (out, err)
        finally:
            loose.unlink()
            neighbour.unlink()
            marker.rmdir()
    finally:
        private.chmod(0o700)
        shutil.rmtree(top, ignore_errors=True)



@pytest.mark.parametrize("attack", ["stopkeeper", "killkeeper"])
def test_a_bot_that_stops_or_kills_its_keeper_cannot_hang_the_referee(boxed: None, tmp_path: Path,
                                                                      attack: str) -> None:
    """A bot runs as its keeper's uid, so it may stop its keeper (SIGSTOP): the referee then waited for ever for the
    keeper to start the next hand's process.  A keeper that does not answer is now a box gone, and the next hand
    gets a new box; one that was killed, likewise."""
    from referee.match import run_match

    attacks = ROOT / "tests" / "bots" / "hostile" / "attacks.py"
    bad = BotSpec(name=attack, cmd=(sys.executable, str(attacks), attack))
    specs = [bad, *(_innocent(i) for i in (2, 3, 4))]

    async def bounded() -> MatchResult:
        with trio.fail_after(240):  # each hand costs the keeper's grace at most: a hang never ends
            return await run_match(specs, seed=7, rules=make_ruleset({"hands": 3, "move_timeout": 5}),
                                   log_path=tmp_path / "m.jsonl", stderr_dir=tmp_path / "err")

    result = trio.run(bounded)
    assert len(result.hands) == 3, "every hand was played"
    assert [f for f in result.faults if f.position != 1] == [], "no fault for the innocent seats"


def _hands_in_one_box(spec: BotSpec, scratch: Path, hands: int) -> list[str]:
    """The stdout of ``hands`` processes started one after the other in one box, as a match's hands are."""
    launch = sandbox.plan(spec, scratch, mode="bwrap")

    async def run() -> list[str]:
        outs = []
        async with trio.open_nursery() as nursery:
            box = await Box.open(launch, nursery)
            for _ in range(hands):
                proc = await box.spawn()
                assert proc.stdout is not None and proc.stdin is not None
                await proc.stdin.aclose()
                out = b""
                while chunk := await proc.stdout.receive_some(1000):
                    out += chunk
                await proc.wait()
                outs.append(out.decode())
            await box.aclose()
            nursery.cancel_scope.cancel()
        return outs

    try:
        return trio.run(run)
    finally:
        sandbox.release(launch)


def test_nothing_but_the_scratch_mounts_is_writable_in_the_box(boxed: None, scratch: Path) -> None:
    """Run by an ordinary user, the box's root (bubblewrap's own tmpfs, of no size limit) and the folders made on it
    were writable by the bot: memory outside every limit, and a note one hand left for the next (the keeper emptied
    only the top of /tmp and /dev/shm between hands, so a folder the box made in /tmp kept a note too)."""
    top = Path(tempfile.mkdtemp(prefix="mjref-test-bot-"))  # in the box: a folder made on its /tmp
    top.chmod(0o755)
    folder = top / "bot"
    folder.mkdir(mode=0o755)
    script = folder / "note.sh"
    script.write_text("#!/bin/sh\nfor d in / /usr/.. \"${0%/*}/..\" /tmp /dev/shm; do cat \"$d/note\" 2>/dev/null; "
                      "echo left > \"$d/note\" 2>/dev/null && echo \"wrote $d\"; done; echo done; "
                      "chmod 0 \"${0%/*}/..\" 2>/dev/null\n")  # and the next hand's way to its folder closed
    script.chmod(0o755)
    try:
        first, second = _hands_in_one_box(BotSpec(name="b", cmd=(str(script),)), scratch, 2)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    assert "wrote /\n" not in first and "wrote /usr/..\n" not in first, first
    assert "wrote /tmp\n" in first and "left" not in second and "done" in second, (first, second)


def test_a_launcher_among_the_bots_files_never_runs_outside_the_box(scratch: Path) -> None:
    """A launcher script named like a Python (a pyenv shim) is asked outside any box which Python it runs; a bot
    shipped its own ``venv/bin/python3`` as such a script, and the referee ran it, with its own rights (as root:
    as root) and environment, before the match.  Only a launcher found on the referee's own PATH is asked."""
    folder = Path(tempfile.mkdtemp(prefix="mjref-test-bot-"))
    try:
        folder.chmod(0o755)
        (folder / "venv" / "bin").mkdir(parents=True)
        marker = folder / "ran-outside"
        shim = folder / "venv" / "bin" / "python3"
        shim.write_text(f"#!/bin/sh\ntouch {marker} 2>/dev/null\nexec /usr/bin/python3 \"$@\"\n")
        shim.chmod(0o755)
        for p in (folder / "venv", folder / "venv" / "bin"):
            p.chmod(0o755)
        spec = spec_from_mapping({"name": "shim", "cmd": ["venv/bin/python3", "-c", "print(1)"], "cwd": "."},
                                 "shim.toml", folder)
        sandbox.check_available(spec)
        launch = sandbox.plan(spec, scratch)
        sandbox.release(launch)
        assert not marker.exists(), "the bot's own launcher ran outside its box"
        assert launch.bot[0] == str(shim)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_box_whose_keeper_never_says_ready_is_given_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A box whose keeper never answers (a launcher stuck before it, a keeper stopped) was waited for without end."""
    import wrappers.process as process

    monkeypatch.setattr(process, "KEEPER_TIMEOUT", 1.0)
    launch = sandbox.plan(BotSpec(name="b", cmd=("/bin/cat",)), tmp_path, mode="none")
    sandbox.release(launch)
    silent = dataclasses.replace(launch, argv=("/bin/sleep", "60"))

    async def bounded() -> None:
        with trio.fail_after(60):  # a hang is a failure, not a stuck suite
            await run_in_box(silent)

    with pytest.raises(BoxError, match="did not answer within 1 s"):
        trio.run(bounded)


def test_a_match_of_per_hand_bots_leaves_nothing_behind(boxed: None, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Sixteen hands of four bots started per hand (one writable: as root, a copy): the referee holds as many file
    descriptors after the match as before, no process of the match lives on, and its temporary folder holds no
    scratch folder or copy."""
    temp = Path(tempfile.mkdtemp(prefix="mjref-test-temp-"))
    temp.chmod(0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    folder = temp / "bot"
    folder.mkdir(mode=0o755)
    specs = [BotSpec(name=f"g{i}", cmd=(sys.executable, "-m", "bots.greedy"), cwd=str(folder), writable=i == 1)
             for i in range(1, 5)]
    play_match(specs, seed=1, rules=make_ruleset({"hands": 1}), log_path=tmp_path / "warm.jsonl")
    def children() -> set[str]:  # of this process (a test worker may keep others of earlier tests: a pool)
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(os.getpid())], capture_output=True, text=True)
        return set(out.stdout.split())

    fds = len(os.listdir("/proc/self/fd"))
    before = children()
    result = play_match(specs, seed=2, rules=make_ruleset({"hands": 16}), log_path=tmp_path / "m.jsonl",
                        stderr_dir=tmp_path / "err")
    try:
        assert result.faults == [] and len(result.hands) == 16
        assert len(os.listdir("/proc/self/fd")) == fds, "a file descriptor per hand or per match is left open"
        left = {pid for pid in children() - before if Path(f"/proc/{pid}").exists()}  # ps itself is gone by now
        assert not left, left
        assert sorted(p.name for p in temp.iterdir() if not p.name.startswith("mjref-proc-")) == ["bot"]
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def test_no_system_v_ipc_object_outlives_its_hand(boxed: None, scratch: Path) -> None:
    """A message queue or shared memory segment (System V) outlives the process that made it: one hand left them,
    with what it knew, for the next (the box, its IPC namespace, lives for the match)."""
    script = "ipcs -q -m -s | grep -c '^0x'; ipcmk -Q >/dev/null; ipcmk -M 4096 >/dev/null; ipcmk -S 1 >/dev/null"
    first, second = _hands_in_one_box(BotSpec(name="b", cmd=("/bin/sh", "-c", script)), scratch, 2)
    assert first.split() == ["0"] and second.split() == ["0"], (first, second)


def test_no_posix_message_queue_outlives_its_hand(boxed: None, scratch: Path) -> None:
    """A POSIX message queue outlives the process that made it, like a file, but in no folder the keeper emptied:
    one hand left its hand in a queue, the next one read it."""
    code = ("import ctypes, os\n"
            "rt = ctypes.CDLL('librt.so.1', use_errno=True)\n"
            "print('found' if rt.mq_open(b'/note', os.O_RDWR, 0o600, None) >= 0 else 'none')\n"
            "print('made', rt.mq_open(b'/note', os.O_RDWR | os.O_CREAT, 0o600, None) >= 0)\n")
    first, second = _hands_in_one_box(BotSpec(name="b", cmd=("/usr/bin/python3", "-c", code)), scratch, 2)
    assert first.split() == second.split() == ["none", "made", "True"], (first, second)


def test_no_key_in_a_kernel_keyring_outlives_its_hand(boxed: None, scratch: Path) -> None:
    """The seat uid's user keyring lives as long as a process of that uid (its keeper, for the whole match): a key
    one hand added was read by the next; a session keyring is inherited by every box from the referee."""
    code = ("import ctypes\n"
            "libc = ctypes.CDLL(None, use_errno=True)\n"
            "print(libc.syscall(249, b'user', b'note', None, -4), ctypes.get_errno())\n"  # request_key, user ring
            "print(libc.syscall(248, b'user', b'note', b'my hand', 7, -4), ctypes.get_errno())\n")  # add_key
    first, second = _hands_in_one_box(BotSpec(name="b", cmd=("/usr/bin/python3", "-c", code)), scratch, 2)
    assert first.split() == second.split() == ["-1", str(errno.ENOSYS)] * 2, (first, second)


# ---------------------------------------------------------------------------------------- how a bot is started
# The keeper forks and the child sets the bot's limits (mode none), or, in a pid namespace, it holds the bot's limits
# itself and starts each process with posix_spawn (no copy of the keeper, no Python before the exec).  Either way
# the bot must start exactly as boxed.

_LIMIT_ROWS = {"RLIMIT_AS": "Max address space", "RLIMIT_CPU": "Max cpu time", "RLIMIT_FSIZE": "Max file size",
               "RLIMIT_CORE": "Max core file size", "RLIMIT_NOFILE": "Max open files", "RLIMIT_NPROC": "Max processes"}


@pytest.mark.parametrize("mode", ["none", "bwrap"])
def test_a_bot_starts_with_its_limits_three_descriptors_and_no_signal_ignored(mode: str, scratch: Path) -> None:
    """Its limits exactly as planned, only descriptors 0, 1 and 2 (``ls`` reads the folder as its 3), and no
    signal ignored or blocked: the keeper is a Python, which ignores SIGPIPE and SIGXFSZ, and an ignored signal
    stays ignored across exec (a bot past its file size limit was not killed by SIGXFSZ)."""
    if mode == "bwrap":
        _require_bwrap()
    spec = BotSpec(name="b", cmd=("/bin/cat", "/proc/self/limits"), memory_mb=512, max_procs=20, cpu_seconds=7)
    launch = sandbox.plan(spec, scratch, mode=mode)
    try:
        code, out, err = _run(launch)
        planned = _rlimits(launch)
    finally:
        sandbox.release(launch)
    assert code == 0, err
    rows = {line[:26].strip(): line[26:].split()[:2] for line in out.splitlines()[1:]}
    for name, (soft, hard) in planned.items():
        assert rows[_LIMIT_ROWS[name]] == [str(soft), str(hard)], (name, rows)
    status = ("/bin/grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status")
    code, out, err = _box_run(BotSpec(name="b", cmd=status), scratch, mode=mode)
    sig = {line.split(":")[0]: int(line.split()[1], 16) for line in out.splitlines()}
    assert code == 0 and sig["SigBlk"] == 0, (err, out)
    assert sig["SigIgn"] & 0x7FFFFFFF == 0, f"standard signals ignored: {sig['SigIgn']:#x}"  # 1 to 31 (32, 33: glibc's)
    code, out, err = _box_run(BotSpec(name="b", cmd=("/bin/ls", "/proc/self/fd")), scratch, mode=mode)
    assert code == 0 and sorted(out.split()) == ["0", "1", "2", "3"], (out, err)


@pytest.mark.parametrize("mode", ["none", "bwrap"])
def test_a_bots_process_dies_with_its_keeper(mode: str, scratch: Path) -> None:
    """A keeper killed (a bot may kill its own) takes the hand's process with it: in mode none by the death signal
    its forked child set; in bwrap, where posix_spawn sets none, by the end of the box's pid namespace."""
    if mode == "bwrap":
        _require_bwrap()
    marker = f"mjref-orphan-{uuid.uuid4().hex}"
    cmd = ("/usr/bin/python3", "-S", "-c", "import time; time.sleep(600)", marker)
    launch = sandbox.plan(BotSpec(name="b", cmd=cmd), scratch, mode=mode)

    async def run() -> list[int]:
        async with trio.open_nursery() as nursery:
            box = await Box.open(launch, nursery)
            try:
                await box.spawn()
                with trio.fail_after(GONE_WITHIN):
                    while not _live(marker):
                        await trio.sleep(0.01)
                bot = _live(marker)[0]
                keeper = int(Path(f"/proc/{bot}/stat").read_bytes().rpartition(b")")[2].split()[1])
                os.kill(keeper, signal.SIGKILL)
                deadline = time.monotonic() + GONE_WITHIN  # a margin load cannot eat: done when gone
                while _live(marker) and time.monotonic() < deadline:
                    await trio.sleep(0.05)
                return _live(marker)
            finally:
                await box.aclose()
                nursery.cancel_scope.cancel()

    try:
        assert trio.run(run) == [], "the hand's process outlived its keeper"
    finally:
        sandbox.release(launch)


def test_every_hand_starts_after_one_that_took_every_process_it_may(boxed: None, scratch: Path) -> None:
    """A hand whose processes took every one the bot may have: at its end they are killed, but each counted against
    ``max_procs`` until it was gone (dying with its memory takes a while), so the next hand's process could start
    fewer, or, where the keeper holds the bot's limits itself, not start at all.  The keeper now waits for them."""
    code = ("import os, time\nn = 0\n"
            "try:\n"
            "    while n < 64:\n"
            "        if os.fork() == 0:\n"
            "            os.closerange(0, 3); b = bytearray(96 << 20); time.sleep(600); os._exit(0)\n"
            "        n += 1\n"
            "except OSError:\n"
            "    pass\n"
            "print(n)\n")
    outs = _hands_in_one_box(BotSpec(name="b", cmd=("/usr/bin/python3", "-S", "-c", code), max_procs=8), scratch, 8)
    assert len({out.strip() for out in outs}) == 1 and 0 < int(outs[0]) < 8, outs


@pytest.mark.slow
def test_a_keeper_that_used_half_the_cpu_limit_it_holds_starts_nothing_more(boxed: None, scratch: Path) -> None:
    """A keeper that holds the bot's limits lives under its RLIMIT_CPU too (1 s here): at half of it, it retires
    (``dirty``: the seat opens a new box) instead of being killed by SIGXCPU in the middle of a hand."""
    launch = sandbox.plan(BotSpec(name="b", cmd=("/bin/true",), cpu_seconds=1), scratch, mode="bwrap")

    async def run() -> tuple[int, str | None]:
        async with trio.open_nursery() as nursery:
            box = await Box.open(launch, nursery)
            starts = 0
            try:
                while starts < 100_000:  # some 1,500 at the keeper's 0.3 ms of CPU a start
                    try:
                        proc = await box.spawn()
                    except BoxDirty:
                        break
                    for stream in (proc.stdin, proc.stdout, proc.stderr):
                        assert stream is not None
                        await stream.aclose()
                    await proc.wait()
                    starts += 1
                return starts, box.broken
            finally:
                await box.aclose()
                nursery.cancel_scope.cancel()

    try:
        starts, broken = trio.run(run)
    finally:
        sandbox.release(launch)
    assert broken is None and 0 < starts < 100_000, (starts, broken)


def test_a_closed_boxs_cgroups_are_gone_with_it(boxed: None, scratch: Path) -> None:
    """bwrap's first process ends before the box's last (its init passes it the keeper's status and it exits while
    the rest are still being killed), and a cgroup still in use cannot be removed: matches left their seats' CPU
    accounting cgroups behind, thousands of them.  A box is now closed when its cgroups are gone."""
    spec = BotSpec(name="b", cmd=("/usr/bin/python3", "-S", "-c", "import time; time.sleep(600)"))

    async def open_and_close(launch: sandbox.Launch) -> None:
        async with trio.open_nursery() as nursery:
            box = await Box.open(launch, nursery)
            await box.spawn()
            await box.aclose()
            nursery.cancel_scope.cancel()

    left = []
    for _ in range(10):
        launch = sandbox.plan(spec, scratch, mode="bwrap")
        try:
            groups = [g for g in (launch.cgroup, launch.cpu_cgroup) if g is not None]
            if not groups:
                return  # no cgroups here: the plan says what is unprotected (tests above)
            trio.run(open_and_close, launch)
            left += [g for g in groups if os.path.exists(g)]
        finally:
            sandbox.release(launch)
    assert not left, f"{len(left)} of 20 cgroups outlived their boxes"


def test_the_hidden_paths_can_change_in_another_thread_while_a_box_is_planned(tmp_path: Path) -> None:
    """A tournament plays built-in matches in a thread (their logs registered and dropped there) while its loop
    plans boxes from the registrations: planning never meets the registry changing under it."""
    files = []
    for i in range(100):  # registrations that exist: planning looks at each on disk, letting the other thread in
        f = tmp_path / f"log{i}.jsonl"
        f.write_text("")
        files.append(f)
    sandbox.hide_from_bots(*files)
    stop = threading.Event()
    errors: list[BaseException] = []

    def churn() -> None:
        i = 0
        while not stop.is_set():
            path = tmp_path / f"match{i % 50}.jsonl"
            sandbox.hide_from_bots(path)
            sandbox.unhide(path)
            i += 1

    thread = threading.Thread(target=churn, daemon=True)
    thread.start()
    try:
        for _ in range(20):
            try:
                covered = sandbox._hidden_in([(str(tmp_path), False)], "/nonexistent")
            except RuntimeError as exc:  # "dictionary changed size during iteration"
                errors.append(exc)
                break
            assert set(map(str, files)) <= set(covered)
    finally:
        stop.set()
        thread.join()
        sandbox.unhide(*files)
    assert not errors, errors[0]


def test_plans_made_while_the_probe_started_ahead_runs_all_wait_for_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """``probe_ahead`` starts bubblewrap's probe in a thread; plans made meanwhile, in several threads at once, each
    wait for that probe and take its answer: the probe runs once."""
    import functools

    from wrappers import sandbox as sb

    calls: list[int] = []
    release = threading.Event()

    @functools.cache
    def slow_probe() -> str | None:
        calls.append(1)
        release.wait(5)
        return None

    monkeypatch.delenv(sb.MODE_ENV, raising=False)
    monkeypatch.setattr(sb, "bwrap_problem", slow_probe)
    monkeypatch.setattr(sb, "_bwrap_sizes_tmpfs", lambda: None)
    monkeypatch.setattr(sb, "seccomp_filter", lambda: None)
    monkeypatch.setattr(sb, "_ahead", [])
    sb.probe_ahead()
    answers: list[str | None] = []
    planners = [threading.Thread(target=lambda: answers.append(sb._probed())) for _ in range(4)]
    for t in planners:
        t.start()
    time.sleep(0.1)  # the planners are waiting (or racing for the list)
    release.set()
    for t in planners:
        t.join(10)
    assert answers == [None] * 4 and calls == [1], calls
